package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Two trainer ranks on one GPU: two models of one config, each with its own device context, train
 * on the same batches concurrently, each on a thread of its own, and must stay bit-identical: their
 * {@link GnnModel#checksum()}s are compared before the first step and after every step.
 */
final class RankCheck {

    private RankCheck() {}

    /** Runs the two ranks over {@code batches}; failures go to {@code report}. */
    static Map<String, Object> run(
            ModelBackend backend, ModelConfig config, List<MiniBatch> batches, CheckReport report)
            throws InterruptedException {
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        2,
                        r -> {
                            Thread t = new Thread(r, "gpu-check-rank");
                            t.setDaemon(true);
                            return t;
                        });
        long t0 = System.nanoTime();
        List<long[]> sums = new ArrayList<>();
        try {
            List<Future<long[]>> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                ranks.add(pool.submit(() -> train(backend, config, batches)));
            }
            for (Future<long[]> f : ranks) {
                sums.add(f.get());
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            report.fail("ranks: a rank failed: " + GpuCheck.describe(cause));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("passed", false);
            out.put("error", String.valueOf(cause));
            return out;
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long[] a = sums.get(0);
        long[] b = sums.get(1);
        int firstDiff = -1;
        for (int s = 0; s < a.length && firstDiff < 0; s++) {
            if (a[s] != b[s]) {
                firstDiff = s;
            }
        }
        if (firstDiff >= 0) {
            report.fail(
                    String.format(
                            "ranks: checksums differ %s: %016x vs %016x",
                            firstDiff == 0 ? "before the first step" : "after step " + firstDiff,
                            a[firstDiff],
                            b[firstDiff]));
        } else {
            report.printf(
                    "  ranks: 2 contexts, %d steps each, concurrently in %.1f s: checksums equal"
                            + " after every step (last %016x)",
                    batches.size(), seconds, a[a.length - 1]);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("passed", firstDiff < 0);
        out.put("steps", batches.size());
        out.put("seconds", seconds);
        out.put("first_difference", firstDiff);
        List<Object> hex = new ArrayList<>();
        for (long s : a) {
            hex.add(String.format("%016x", s));
        }
        out.put("checksums", hex);
        return out;
    }

    /** One rank: checksum before the first step and after each. */
    private static long[] train(ModelBackend backend, ModelConfig config, List<MiniBatch> batches) {
        long[] sums = new long[batches.size() + 1];
        try (GnnModel m = backend.open(config)) {
            sums[0] = m.checksum();
            for (int s = 0; s < batches.size(); s++) {
                m.trainStep(batches.get(s));
                sums[s + 1] = m.checksum();
            }
        }
        return sums;
    }
}
