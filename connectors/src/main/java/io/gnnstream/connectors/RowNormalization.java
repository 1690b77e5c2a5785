package io.gnnstream.connectors;

/**
 * What {@link NodeFormat} does to a feature row as it parses it ({@code --normalize-features}).
 *
 * <p>Row normalisation (PyG's {@code NormalizeFeatures}) suits non-negative rows such as
 * bag-of-words or counts: each row sums to one afterwards. A signed row (word-embedding averages,
 * PCA-reduced or standardised features) can sum to almost zero, and dividing by that sum blows it
 * up by orders of magnitude. A stream has no column statistics when a record is parsed, so {@link
 * #AUTO} decides per row, from the row alone.
 */
public enum RowNormalization {
    /**
     * Divide a row by its sum when it has no negative feature and a positive sum; keep signed rows
     * as they are.
     */
    AUTO,
    /** Divide every row by its sum when that sum is positive, signed rows included. */
    TRUE,
    /** Keep every row as it is. */
    FALSE;

    /** The setting of a boolean flag: {@link #TRUE} or {@link #FALSE}. */
    public static RowNormalization of(boolean normalize) {
        return normalize ? TRUE : FALSE;
    }

    /** Whether a row is signed: it has a negative feature. */
    public static boolean signed(float[] row) {
        for (float f : row) {
            if (f < 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether this setting divides {@code row} by its sum. */
    public boolean divides(float[] row) {
        return switch (this) {
            case TRUE -> true;
            case FALSE -> false;
            case AUTO -> !signed(row);
        };
    }

    /** Applies this setting to {@code row} in place. */
    public void apply(float[] row) {
        if (!divides(row)) {
            return;
        }
        double sum = 0;
        for (float f : row) {
            sum += f;
        }
        if (sum > 0) {
            for (int i = 0; i < row.length; i++) {
                row[i] = (float) (row[i] / sum);
            }
        }
    }
}
