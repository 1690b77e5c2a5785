package io.gnnstream.operators.model;

/** Softmax and arg-max of logit rows, computed in double like the training loss. */
public final class ClassProbabilities {

    private ClassProbabilities() {}

    /** Class probabilities of row {@code row} of {@code logits} ({@code classes} per row). */
    public static float[] softmax(float[] logits, int row, int classes) {
        int base = row * classes;
        double max = logits[base];
        for (int c = 1; c < classes; c++) {
            max = Math.max(max, logits[base + c]);
        }
        double sum = 0;
        for (int c = 0; c < classes; c++) {
            sum += Math.exp(logits[base + c] - max);
        }
        float[] p = new float[classes];
        for (int c = 0; c < classes; c++) {
            p[c] = (float) (Math.exp(logits[base + c] - max) / sum);
        }
        return p;
    }

    /** The highest-scoring class of row {@code row}; ties go to the lowest class. */
    public static int argmax(float[] logits, int row, int classes) {
        int base = row * classes;
        int best = 0;
        for (int c = 1; c < classes; c++) {
            if (logits[base + c] > logits[base + best]) {
                best = c;
            }
        }
        return best;
    }

    /** Cross-entropy of row {@code row} against {@code label}. */
    public static double loss(float[] logits, int row, int classes, int label) {
        int base = row * classes;
        double max = logits[base];
        for (int c = 1; c < classes; c++) {
            max = Math.max(max, logits[base + c]);
        }
        double sum = 0;
        for (int c = 0; c < classes; c++) {
            sum += Math.exp(logits[base + c] - max);
        }
        return max + Math.log(sum) - logits[base + label];
    }
}
