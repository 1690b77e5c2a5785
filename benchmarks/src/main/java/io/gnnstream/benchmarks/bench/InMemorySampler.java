package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.Mix;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Baseline of the sampling benchmark: the whole graph as in-neighbour CSR arrays and a dense
 * feature matrix in this JVM, sampled with the same semantics as the Flink loop (per hop, every
 * node within {@code h-1} hops draws up to {@code k} distinct in-neighbours; nodes are
 * de-duplicated per layer; features of all nodes are gathered into one row-major matrix). No Kafka,
 * no Flink, no RocksDB.
 */
public final class InMemorySampler {

    private final int featureDim;
    private final int[] offsets;
    private final int[] neighbours;
    private final float[] features;
    private final int[] trainSeeds;
    private final int[] stamp;
    private int epoch;

    private InMemorySampler(
            int numNodes,
            int featureDim,
            int[] offsets,
            int[] neighbours,
            float[] features,
            int[] trainSeeds) {
        this.featureDim = featureDim;
        this.offsets = offsets;
        this.neighbours = neighbours;
        this.features = features;
        this.trainSeeds = trainSeeds;
        this.stamp = new int[numNodes];
    }

    /** Loads a dataset folder whose vertex ids are {@code 0..numNodes-1}. */
    public static InMemorySampler load(Path dir, int numNodes, int featureDim) throws IOException {
        int[] degree = new int[numNodes + 1];
        try (BufferedReader r = Files.newBufferedReader(dir.resolve("edges.csv"))) {
            String line;
            while ((line = r.readLine()) != null) {
                degree[Integer.parseInt(line.substring(line.indexOf(',') + 1).trim()) + 1]++;
            }
        }
        for (int i = 0; i < numNodes; i++) {
            degree[i + 1] += degree[i];
        }
        int[] offsets = degree;
        int[] fill = Arrays.copyOf(offsets, numNodes);
        int[] neighbours = new int[offsets[numNodes]];
        try (BufferedReader r = Files.newBufferedReader(dir.resolve("edges.csv"))) {
            String line;
            while ((line = r.readLine()) != null) {
                int comma = line.indexOf(',');
                int dst = Integer.parseInt(line.substring(comma + 1).trim());
                neighbours[fill[dst]++] = Integer.parseInt(line.substring(0, comma).trim());
            }
        }
        float[] features = new float[numNodes * featureDim];
        int[] train = new int[numNodes];
        int numTrain = 0;
        ObjectMapper json = new ObjectMapper();
        try (BufferedReader r = Files.newBufferedReader(dir.resolve("nodes.jsonl"))) {
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode node = json.readTree(line);
                int id = node.path("id").asInt();
                JsonNode f = node.path("features");
                for (int j = 0; j < featureDim; j++) {
                    features[id * featureDim + j] = (float) f.path(j).asDouble();
                }
                if ("train".equals(node.path("split").asText())) {
                    train[numTrain++] = id;
                }
            }
        }
        return new InMemorySampler(
                numNodes,
                featureDim,
                offsets,
                neighbours,
                features,
                Arrays.copyOf(train, numTrain));
    }

    /**
     * Samples the batch of {@code batchSize} training seeds starting at {@code batchIndex *
     * batchSize} of a seeded permutation; returns the number of sampled block edges. The gathered
     * feature matrix is returned through {@code sink} so the JIT cannot drop the gather.
     */
    public long sample(long batchIndex, int batchSize, int[] fanouts, float[][] sink) {
        epoch++;
        SplittableRandom random = new SplittableRandom(Mix.seed(17, batchIndex));
        int[] nodes = new int[batchSize];
        int count = 0;
        for (int i = 0; i < batchSize; i++) {
            int seed = trainSeeds[random.nextInt(trainSeeds.length)];
            if (stamp[seed] != epoch) {
                stamp[seed] = epoch;
                nodes[count++] = seed;
            }
        }
        long edges = 0;
        int layerEnd = count;
        for (int fanout : fanouts) {
            int dstCount = layerEnd;
            for (int d = 0; d < dstCount; d++) {
                int v = nodes[d];
                int degree = offsets[v + 1] - offsets[v];
                int take = fanout < 0 ? degree : Math.min(fanout, degree);
                int[] slots = take == degree ? null : InAdjacency.chooseSlots(degree, take, random);
                for (int k = 0; k < take; k++) {
                    int u = neighbours[offsets[v] + (slots == null ? k : slots[k])];
                    if (stamp[u] != epoch) {
                        stamp[u] = epoch;
                        if (count == nodes.length) {
                            nodes = Arrays.copyOf(nodes, nodes.length * 2);
                        }
                        nodes[count++] = u;
                    }
                }
                edges += take;
            }
            layerEnd = count;
        }
        float[] gathered = new float[count * featureDim];
        for (int i = 0; i < count; i++) {
            System.arraycopy(features, nodes[i] * featureDim, gathered, i * featureDim, featureDim);
        }
        sink[0] = gathered;
        return edges;
    }
}
