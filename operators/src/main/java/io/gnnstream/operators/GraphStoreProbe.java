package io.gnnstream.operators;

import io.gnnstream.operators.store.StoreProbe;

/**
 * A test hook on the GraphStore: a {@link StoreProbe} installed here (in the JVM that runs the
 * job's tasks, such as a MiniCluster test) before the job starts is handed to every GraphStore
 * subtask's core when the subtask initializes, and then hears, on that subtask's task thread, the
 * adjacency writes it applies and the neighbours it samples, in order. None is installed by
 * default; the GraphStore reads this field once per subtask start, never per record.
 */
public final class GraphStoreProbe {

    private static volatile StoreProbe installed;

    private GraphStoreProbe() {}

    /** Installs {@code probe} for the GraphStores that start in this JVM from now (null: none). */
    public static void install(StoreProbe probe) {
        installed = probe;
    }

    /** The probe installed, or null. */
    static StoreProbe installed() {
        return installed;
    }
}
