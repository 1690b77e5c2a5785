package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongHashSet;
import io.gnnstream.state.EvalNeighbourhood;

/**
 * How the evaluation neighbourhood of a hub (a vertex above the eval fanout: its {@code fanout}
 * in-neighbours of smallest {@link EvalNeighbourhood#rank}) changes with a batch of in-edges that
 * were all added or all removed, each taking effect: the neighbours that enter it, those that leave
 * it, and its new rank bound (the largest rank it selects). A sum over the neighbourhood then takes
 * the entering parts and gives back the leaving ones instead of being summed again over all of
 * them. Found in one pass over the in-neighbour list after the batch, from the bound before it:
 * {@code e} additions within the old bound push out the {@code e} largest ranks up to it (the new
 * bound is the next one down); {@code j} removed members let in the {@code j} smallest ranks above
 * it (the new bound is the largest of them). The pass also counts the ranks up to the old bound,
 * which must be the selection's size give or take the batch, else that bound was not the
 * selection's ({@link #consistent}). {@code ranked}: the in-neighbours the pass ranked (0 where no
 * source was within the bound before, and no pass was made).
 */
record HubSelectionChange(
        long[] entering,
        long[] leaving,
        long boundBefore,
        long bound,
        boolean consistent,
        int ranked) {

    /**
     * The change of {@code w}'s neighbourhood under {@code fanout} by {@code sources} (distinct,
     * {@code added} or removed), given the in-neighbours {@code after} the batch and the
     * neighbourhood's bound before it. Both before and after, the neighbourhood must be a selection
     * ({@link EvalNeighbourhood#selects}).
     */
    static HubSelectionChange of(
            long w, long[] after, long[] sources, boolean added, long boundBefore, int fanout) {
        LongArrayList within = new LongArrayList();
        for (long u : sources) {
            if (EvalNeighbourhood.rank(w, u) <= boundBefore) {
                within.add(u);
            }
        }
        int moved = within.size();
        if (moved == 0) {
            // None is or was a member: the selection and its bound stay.
            return new HubSelectionChange(
                    new long[0], new long[0], boundBefore, boundBefore, true, 0);
        }
        // Additions: the moved + 1 largest ranks up to the old bound (a min-heap); removals: the
        // moved smallest above it (a max-heap).
        RankHeap heap = new RankHeap(added ? moved + 1 : moved, !added);
        int upToBound = 0;
        for (long u : after) {
            long r = EvalNeighbourhood.rank(w, u);
            if (r <= boundBefore) {
                upToBound++;
                if (added) {
                    heap.offer(r, u);
                }
            } else if (!added) {
                heap.offer(r, u);
            }
        }
        int expected = added ? fanout + moved : fanout - moved;
        if (upToBound != expected || !heap.full()) {
            return new HubSelectionChange(
                    new long[0], new long[0], boundBefore, boundBefore, false, after.length);
        }
        long bound = heap.topRank();
        if (!added) {
            return new HubSelectionChange(
                    heap.ids(), within.toArray(), boundBefore, bound, true, after.length);
        }
        LongHashSet batch = new LongHashSet(moved);
        LongArrayList entering = new LongArrayList();
        for (int i = 0; i < moved; i++) {
            long u = within.get(i);
            batch.add(u);
            if (EvalNeighbourhood.rank(w, u) <= bound) {
                entering.add(u);
            }
        }
        LongArrayList leaving = new LongArrayList();
        long[] ranks = heap.ranks();
        long[] ids = heap.ids();
        for (int i = 0; i < ids.length; i++) {
            if (ranks[i] > bound && !batch.contains(ids[i])) {
                leaving.add(ids[i]);
            }
        }
        return new HubSelectionChange(
                entering.toArray(), leaving.toArray(), boundBefore, bound, true, after.length);
    }

    /**
     * The {@code capacity} largest ranks offered (a min-heap: its top is the smallest of them) or,
     * {@code smallest}, the {@code capacity} smallest (a max-heap), each with its neighbour.
     */
    private static final class RankHeap {
        private final long[] ranks;
        private final long[] ids;
        private final boolean smallest;
        private int size;

        RankHeap(int capacity, boolean smallest) {
            this.ranks = new long[capacity];
            this.ids = new long[capacity];
            this.smallest = smallest;
        }

        /** Whether {@code a} belongs nearer the top than {@code b}. */
        private boolean above(long a, long b) {
            return smallest ? a > b : a < b;
        }

        void offer(long rank, long id) {
            if (size < ranks.length) {
                int at = size++;
                while (at > 0 && above(rank, ranks[(at - 1) / 2])) {
                    int parent = (at - 1) / 2;
                    ranks[at] = ranks[parent];
                    ids[at] = ids[parent];
                    at = parent;
                }
                ranks[at] = rank;
                ids[at] = id;
            } else if (above(ranks[0], rank)) {
                // The top is the furthest from what is kept: the new rank replaces it.
                int at = 0;
                while (true) {
                    int child = 2 * at + 1;
                    if (child >= size) {
                        break;
                    }
                    if (child + 1 < size && above(ranks[child + 1], ranks[child])) {
                        child++;
                    }
                    if (!above(ranks[child], rank)) {
                        break;
                    }
                    ranks[at] = ranks[child];
                    ids[at] = ids[child];
                    at = child;
                }
                ranks[at] = rank;
                ids[at] = id;
            }
        }

        boolean full() {
            return size == ranks.length;
        }

        long topRank() {
            return ranks[0];
        }

        long[] ranks() {
            return ranks;
        }

        long[] ids() {
            return ids;
        }
    }
}
