package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;

/**
 * Throughput of {@link SageModel#trainStep} on a fully expanded two-hop batch (no dedup): 1024
 * seeds with fanouts 25, 10 give 26,624 layer-1 nodes and 282,624 input nodes. Not a unit test;
 * run with {@code java ... SageModelBenchmark <featureDim> <threads> [steps]}.
 */
public final class SageModelBenchmark {

    private SageModelBenchmark() {}

    public static void main(String[] args) {
        int featureDim = Integer.parseInt(args[0]);
        int threads = Integer.parseInt(args[1]);
        int steps = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        Nd4jThreads.configure(threads);
        MiniBatch batch = fullExpansion(1024, 25, 10, featureDim, 10, new Random(1));
        ModelConfig cfg = ModelConfig.builder().inFeatures(featureDim).hidden(256).numClasses(10)
                .numLayers(2).dropout(0.5).learningRate(0.003).seed(1).build();
        SageModel model = new SageModel(cfg);
        for (int i = 0; i < 3; i++) {
            model.trainStep(batch);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpuStart = mx.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < steps; i++) {
            model.trainStep(batch);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuMs = (mx.getCurrentThreadCpuTime() - cpuStart) / 1e6 / steps;
        // With one thread all work runs on the calling thread, so its CPU time per step is the
        // step time free of interference from other processes sharing the cores.
        System.out.printf("F=%d threads=%d: %.1f ms/step, %.0f seeds/s (calling thread CPU %.1f ms/step)%n",
                featureDim, threads, 1000 * seconds / steps, steps * 1024 / seconds, cpuMs);
    }

    /**
     * Seeds get {@code f1} new hop-1 nodes each; every new hop-1 node gets {@code f2} new input
     * nodes, while seeds reuse their first {@code f2} hop-1 nodes as hop-2 sources.
     */
    static MiniBatch fullExpansion(int seeds, int f1, int f2, int featureDim, int classes, Random r) {
        int n1 = seeds * (1 + f1);
        int n2 = n1 + seeds * f1 * f2;
        MiniBatch b = new MiniBatch();
        b.numLayers = 2;
        b.nodeCounts = new int[] {seeds, n1, n2};
        b.indptrOffsets = new int[] {0, seeds + 1};
        b.indicesOffsets = new int[] {0, seeds * f1};
        b.indptr = new int[seeds + 1 + n1 + 1];
        b.indices = new int[seeds * f1 + n1 * f2];
        for (int i = 0; i < seeds; i++) {
            b.indptr[i + 1] = (i + 1) * f1;
            for (int k = 0; k < f1; k++) {
                b.indices[i * f1 + k] = seeds + i * f1 + k;
            }
        }
        int base = seeds * f1;
        for (int i = 0; i < n1; i++) {
            b.indptr[seeds + 1 + i + 1] = (i + 1) * f2;
            for (int k = 0; k < f2; k++) {
                b.indices[base + i * f2 + k] = i < seeds ? seeds + i * f1 + k : n1 + (i - seeds) * f2 + k;
            }
        }
        b.featureDim = featureDim;
        b.features = new float[n2 * featureDim];
        for (int i = 0; i < b.features.length; i++) {
            b.features[i] = (float) r.nextGaussian();
        }
        b.labels = new int[seeds];
        for (int i = 0; i < seeds; i++) {
            b.labels[i] = r.nextInt(classes);
        }
        return b;
    }
}
