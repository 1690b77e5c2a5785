package io.gnnstream.connectors;

/**
 * Whether feature rows are divided by their sums ({@code --normalize-features}), decided once per
 * dataset.
 *
 * <p>Row normalisation (PyG's {@code NormalizeFeatures}) suits non-negative rows such as
 * bag-of-words or counts: each row sums to one afterwards. A signed row (word-embedding averages,
 * PCA-reduced or standardised features) can sum to almost zero, and dividing by that sum blows it
 * up by orders of magnitude. {@link #AUTO} is not a rule per row: it is decided once for the whole
 * dataset ({@link #decide}), from the dataset scan for a folder and from the first records of a
 * node topic for the job ({@link NormalizationDecider}), and every row is then treated alike.
 */
public enum RowNormalization {
    /**
     * Decided once per dataset: {@link #TRUE} when no row has a negative feature, else {@link
     * #FALSE}.
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

    /** The decision of {@link #AUTO} for a dataset that has ({@code signedRows}) a signed row. */
    public static RowNormalization decide(boolean signedRows) {
        return signedRows ? FALSE : TRUE;
    }

    /** This setting for a dataset with ({@code signedRows}) or without a signed row. */
    public RowNormalization resolve(boolean signedRows) {
        return this == AUTO ? decide(signedRows) : this;
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

    /** The name an export's manifest records: {@code "sum"} or {@code "none"}. */
    public String manifestName() {
        return switch (this) {
            case TRUE -> "sum";
            case FALSE -> "none";
            case AUTO -> throw undecided();
        };
    }

    /**
     * The decided setting a manifest names ({@link #manifestName}).
     *
     * @throws IllegalArgumentException for another name
     */
    public static RowNormalization ofManifestName(String name) {
        return switch (name) {
            case "sum" -> TRUE;
            case "none" -> FALSE;
            default ->
                    throw new IllegalArgumentException(
                            "feature normalisation must be \"sum\" or \"none\", got \""
                                    + name
                                    + "\"");
        };
    }

    /**
     * Applies this decided setting to {@code row} in place.
     *
     * @throws IllegalStateException for {@link #AUTO}, which must be decided for the dataset first
     */
    public void apply(float[] row) {
        if (this == AUTO) {
            throw undecided();
        }
        if (this == FALSE) {
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

    private static IllegalStateException undecided() {
        return new IllegalStateException(
                "--normalize-features auto is decided once per dataset (RowNormalization.decide)"
                        + " before rows are normalised");
    }
}
