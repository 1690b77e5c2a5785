package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Builds MiniBatches by hand (block layout) from small in-memory graphs for the model tests. */
final class TestGraphs {

    private TestGraphs() {}

    /** A graph: {@code inNbrs[v]} are v's in-neighbours; features are row-major N x F. */
    record Graph(int[][] inNbrs, float[] features, int featureDim, int[] labels) {}

    /**
     * Random graph with Gaussian features; nodes {@code v % isolatedEvery == 0} have no in-edges.
     */
    static Graph random(
            int n, int featureDim, int classes, int maxDegree, int isolatedEvery, long seed) {
        Random r = new Random(seed);
        int[][] nbrs = new int[n][];
        for (int v = 0; v < n; v++) {
            int deg = v % isolatedEvery == 0 ? 0 : 1 + r.nextInt(maxDegree);
            nbrs[v] = new int[deg];
            for (int k = 0; k < deg; k++) {
                nbrs[v][k] = r.nextInt(n);
            }
        }
        float[] x = new float[n * featureDim];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        int[] labels = new int[n];
        for (int v = 0; v < n; v++) {
            labels[v] = r.nextInt(classes);
        }
        return new Graph(nbrs, x, featureDim, labels);
    }

    /**
     * Planted partition: features are the class centroid plus Gaussian noise of std {@code noise};
     * each in-edge stays within the class with probability {@code pIn}.
     */
    static Graph planted(
            int n, int featureDim, int classes, int degree, double pIn, double noise, long seed) {
        Random r = new Random(seed);
        float[][] centroids = new float[classes][featureDim];
        for (float[] c : centroids) {
            for (int f = 0; f < featureDim; f++) {
                c[f] = (float) r.nextGaussian();
            }
        }
        int[] labels = new int[n];
        List<List<Integer>> byClass = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            byClass.add(new ArrayList<>());
        }
        for (int v = 0; v < n; v++) {
            labels[v] = r.nextInt(classes);
            byClass.get(labels[v]).add(v);
        }
        int[][] nbrs = new int[n][degree];
        float[] x = new float[n * featureDim];
        for (int v = 0; v < n; v++) {
            for (int k = 0; k < degree; k++) {
                List<Integer> pool =
                        byClass.get(r.nextDouble() < pIn ? labels[v] : r.nextInt(classes));
                nbrs[v][k] = pool.get(r.nextInt(pool.size()));
            }
            for (int f = 0; f < featureDim; f++) {
                x[v * featureDim + f] =
                        centroids[labels[v]][f] + (float) (noise * r.nextGaussian());
            }
        }
        return new Graph(nbrs, x, featureDim, labels);
    }

    /**
     * Samples up to {@code fanouts[h-1]} in-neighbours per destination for hops 1..L (hop 1 next to
     * the seeds) into the block layout; with {@code dedup} a node appears once, otherwise every
     * sampled neighbour becomes a new row (full expansion).
     */
    static MiniBatch sample(Graph g, int[] seeds, int[] fanouts, boolean dedup, long seed) {
        Random r = new Random(seed);
        int layers = fanouts.length;
        List<Integer> nodes = new ArrayList<>();
        Map<Integer, Integer> local = new HashMap<>();
        for (int s : seeds) {
            local.putIfAbsent(s, nodes.size());
            nodes.add(s);
        }
        int[] counts = new int[layers + 1];
        counts[0] = nodes.size();
        List<Integer> indptr = new ArrayList<>();
        List<Integer> indices = new ArrayList<>();
        int[] indptrOffsets = new int[layers];
        int[] indicesOffsets = new int[layers];
        for (int h = 1; h <= layers; h++) {
            indptrOffsets[h - 1] = indptr.size();
            indicesOffsets[h - 1] = indices.size();
            int edges = 0;
            indptr.add(0);
            for (int i = 0; i < counts[h - 1]; i++) {
                int[] nb = g.inNbrs()[nodes.get(i)];
                int take = Math.min(fanouts[h - 1], nb.length);
                for (int k = 0; k < take; k++) {
                    int v = nb[r.nextInt(nb.length)];
                    Integer u = dedup ? local.get(v) : null;
                    if (u == null) {
                        u = nodes.size();
                        nodes.add(v);
                        local.putIfAbsent(v, u);
                    }
                    indices.add(u);
                }
                edges += take;
                indptr.add(edges);
            }
            counts[h] = nodes.size();
        }
        MiniBatch b = new MiniBatch();
        b.kind = MiniBatch.Kind.TRAIN;
        b.numLayers = layers;
        b.nodeCounts = counts;
        b.nodeIds = nodes.stream().mapToLong(Integer::longValue).toArray();
        b.indptr = indptr.stream().mapToInt(Integer::intValue).toArray();
        b.indptrOffsets = indptrOffsets;
        b.indices = indices.stream().mapToInt(Integer::intValue).toArray();
        b.indicesOffsets = indicesOffsets;
        b.featureDim = g.featureDim();
        b.features = new float[nodes.size() * g.featureDim()];
        for (int i = 0; i < nodes.size(); i++) {
            System.arraycopy(
                    g.features(),
                    nodes.get(i) * g.featureDim(),
                    b.features,
                    i * g.featureDim(),
                    g.featureDim());
        }
        b.labels = new int[seeds.length];
        for (int i = 0; i < seeds.length; i++) {
            b.labels[i] = g.labels()[seeds[i]];
        }
        return b;
    }

    /** Seeds {@code from, from+stride, ...} below {@code n}, at most {@code count}. */
    static int[] seeds(int from, int stride, int count, int n) {
        List<Integer> s = new ArrayList<>();
        for (int v = from; v < n && s.size() < count; v += stride) {
            s.add(v);
        }
        return s.stream().mapToInt(Integer::intValue).toArray();
    }
}
