package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.SplittableRandom;

/**
 * A synthetic training {@link MiniBatch} with the shapes of neighbour sampling without
 * de-duplication (as in the PyTorch/PyG reference with {@code trim_to_layer}): every sampled
 * neighbour is a new node, so with 1024 seeds and fanouts 25, 10 there are 1,024 seeds, 26,624
 * nodes within one hop and 282,624 input nodes.
 *
 * <p>Nodes discovered at hop {@code t} form tier {@code t}; each node of tier {@code t} has {@code
 * fanouts[t]} children in tier {@code t+1}. The hop-{@code h} block connects every node of tiers
 * {@code 0..h-1} (its destinations, the first {@code nodeCounts[h-1]} nodes, as {@link MiniBatch}
 * nests them) to its children, i.e. it holds all edges sampled up to hop {@code h}: 25,600 edges
 * for hop 1 and 25,600 + 256,000 = 281,600 for hop 2 in the example. Which row of the next tier a
 * child gets is a random permutation per tier, so neighbour rows are gathered in random order;
 * features are uniform in [-1, 1) and labels uniform, all drawn from {@code seed}.
 */
public final class FullExpansionBatch {

    private FullExpansionBatch() {}

    /** Node count per depth ({@code [seeds, within 1 hop, ..., all]}) for these shapes. */
    public static int[] nodeCounts(int seeds, int[] fanouts) {
        int[] counts = new int[fanouts.length + 1];
        counts[0] = seeds;
        long tier = seeds;
        for (int h = 1; h <= fanouts.length; h++) {
            tier *= fanouts[h - 1];
            long total = counts[h - 1] + tier;
            if (total > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("batch too large: " + total + " nodes");
            }
            counts[h] = (int) total;
        }
        return counts;
    }

    /** Edge count of every hop's block. */
    public static long[] edgeCounts(int seeds, int[] fanouts) {
        int[] counts = nodeCounts(seeds, fanouts);
        long[] edges = new long[fanouts.length];
        long sum = 0;
        for (int h = 1; h <= fanouts.length; h++) {
            sum += (long) (counts[h - 1] - (h == 1 ? 0 : counts[h - 2])) * fanouts[h - 1];
            edges[h - 1] = sum;
        }
        return edges;
    }

    public static MiniBatch build(
            int seeds, int[] fanouts, int featureDim, int classes, long seed) {
        if (seeds < 1 || fanouts.length < 1 || featureDim < 1 || classes < 2) {
            throw new IllegalArgumentException(
                    "need seeds >= 1, a fanout, features >= 1 and classes >= 2");
        }
        for (int f : fanouts) {
            if (f < 1) {
                throw new IllegalArgumentException(
                        "fanouts must be >= 1 for full expansion, got " + f);
            }
        }
        int layers = fanouts.length;
        int[] counts = nodeCounts(seeds, fanouts);
        long[] edges = edgeCounts(seeds, fanouts);
        long totalEdges = 0;
        for (long e : edges) {
            totalEdges += e;
        }
        if (totalEdges > Integer.MAX_VALUE
                || (long) counts[layers] * featureDim > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch too large for int-indexed arrays");
        }
        SplittableRandom random = new SplittableRandom(seed);
        // child[t][s]: node index of the s-th child slot of tier t+1 (slot = parent rank * fanout +
        // k).
        int[][] child = new int[layers][];
        for (int t = 0; t < layers; t++) {
            int first = counts[t];
            int size = counts[t + 1] - counts[t];
            child[t] = new int[size];
            for (int s = 0; s < size; s++) {
                child[t][s] = first + s;
            }
            for (int s = size - 1; s > 0; s--) {
                int r = random.nextInt(s + 1);
                int tmp = child[t][s];
                child[t][s] = child[t][r];
                child[t][r] = tmp;
            }
        }
        MiniBatch b = new MiniBatch();
        b.kind = MiniBatch.Kind.TRAIN;
        b.numLayers = layers;
        b.nodeCounts = counts;
        b.indptrOffsets = new int[layers];
        b.indicesOffsets = new int[layers];
        int indptrSize = 0;
        for (int h = 1; h <= layers; h++) {
            b.indptrOffsets[h - 1] = indptrSize;
            indptrSize += counts[h - 1] + 1;
        }
        b.indptr = new int[indptrSize];
        b.indices = new int[(int) totalEdges];
        int e = 0;
        for (int h = 1; h <= layers; h++) {
            b.indicesOffsets[h - 1] = e;
            int p0 = b.indptrOffsets[h - 1];
            int local = 0;
            for (int i = 0; i < counts[h - 1]; i++) {
                int tier = tierOf(counts, i);
                int rank = i - (tier == 0 ? 0 : counts[tier - 1]);
                int fanout = fanouts[tier];
                for (int k = 0; k < fanout; k++) {
                    b.indices[e++] = child[tier][rank * fanout + k];
                }
                local += fanout;
                b.indptr[p0 + i + 1] = local;
            }
        }
        b.nodeIds = new long[counts[layers]];
        for (int i = 0; i < b.nodeIds.length; i++) {
            b.nodeIds[i] = i;
        }
        b.featureDim = featureDim;
        b.features = new float[counts[layers] * featureDim];
        for (int i = 0; i < b.features.length; i++) {
            b.features[i] = (float) (2.0 * random.nextDouble() - 1.0);
        }
        b.labels = new int[seeds];
        for (int i = 0; i < seeds; i++) {
            b.labels[i] = random.nextInt(classes);
        }
        return b;
    }

    private static int tierOf(int[] counts, int node) {
        int t = 0;
        while (node >= counts[t]) {
            t++;
        }
        return t;
    }
}
