package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Wall time of {@link GnnModel#trainStep}s on one batch: {@code warmup} untimed steps, then {@code
 * steps} timed one by one. A step of the GPU model returns after downloading its gradient, so it
 * has finished on the device when the clock is read.
 */
final class StepTiming {

    private StepTiming() {}

    /**
     * Milliseconds per step of each of the model's phases over {@code steps} more steps with phase
     * timing on (a GPU model then waits for the device at every phase, so each phase holds its own
     * kernels' time), largest first.
     */
    static Map<String, Double> phases(GnnModel model, MiniBatch batch, int steps) {
        model.setPhaseTiming(true);
        try {
            for (int i = 0; i < steps; i++) {
                model.trainStep(batch);
            }
            Map<String, Double> ms = new LinkedHashMap<>();
            model.phaseNanos().entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> ms.put(e.getKey(), e.getValue() / 1e6 / Math.max(1, steps)));
            return ms;
        } finally {
            model.setPhaseTiming(false);
        }
    }

    /** Seconds of each timed step. */
    static double[] time(GnnModel model, MiniBatch batch, int warmup, int steps) {
        for (int i = 0; i < warmup; i++) {
            model.trainStep(batch);
        }
        double[] seconds = new double[steps];
        for (int i = 0; i < steps; i++) {
            long t0 = System.nanoTime();
            model.trainStep(batch);
            seconds[i] = (System.nanoTime() - t0) / 1e9;
        }
        return seconds;
    }
}
