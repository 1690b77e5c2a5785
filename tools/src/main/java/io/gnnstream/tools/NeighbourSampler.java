package io.gnnstream.tools;

import com.carrotsearch.hppc.IntIntHashMap;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.InAdjacency;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Samples mini-batches from a {@link DatasetGraph} with the job's semantics (per hop every node
 * within {@code h-1} hops draws up to {@code k} distinct in-neighbours uniformly, {@code -1} = all;
 * a hop's destinations come first among its sources, as in DGL's blocks), in this JVM.
 */
public final class NeighbourSampler {

    private final DatasetGraph g;
    private final int[] fanouts;
    private final int evalFanout;

    public NeighbourSampler(DatasetGraph g, int[] fanouts) {
        this(g, fanouts, EvalNeighbourhood.DEFAULT_FANOUT);
    }

    /**
     * A sampler whose batches carry each node's degree ({@link MiniBatch#degrees}: its in-degree
     * under {@code evalFanout}, -1 = all, plus one), as the evaluation neighbourhoods count it.
     */
    public NeighbourSampler(DatasetGraph g, int[] fanouts, int evalFanout) {
        this.g = g;
        this.fanouts = fanouts.clone();
        this.evalFanout = evalFanout;
    }

    /** The batch of {@code seeds} (vertex indices) with labels and features. */
    public MiniBatch sample(int[] seeds, SplittableRandom random) {
        int layers = fanouts.length;
        IntIntHashMap position = new IntIntHashMap(seeds.length * 8);
        int[] nodes = new int[Math.max(16, seeds.length * 4)];
        int count = 0;
        for (int s : seeds) {
            if (!position.containsKey(s)) {
                position.put(s, count);
                nodes[count++] = s;
            }
        }
        int[] nodeCounts = new int[layers + 1];
        nodeCounts[0] = count;
        int[][] indptr = new int[layers][];
        int[][] indices = new int[layers][];
        for (int h = 1; h <= layers; h++) {
            int nDst = nodeCounts[h - 1];
            int k = fanouts[h - 1];
            int[] ptr = new int[nDst + 1];
            int[] idx = new int[Math.max(16, nDst * Math.max(1, k < 0 ? 16 : k))];
            int e = 0;
            for (int i = 0; i < nDst; i++) {
                int v = nodes[i];
                int degree = g.offsets[v + 1] - g.offsets[v];
                int take = k < 0 ? degree : Math.min(k, degree);
                int[] slots = take == degree ? null : InAdjacency.chooseSlots(degree, take, random);
                for (int j = 0; j < take; j++) {
                    int u = g.neighbours[g.offsets[v] + (slots == null ? j : slots[j])];
                    int p = position.getOrDefault(u, -1);
                    if (p < 0) {
                        p = count;
                        position.put(u, p);
                        if (count == nodes.length) {
                            nodes = Arrays.copyOf(nodes, nodes.length * 2);
                        }
                        nodes[count++] = u;
                    }
                    if (e == idx.length) {
                        idx = Arrays.copyOf(idx, idx.length * 2);
                    }
                    idx[e++] = p;
                }
                ptr[i + 1] = e;
            }
            indptr[h - 1] = ptr;
            indices[h - 1] = Arrays.copyOf(idx, e);
            nodeCounts[h] = count;
        }
        MiniBatch b = new MiniBatch();
        b.numLayers = layers;
        b.nodeCounts = nodeCounts;
        b.nodeIds = new long[count];
        for (int i = 0; i < count; i++) {
            b.nodeIds[i] = g.ids[nodes[i]];
        }
        b.setBlocks(indptr, indices);
        int f = g.featureDim;
        b.featureDim = f;
        b.features = new float[count * f];
        for (int i = 0; i < count; i++) {
            System.arraycopy(g.features, nodes[i] * f, b.features, i * f, f);
        }
        b.degrees = new int[count];
        for (int i = 0; i < count; i++) {
            int degree = g.offsets[nodes[i] + 1] - g.offsets[nodes[i]];
            b.degrees[i] = (evalFanout < 0 ? degree : Math.min(degree, evalFanout)) + 1;
        }
        b.labels = new int[nodeCounts[0]];
        for (int i = 0; i < nodeCounts[0]; i++) {
            int label = g.labels[nodes[i]];
            b.labels[i] = label < 0 || label >= g.numClasses ? MiniBatch.NO_LABEL : label;
        }
        return b;
    }
}
