package io.gnnstream.partitioning;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Makes an assignment meet a balance bound and then improves its cut, locally on the driver. Label
 * propagation keeps the partitions near their capacity on average, not strictly under it, and
 * vertices without edges are not part of it. So: vertices without a partition go to the least
 * loaded ones; each partition above {@code floor(maxBalance x mean)} hands its vertices with the
 * best gain (neighbours in the target minus neighbours at home) to partitions below the bound; then
 * a few greedy passes move a vertex to the partition holding most of its neighbours when that
 * partition is below the bound and holds more of them than its own, and swap pairs of vertices that
 * prefer each other's partition. Every move keeps the bound.
 */
final class BalanceRepair {

    private final GraphEdges g;
    private final int[] partition;
    private final int partitions;
    private final int[] loads;
    private final int limit;
    private final int[] counts;
    private int moves;

    BalanceRepair(GraphEdges g, int[] partition, int partitions, double maxBalance) {
        this.g = g;
        this.partition = partition;
        this.partitions = partitions;
        int n = partition.length;
        this.limit =
                Math.max(
                        (int) Math.ceil((double) n / partitions),
                        (int) Math.floor(maxBalance * n / partitions));
        this.loads = new int[partitions];
        for (int p : partition) {
            if (p >= 0) {
                loads[p]++;
            }
        }
        this.counts = new int[partitions];
    }

    /** Vertices moved so far. */
    int moves() {
        return moves;
    }

    /**
     * Places the unassigned vertices (partition -1), enforces the bound, refines; returns the
     * assignment.
     */
    int[] run(int refinementPasses) {
        for (int v = 0; v < partition.length; v++) {
            if (partition[v] < 0) {
                int p = leastLoaded();
                partition[v] = p;
                loads[p]++;
            }
        }
        balance();
        for (int pass = 0; pass < refinementPasses; pass++) {
            if (refine() + swap() == 0) {
                break;
            }
        }
        return partition;
    }

    /**
     * Swaps pairs of vertices between two partitions when each prefers the other's partition and
     * the two gains together are positive: what single moves cannot do when both partitions are at
     * the bound (label propagation settles in such states). Loads do not change.
     */
    private int swap() {
        List<List<Long>> wanting = new ArrayList<>(partitions * partitions);
        for (int i = 0; i < partitions * partitions; i++) {
            wanting.add(null);
        }
        for (int v = 0; v < partition.length; v++) {
            int home = partition[v];
            int target = preferred(v);
            int gain = counts[target] - counts[home];
            clearCounts();
            if (target != home && gain > 0) {
                int bucket = home * partitions + target;
                if (wanting.get(bucket) == null) {
                    wanting.set(bucket, new ArrayList<>());
                }
                wanting.get(bucket).add((((long) Integer.MAX_VALUE - gain) << 32) | v);
            }
        }
        int swapped = 0;
        for (int a = 0; a < partitions; a++) {
            for (int b = a + 1; b < partitions; b++) {
                List<Long> ab = wanting.get(a * partitions + b);
                List<Long> ba = wanting.get(b * partitions + a);
                if (ab == null || ba == null) {
                    continue;
                }
                Collections.sort(ab);
                Collections.sort(ba);
                for (int i = 0; i < Math.min(ab.size(), ba.size()); i++) {
                    int v = (int) (long) ab.get(i);
                    int u = (int) (long) ba.get(i);
                    if (partition[v] != a || partition[u] != b) {
                        continue;
                    }
                    int gain = gain(v, b) + gain(u, a) - 2 * (adjacent(v, u) ? 1 : 0);
                    if (gain <= 0) {
                        break;
                    }
                    partition[v] = b;
                    partition[u] = a;
                    swapped += 2;
                    moves += 2;
                }
            }
        }
        return swapped;
    }

    /**
     * The partition with most of the vertex's neighbours, whatever its load; counts left in {@link
     * #counts}.
     */
    private int preferred(int v) {
        for (int i = 0; i < g.degree(v); i++) {
            counts[partition[g.neighbour(v, i)]]++;
        }
        int best = partition[v];
        for (int p = 0; p < partitions; p++) {
            if (counts[p] > counts[best]) {
                best = p;
            }
        }
        return best;
    }

    /** Neighbours in {@code target} minus neighbours at home. */
    private int gain(int v, int target) {
        int home = partition[v];
        int gain = 0;
        for (int i = 0; i < g.degree(v); i++) {
            int p = partition[g.neighbour(v, i)];
            gain += p == target ? 1 : p == home ? -1 : 0;
        }
        return gain;
    }

    private boolean adjacent(int v, int u) {
        for (int i = 0; i < g.degree(v); i++) {
            if (g.neighbour(v, i) == u) {
                return true;
            }
        }
        return false;
    }

    private int leastLoaded() {
        int best = 0;
        for (int p = 1; p < partitions; p++) {
            if (loads[p] < loads[best]) {
                best = p;
            }
        }
        return best;
    }

    private void balance() {
        for (int home = 0; home < partitions; home++) {
            if (loads[home] <= limit) {
                continue;
            }
            int size = 0;
            long[] candidates = new long[loads[home]];
            for (int v = 0; v < partition.length; v++) {
                if (partition[v] == home) {
                    int target = bestTarget(v);
                    int gain = counts[target] - counts[home];
                    clearCounts();
                    // Highest gain first: sort ascending on the negated gain, vertex in the low
                    // bits.
                    candidates[size++] = (((long) Integer.MAX_VALUE - gain) << 32) | v;
                }
            }
            Arrays.sort(candidates, 0, size);
            for (int i = 0; i < size && loads[home] > limit; i++) {
                int v = (int) candidates[i];
                int target = bestTarget(v);
                clearCounts();
                move(v, target);
            }
        }
    }

    private int refine() {
        int moved = 0;
        for (int v = 0; v < partition.length; v++) {
            int home = partition[v];
            int target = bestTarget(v);
            boolean better = target != home && counts[target] > counts[home];
            clearCounts();
            if (better) {
                move(v, target);
                moved++;
            }
        }
        return moved;
    }

    /**
     * The partition below the bound (other than the vertex's own) with most of the vertex's
     * neighbours, the least loaded on ties; leaves the neighbour counts in {@link #counts}.
     */
    private int bestTarget(int v) {
        int home = partition[v];
        for (int i = 0; i < g.degree(v); i++) {
            int p = partition[g.neighbour(v, i)];
            if (p >= 0) {
                counts[p]++;
            }
        }
        int best = -1;
        for (int p = 0; p < partitions; p++) {
            if (p == home || loads[p] >= limit) {
                continue;
            }
            if (best < 0
                    || counts[p] > counts[best]
                    || counts[p] == counts[best] && loads[p] < loads[best]) {
                best = p;
            }
        }
        return best < 0 ? home : best;
    }

    private void clearCounts() {
        Arrays.fill(counts, 0);
    }

    private void move(int v, int target) {
        if (target == partition[v]) {
            return;
        }
        loads[partition[v]]--;
        loads[target]++;
        partition[v] = target;
        moves++;
    }
}
