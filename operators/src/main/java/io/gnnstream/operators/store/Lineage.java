package io.gnnstream.operators.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which job incarnations' layer outputs a GraphStore takes (docs/design.md, "Layer outputs of a
 * failed run"). The ranks write their outputs to a topic at least once, stamped with their job
 * incarnation and the last checkpoint they had snapshotted ({@code LayerOutputs#incarnation},
 * {@code #checkpoint}); after a restore the GraphStore reads the topic again from its checkpoint's
 * offsets. A record is taken when it is unstamped or of this incarnation, or of an incarnation this
 * one descends from and sent before the checkpoint the next one restored from: the rest is what a
 * failed run sent after the cut its successor restored, which no state of this run holds. Each
 * snapshot names the incarnation that took it; a restore makes that incarnation an ancestor, cut at
 * the restored checkpoint. The {@value #MAX_ANCESTORS} latest ancestors are kept: a record of an
 * older one would have outlived the topic's retention.
 */
public final class Lineage {

    static final int MAX_ANCESTORS = 64;

    /** In a snapshot's pairs: the cut of the incarnation that took it, set by the restore. */
    private static final long TOOK_SNAPSHOT = -1;

    private long current;

    /** Ancestor incarnation -> the checkpoint its successor restored from, oldest first. */
    private final LinkedHashMap<Long, Long> cuts = new LinkedHashMap<>();

    private long dropped;

    /** This run's incarnation ({@code JobIncarnation}); 0 (unknown) takes every record. */
    public void current(long incarnation) {
        this.current = incarnation;
    }

    /** This run's incarnation; 0 when unknown. */
    public long current() {
        return current;
    }

    /**
     * Whether a record of {@code incarnation} sent after its sender's {@code checkpoint} counts.
     */
    public boolean takes(long incarnation, long checkpoint) {
        if (incarnation == 0 || current == 0 || incarnation == current) {
            return true;
        }
        Long cut = cuts.get(incarnation);
        if (cut != null && checkpoint < cut) {
            return true;
        }
        dropped++;
        return false;
    }

    /** Records of another branch of the job's history dropped since this subtask started. */
    public long dropped() {
        return dropped;
    }

    /** The pairs (incarnation, cut) to snapshot; this incarnation's cut is left to the restore. */
    public long[] snapshot() {
        long[] pairs = new long[2 * (cuts.size() + (current != 0 ? 1 : 0))];
        int i = 0;
        for (Map.Entry<Long, Long> e : cuts.entrySet()) {
            pairs[i++] = e.getKey();
            pairs[i++] = e.getValue();
        }
        if (current != 0) {
            pairs[i++] = current;
            pairs[i] = TOOK_SNAPSHOT;
        }
        return pairs;
    }

    /**
     * Restores from the snapshots of every subtask ({@link #snapshot}) taken for checkpoint {@code
     * restoredCheckpoint}: the incarnation that took them becomes an ancestor cut there.
     */
    public void restore(Iterable<long[]> snapshots, long restoredCheckpoint) {
        List<long[]> entries = new ArrayList<>();
        for (long[] pairs : snapshots) {
            for (int i = 0; i + 1 < pairs.length; i += 2) {
                long cut = pairs[i + 1] == TOOK_SNAPSHOT ? restoredCheckpoint : pairs[i + 1];
                entries.add(new long[] {pairs[i], cut});
            }
        }
        entries.sort((a, b) -> Long.compare(a[1], b[1]));
        for (long[] e : entries) {
            cuts.remove(e[0]);
            cuts.put(e[0], e[1]);
        }
        while (cuts.size() > MAX_ANCESTORS) {
            cuts.remove(cuts.keySet().iterator().next());
        }
    }
}
