package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;

/**
 * Softmax cross-entropy over a batch's labelled seeds, computed in double from float logits (the
 * loss of both models). Seeds labelled {@link MiniBatch#NO_LABEL} are ignored, like PyTorch's
 * {@code ignore_index}.
 */
final class SoftmaxLoss {

    /** Loss sum and correct count over the {@code labelled} seeds. */
    record Stats(double lossSum, int correct, int labelled) {}

    private SoftmaxLoss() {}

    /**
     * Loss sum and correct count from the first {@code numSeeds x classes} {@code logits}. With
     * {@code gradient}, overwrites the logits with the gradient of the mean loss over the labelled
     * seeds (zero rows for unlabelled ones); if {@code predictions} is given, fills the arg-max
     * classes (ties resolve to the lowest class).
     */
    static Stats compute(
            float[] logits, MiniBatch batch, int classes, boolean gradient, int[] predictions) {
        int seeds = batch.numSeeds();
        int labelled = 0;
        for (int i = 0; i < seeds; i++) {
            labelled += batch.labels[i] < 0 ? 0 : 1;
        }
        double lossSum = 0;
        int correct = 0;
        for (int i = 0; i < seeds; i++) {
            int base = i * classes;
            int best = 0;
            for (int c = 1; c < classes; c++) {
                if (logits[base + c] > logits[base + best]) {
                    best = c;
                }
            }
            double max = logits[base + best];
            double sum = 0;
            for (int c = 0; c < classes; c++) {
                sum += Math.exp(logits[base + c] - max);
            }
            int label = batch.labels[i];
            if (predictions != null) {
                predictions[i] = best;
            }
            if (label < 0) {
                if (gradient) {
                    Arrays.fill(logits, base, base + classes, 0f);
                }
                continue;
            }
            lossSum += max + Math.log(sum) - logits[base + label];
            correct += best == label ? 1 : 0;
            if (gradient) {
                for (int c = 0; c < classes; c++) {
                    double p = Math.exp(logits[base + c] - max) / sum;
                    logits[base + c] = (float) ((p - (c == label ? 1.0 : 0.0)) / labelled);
                }
            }
        }
        return new Stats(lossSum, correct, labelled);
    }
}
