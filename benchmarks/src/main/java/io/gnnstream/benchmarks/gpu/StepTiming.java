package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;

/**
 * Wall time of {@link GnnModel#trainStep}s on one batch: {@code warmup} untimed steps, then {@code
 * steps} timed one by one. A step of the GPU model returns after downloading its gradient, so it
 * has finished on the device when the clock is read.
 */
final class StepTiming {

    private StepTiming() {}

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
