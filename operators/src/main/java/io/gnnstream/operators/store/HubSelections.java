package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.sorting.IndirectSort;
import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Heap cache of hubs' smallest in-neighbour ranks, so that a hub's edge change finds how its
 * evaluation neighbourhood changed without reading its in-neighbour list ({@link
 * HubSelectionChange#of} passes over it all). An entry holds the {@code fanout + extra} smallest
 * {@link EvalNeighbourhood#rank}s of the hub's in-neighbours, ascending, with their ids (all of
 * them where it has fewer): its first {@code fanout} are the neighbourhood. A batch of additions,
 * or of removals, that all took effect is applied to the entry in place ({@link #apply}); a removal
 * that leaves it fewer than {@code fanout} ranks drops it, and the next pass over the list makes it
 * again ({@link #fill}). Derived from the adjacency and never checkpointed: its owner {@link
 * #forget}s a hub on any other change of its in-adjacency. Entries are kept in access order under a
 * budget of heap bytes.
 */
final class HubSelections {

    /** Heap bytes charged per entry besides its arrays' elements. */
    static final int ENTRY_OVERHEAD_BYTES = 128;

    private final int fanout;
    private final int capacity;
    private final long budgetBytes;
    private long bytes;

    private final LinkedHashMap<Long, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

    /** The smallest ranks of one hub's in-neighbours, ascending, and their ids. */
    private static final class Entry {
        final long[] ranks;
        final long[] ids;
        int size;

        /** Whether the entry holds every in-neighbour (else the {@code size} of smallest rank). */
        boolean complete;

        Entry(int capacity) {
            this.ranks = new long[capacity + 1];
            this.ids = new long[capacity + 1];
        }
    }

    /**
     * @param fanout the eval fanout (a hub has more in-neighbours; none is cached where it is not
     *     positive)
     * @param budgetBytes heap for the entries
     */
    HubSelections(int fanout, long budgetBytes) {
        this.fanout = fanout;
        this.capacity = fanout + Math.max(64, fanout / 4);
        this.budgetBytes = budgetBytes;
    }

    /**
     * Applies a batch of distinct {@code sources}, all {@code added} to or all removed from hub
     * {@code w}'s in-adjacency (each taking effect; a hub before and after), to its entry, and
     * returns how its neighbourhood changed; null where {@code w} has no entry (or no longer one:
     * too few ranks left).
     */
    HubSelectionChange apply(long w, long[] sources, boolean added) {
        Entry e = fanout > 0 ? entries.get(w) : null;
        if (e == null) {
            return null;
        }
        if (sources.length > capacity - fanout) {
            // Members pushed out could leave the entry before they are seen to leave.
            return forgetting(w);
        }
        long boundBefore = e.ranks[fanout - 1];
        LongHashSet batch = new LongHashSet(sources.length);
        for (long u : sources) {
            long r = EvalNeighbourhood.rank(w, u);
            batch.add(u);
            int at = Arrays.binarySearch(e.ranks, 0, e.size, r);
            if (added) {
                if (at >= 0) {
                    return forgetting(w); // already listed: not this entry's list
                }
                if (e.complete || -1 - at < e.size) {
                    insert(e, -1 - at, r, u);
                }
            } else if (at >= 0) {
                if (e.ids[at] != u) {
                    return forgetting(w);
                }
                System.arraycopy(e.ranks, at + 1, e.ranks, at, e.size - at - 1);
                System.arraycopy(e.ids, at + 1, e.ids, at, e.size - at - 1);
                e.size--;
            } else if (e.complete || e.size > 0 && r < e.ranks[e.size - 1]) {
                return forgetting(w); // a removal of an in-neighbour it should hold
            }
        }
        if (e.size < fanout || e.complete && e.size == fanout) {
            return forgetting(w); // too few ranks to tell the neighbourhood (or no longer a hub)
        }
        long bound = e.ranks[fanout - 1];
        LongArrayList entering = new LongArrayList();
        LongArrayList leaving = new LongArrayList();
        if (added) {
            for (long u : sources) {
                if (EvalNeighbourhood.rank(w, u) <= bound) {
                    entering.add(u);
                }
            }
            // Members pushed out: now past the first fanout, within the bound before.
            for (int i = fanout; i < e.size && e.ranks[i] <= boundBefore; i++) {
                if (!batch.contains(e.ids[i])) {
                    leaving.add(e.ids[i]);
                }
            }
        } else {
            for (long u : sources) {
                if (EvalNeighbourhood.rank(w, u) <= boundBefore) {
                    leaving.add(u);
                }
            }
            // Ranks let in: now among the first fanout, beyond the bound before.
            for (int i = fanout - 1; i >= 0 && e.ranks[i] > boundBefore; i--) {
                entering.add(e.ids[i]);
            }
        }
        return new HubSelectionChange(
                entering.toArray(), leaving.toArray(), boundBefore, bound, true, 0);
    }

    private static void insert(Entry e, int at, long rank, long id) {
        System.arraycopy(e.ranks, at, e.ranks, at + 1, e.size - at);
        System.arraycopy(e.ids, at, e.ids, at + 1, e.size - at);
        e.ranks[at] = rank;
        e.ids[at] = id;
        e.size++;
        if (e.size == e.ranks.length) {
            e.size--; // the largest leaves: the entry holds the smallest ranks only
            e.complete = false;
        }
    }

    /**
     * Makes {@code w}'s entry from its in-neighbours {@code list} (a hub's whole list, as a pass
     * read it).
     */
    void fill(long w, long[] list) {
        if (fanout <= 0 || !EvalNeighbourhood.selects(list.length, fanout)) {
            return;
        }
        long[] ranks = new long[list.length];
        for (int i = 0; i < list.length; i++) {
            ranks[i] = EvalNeighbourhood.rank(w, list[i]);
        }
        int[] order =
                IndirectSort.mergesort(0, list.length, (a, b) -> Long.compare(ranks[a], ranks[b]));
        int n = Math.min(list.length, capacity);
        Entry e = new Entry(capacity);
        for (int i = 0; i < n; i++) {
            e.ranks[i] = ranks[order[i]];
            e.ids[i] = list[order[i]];
            if (i > 0 && e.ranks[i] == e.ranks[i - 1]) {
                return; // a neighbour listed twice: no entry
            }
        }
        e.size = n;
        e.complete = n == list.length;
        forget(w);
        entries.put(w, e);
        bytes += entryBytes();
        Iterator<Map.Entry<Long, Entry>> eldest = entries.entrySet().iterator();
        while (bytes > budgetBytes && eldest.hasNext()) {
            eldest.next();
            eldest.remove();
            bytes -= entryBytes();
        }
    }

    /** Drops {@code w}'s entry (its in-adjacency changed otherwise than by {@link #apply}). */
    void forget(long w) {
        if (entries.remove(w) != null) {
            bytes -= entryBytes();
        }
    }

    private HubSelectionChange forgetting(long w) {
        forget(w);
        return null;
    }

    private long entryBytes() {
        return ENTRY_OVERHEAD_BYTES + 2L * Long.BYTES * (capacity + 1);
    }
}
