package io.gnnstream.jobs;

import io.gnnstream.connectors.RowNormalization;
import org.apache.flink.configuration.Configuration;

/**
 * The documented rule that derives the learning rate and weight decay from the feature density of a
 * dataset (the mean number of non-zero features per vertex, {@code d}), for row-normalised features
 * ({@code --normalize-features true}, or {@code auto} decided so for a dataset without signed
 * rows): row normalisation makes each feature of a dense row small, and a model on dense rows needs
 * larger weights, which a fixed L2 penalty holds back. With {@code r = d / 20}:
 *
 * <ul>
 *   <li>{@code --weight-decay} = 5e-4 x min(1, 1/r): 5e-4 up to 20 non-zeros per row, less above;
 *   <li>{@code --lr} = 0.01 x clamp(sqrt(r), 1, 3): 0.01 up to 20 non-zeros per row, at most 0.03.
 * </ul>
 *
 * <p>On the citation graphs (Cora d = 18, CiteSeer d = 32) this gives the option defaults or close
 * to them; on Amazon Photo (d = 259) lr 0.03 and weight decay 3.9e-5. Chosen on validation accuracy
 * (BENCHMARKS.md, "Learning quality"). Options the user set are kept; with raw features the rule
 * does not apply: raw rows (signed ones under {@code auto}) keep the option defaults, on which the
 * synthetic graphs' signed features learn.
 */
public final class DensityDefaults {

    private DensityDefaults() {}

    /** Reference density: rows up to this many non-zeros keep the option defaults. */
    static final double REFERENCE_NON_ZEROS = 20;

    /**
     * Decides {@code --normalize-features auto} for a dataset folder from its scan ({@code
     * signedRows}: a row has a negative feature), so that the job on its topics applies the scan's
     * decision instead of deciding from the first records; a stated true or false stays.
     */
    public static void decideNormalization(Configuration conf, boolean signedRows) {
        conf.set(
                GraphOptions.NORMALIZE_FEATURES,
                conf.get(GraphOptions.NORMALIZE_FEATURES).resolve(signedRows));
    }

    /**
     * Decides the normalisation ({@link #decideNormalization}) and sets {@code --lr} and {@code
     * --weight-decay} from the density unless they are set already, when the rows are normalised:
     * {@code signedRows} tells whether the dataset has rows with a negative feature, on which
     * {@code --normalize-features auto} keeps every row raw.
     */
    public static void apply(Configuration conf, double meanNonZeros, boolean signedRows) {
        decideNormalization(conf, signedRows);
        if (conf.get(GraphOptions.NORMALIZE_FEATURES) == RowNormalization.FALSE
                || meanNonZeros <= 0) {
            return;
        }
        double r = meanNonZeros / REFERENCE_NON_ZEROS;
        if (!conf.contains(ModelOptions.WEIGHT_DECAY)) {
            conf.set(
                    ModelOptions.WEIGHT_DECAY,
                    ModelOptions.WEIGHT_DECAY.defaultValue() * Math.min(1, 1 / r));
        }
        if (!conf.contains(ModelOptions.LEARNING_RATE)) {
            conf.set(
                    ModelOptions.LEARNING_RATE,
                    ModelOptions.LEARNING_RATE.defaultValue()
                            * Math.max(1, Math.min(3, Math.sqrt(r))));
        }
    }
}
