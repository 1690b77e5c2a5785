package io.gnnstream.state;

import java.util.Arrays;

/**
 * The in-neighbours a vertex aggregates in evaluation rounds and in offline inference (see
 * docs/design.md, "Evaluation"): all of them up to the eval fanout {@code k}, else the {@code k}
 * with the smallest {@link #rank}, ties by the smaller id. A bottom-k sample: it depends only on
 * the set of in-neighbours (not on their order, the job's seed or the round), and adding or
 * removing one neighbour changes it by at most one member in and one out.
 */
public final class EvalNeighbourhood {

    /** The eval fanout where none is given ({@code --eval-fanout}'s default). */
    public static final int DEFAULT_FANOUT = 4096;

    private EvalNeighbourhood() {}

    /** The rank of in-neighbour {@code neighbour} of {@code vertex}, both vertex ids. */
    public static long rank(long vertex, long neighbour) {
        return Mix.pair(vertex, neighbour);
    }

    /**
     * Whether a vertex of {@code degree} in-neighbours aggregates a selection of them under {@code
     * fanout} ({@code -1}: all), rather than all of them.
     */
    public static boolean selects(int degree, int fanout) {
        return fanout >= 0 && degree > fanout;
    }

    /**
     * The positions in {@code ids} (the in-neighbour ids of {@code vertex}) of the neighbourhood
     * under {@code fanout}: {@code 0..n-1} in order when it holds them all, else the selected ones
     * in ascending order of rank (then id).
     */
    public static int[] select(long vertex, long[] ids, int fanout) {
        int n = ids.length;
        if (!selects(n, fanout)) {
            int[] all = new int[n];
            Arrays.setAll(all, i -> i);
            return all;
        }
        int k = fanout;
        if (k == 0) {
            return new int[0];
        }
        long[] ranks = ranks(vertex, ids);
        long bound = smallest(ranks.clone(), k);
        // The members: every rank up to the bound. Distinct neighbours never tie (the rank is a
        // bijection of the neighbour), so only a neighbour listed twice can.
        int[] chosen = new int[k];
        long[] sorted = new long[k];
        int c = 0;
        for (int i = 0; i < n && c < k; i++) {
            if (ranks[i] <= bound) {
                chosen[c] = i;
                sorted[c++] = ranks[i];
            }
        }
        Arrays.sort(sorted);
        for (int i = 1; i < k; i++) {
            if (sorted[i] == sorted[i - 1]) {
                return selectByHeap(vertex, ids, k);
            }
        }
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[Arrays.binarySearch(sorted, ranks[chosen[i]])] = chosen[i];
        }
        return out;
    }

    /**
     * The ids of {@link #select} in the order of {@code ids} ({@code ids} itself when it holds them
     * all): the same neighbours, for readers that do not depend on their order (a sum), without
     * ordering the selection.
     */
    public static long[] members(long vertex, long[] ids, int fanout) {
        if (!selects(ids.length, fanout)) {
            return ids;
        }
        if (fanout == 0) {
            return new long[0];
        }
        long[] ranks = ranks(vertex, ids);
        long bound = smallest(ranks.clone(), fanout);
        long[] out = new long[fanout];
        int c = 0;
        for (int i = 0; i < ids.length; i++) {
            if (ranks[i] < bound) {
                out[c++] = ids[i];
            }
        }
        // Then the bound's own neighbour, as often as the selection holds it (a repeated id).
        for (int i = 0; i < ids.length && c < fanout; i++) {
            if (ranks[i] == bound) {
                out[c++] = ids[i];
            }
        }
        return out;
    }

    private static long[] ranks(long vertex, long[] ids) {
        long[] ranks = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            ranks[i] = rank(vertex, ids[i]);
        }
        return ranks;
    }

    /** The {@code k}-th smallest of {@code a} (1-based), by selection in place. */
    private static long smallest(long[] a, int k) {
        int lo = 0;
        int hi = a.length - 1;
        int target = k - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            // The median of three as pivot; the ranks are hashes, so no input is adversarial.
            if (a[mid] < a[lo]) {
                swap(a, mid, lo);
            }
            if (a[hi] < a[lo]) {
                swap(a, hi, lo);
            }
            if (a[hi] < a[mid]) {
                swap(a, hi, mid);
            }
            long pivot = a[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] < pivot) {
                    i++;
                }
                while (a[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    swap(a, i++, j--);
                }
            }
            if (target <= j) {
                hi = j;
            } else if (target >= i) {
                lo = i;
            } else {
                return a[target];
            }
        }
        return a[target];
    }

    private static void swap(long[] a, int i, int j) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    /**
     * {@link #select} by a heap of the {@code k} smallest, for lists that name a neighbour twice.
     */
    private static int[] selectByHeap(long vertex, long[] ids, int k) {
        int n = ids.length;
        // A max-heap of the k smallest (rank, id) seen so far, by position; then sorted in place.
        long[] ranks = new long[k];
        int[] heap = new int[k];
        for (int i = 0; i < k; i++) {
            heap[i] = i;
            ranks[i] = rank(vertex, ids[i]);
        }
        for (int i = k / 2 - 1; i >= 0; i--) {
            siftDown(heap, ranks, ids, i, k);
        }
        for (int i = k; i < n; i++) {
            long r = rank(vertex, ids[i]);
            if (k > 0 && before(r, ids[i], ranks[0], ids[heap[0]])) {
                heap[0] = i;
                ranks[0] = r;
                siftDown(heap, ranks, ids, 0, k);
            }
        }
        for (int end = k - 1; end > 0; end--) {
            swap(heap, ranks, 0, end);
            siftDown(heap, ranks, ids, 0, end);
        }
        return heap;
    }

    /** The ids of {@link #select}: {@code ids} itself when it holds them all. */
    public static long[] neighbours(long vertex, long[] ids, int fanout) {
        if (!selects(ids.length, fanout)) {
            return ids;
        }
        int[] chosen = select(vertex, ids, fanout);
        long[] out = new long[chosen.length];
        for (int i = 0; i < chosen.length; i++) {
            out[i] = ids[chosen[i]];
        }
        return out;
    }

    /** Whether {@code (rank a, id a)} comes before {@code (rank b, id b)}. */
    private static boolean before(long rankA, long idA, long rankB, long idB) {
        return rankA != rankB ? rankA < rankB : idA < idB;
    }

    private static void siftDown(int[] heap, long[] ranks, long[] ids, int at, int size) {
        while (true) {
            int largest = at;
            for (int child = 2 * at + 1; child <= 2 * at + 2 && child < size; child++) {
                if (before(ranks[largest], ids[heap[largest]], ranks[child], ids[heap[child]])) {
                    largest = child;
                }
            }
            if (largest == at) {
                return;
            }
            swap(heap, ranks, at, largest);
            at = largest;
        }
    }

    private static void swap(int[] heap, long[] ranks, int a, int b) {
        int h = heap[a];
        heap[a] = heap[b];
        heap[b] = h;
        long r = ranks[a];
        ranks[a] = ranks[b];
        ranks[b] = r;
    }
}
