package io.gnnstream.tools.formats;

import java.util.Objects;

/**
 * How to read a dataset folder: its format ({@link DatasetFormat#AUTO} detects it) and the settings
 * some formats take.
 *
 * @param format the folder's format, or {@link DatasetFormat#AUTO}
 * @param splitName OGB: the folder under {@code split/} to use; null picks the only one
 * @param addInverseEdges OGB: also emit {@code dst,src} for every edge row
 * @param splitSeed npz: the seed of the per-class split drawn when the file has none
 * @param trainPerClass npz: training nodes per class of that split
 * @param valPerClass npz: validation nodes per class of that split
 */
public record FormatOptions(
        DatasetFormat format,
        String splitName,
        boolean addInverseEdges,
        long splitSeed,
        int trainPerClass,
        int valPerClass) {

    /** Default seed of the per-class split. */
    public static final long DEFAULT_SPLIT_SEED = 0;

    /** Default training nodes per class of the per-class split (Shchur et al.). */
    public static final int DEFAULT_TRAIN_PER_CLASS = 20;

    /** Default validation nodes per class of the per-class split (Shchur et al.). */
    public static final int DEFAULT_VAL_PER_CLASS = 30;

    public FormatOptions {
        Objects.requireNonNull(format, "format");
        if (trainPerClass < 0 || valPerClass < 0) {
            throw new IllegalArgumentException(
                    "nodes per class must be >= 0, got " + trainPerClass + ", " + valPerClass);
        }
    }

    /** Detection, no OGB split name, no inverse edges, the default per-class split. */
    public static FormatOptions defaults() {
        return of(DatasetFormat.AUTO);
    }

    /** {@code format} with the other settings at their defaults. */
    public static FormatOptions of(DatasetFormat format) {
        return new FormatOptions(
                format,
                null,
                false,
                DEFAULT_SPLIT_SEED,
                DEFAULT_TRAIN_PER_CLASS,
                DEFAULT_VAL_PER_CLASS);
    }

    /** These options with another format. */
    public FormatOptions withFormat(DatasetFormat f) {
        return new FormatOptions(
                f, splitName, addInverseEdges, splitSeed, trainPerClass, valPerClass);
    }
}
