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
 * them. Found from the in-neighbour list after the batch and the bound before it: an addition
 * enters where its rank is within the new bound, pushing out the members between the new bound and
 * the old; a removal of a member lets in the neighbours between the old bound and the new.
 */
record HubSelectionChange(long[] entering, long[] leaving, long bound) {

    /**
     * The change of {@code w}'s neighbourhood by {@code sources} ({@code added} or removed), given
     * the in-neighbours {@code after} the batch, the neighbourhood's bound before it and its {@code
     * bound} after it ({@link EvalNeighbourhood#bound} of {@code after}). Both before and after,
     * the neighbourhood must be a selection ({@link EvalNeighbourhood#selects}).
     */
    static HubSelectionChange of(
            long w, long[] after, long[] sources, boolean added, long boundBefore, long bound) {
        LongArrayList entering = new LongArrayList();
        LongArrayList leaving = new LongArrayList();
        if (added) {
            LongHashSet batch = new LongHashSet(sources.length);
            for (long u : sources) {
                batch.add(u);
                if (EvalNeighbourhood.rank(w, u) <= bound) {
                    entering.add(u);
                }
            }
            for (long u : after) {
                long r = EvalNeighbourhood.rank(w, u);
                if (r > bound && r <= boundBefore && !batch.contains(u)) {
                    leaving.add(u);
                }
            }
        } else {
            for (long u : after) {
                long r = EvalNeighbourhood.rank(w, u);
                if (r > boundBefore && r <= bound) {
                    entering.add(u);
                }
            }
            for (long u : sources) {
                if (EvalNeighbourhood.rank(w, u) <= boundBefore) {
                    leaving.add(u);
                }
            }
        }
        return new HubSelectionChange(entering.toArray(), leaving.toArray(), bound);
    }

    /** A selection keeps its size: as many enter as leave, else the bound before was not its. */
    boolean consistent() {
        return entering.length == leaving.length;
    }
}
