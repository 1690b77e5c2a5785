package io.gnnstream.cli;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.jobs.PredictionRecords;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelExports;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetGraph;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Scores a dataset folder with a {@code --model-out} export: layer-wise full-neighbour inference
 * ({@link LayerwiseInference}, the computation of the job's evaluation rounds, under the export's
 * eval fanout) over the whole graph, written as the job's prediction lines ({@link
 * PredictionRecords#toJson}).
 */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Predicts the class of every vertex of a dataset folder with a model exported by"
                + " --model-out (manifest.json + .npy files), by layer-wise full-neighbour"
                + " inference as in the job's evaluation rounds. Writes one JSON line per vertex in"
                + " the format of the predictions topic,"
                + " {\"id\":…,\"step\":…,\"label\":…,\"probs\":[…]}, and prints the accuracy on the"
                + " val and test splits.",
            "Example: gnnstream predict --model work/model --dataset data/cora --out"
                    + " work/predictions.jsonl"
        })
final class PredictCommand implements Callable<Integer> {

    /**
     * Required; checked in {@link #call()} too, since the job's {@code --model} (the type) lends it
     * a default.
     */
    @Option(
            names = "--model",
            required = true,
            paramLabel = "DIR",
            description = "Model export folder (manifest.json and one .npy file per parameter).")
    Path model;

    @Option(
            names = "--dataset",
            required = true,
            paramLabel = "DIR",
            description = "Dataset folder, in any --format.")
    Path dataset;

    @Mixin DatasetFormatOptions format = new DatasetFormatOptions();

    @Option(
            names = "--out",
            required = true,
            paramLabel = "FILE",
            description = "Predictions file (JSON lines), replaced if it exists.")
    Path out;

    @Option(
            names = "--chunk",
            paramLabel = "N",
            defaultValue = "2048",
            description = "Destination vertices per inference block (default: ${DEFAULT-VALUE}).")
    int chunk;

    /** Null: the export's ({@link ModelExports#evalFanout}). */
    @Option(
            names = "--eval-fanout",
            paramLabel = "N",
            defaultValue = Option.NULL_VALUE,
            description =
                    "In-neighbours each vertex aggregates, as the job's --eval-fanout: all up to"
                            + " N, else the N of smallest rank; -1 = all (default: the export's,"
                            + " 4096 for an export without one).")
    Integer evalFanout;

    /** Null: the export's ({@link ModelExports#featureNormalization}), else auto. */
    @Option(
            names = "--normalize-features",
            paramLabel = "auto|true|false",
            arity = "1",
            defaultValue = Option.NULL_VALUE,
            converter = RowNormalizationConverter.class,
            description =
                    "Row normalisation of the features, as the training run's"
                            + " --normalize-features (auto: divide every row by its sum when no"
                            + " row of the dataset has a negative feature); default: the one the"
                            + " export records, auto for an export without one.")
    RowNormalization normalizeFeatures;

    @Option(
            names = "--emit-embeddings",
            defaultValue = "false",
            description =
                    "Also writes the last hidden layer (the classifier's input) as \"embedding\".")
    boolean emitEmbeddings;

    @Spec CommandSpec spec;

    /** Reads auto, true or false in any case, as the job's option does. */
    static final class RowNormalizationConverter
            implements picocli.CommandLine.ITypeConverter<RowNormalization> {
        @Override
        public RowNormalization convert(String value) {
            return RowNormalization.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        if (chunk < 1) {
            throw new IllegalArgumentException("--chunk must be >= 1, got " + chunk);
        }
        if (evalFanout != null && evalFanout < 1 && evalFanout != -1) {
            throw new IllegalArgumentException(
                    "--eval-fanout must be positive or -1 (all), got " + evalFanout);
        }
        GnnModel loaded;
        try {
            loaded = ModelExports.load(model);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        try (GnnModel gnn = loaded) {
            ModelConfig config = gnn.config();
            int fanout;
            DatasetGraph g;
            try {
                fanout = evalFanout != null ? evalFanout : ModelExports.evalFanout(model);
                RowNormalization normalization = normalizeFeatures;
                if (normalization == null) {
                    String recorded = ModelExports.featureNormalization(model);
                    normalization =
                            recorded == null
                                    ? RowNormalization.AUTO
                                    : RowNormalization.ofManifestName(recorded);
                }
                g = DatasetGraph.load(dataset, format.toOptions(), normalization);
            } catch (IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            if (g.featureDim != config.inFeatures()) {
                throw new IllegalArgumentException(
                        "the model in "
                                + model
                                + " takes "
                                + config.inFeatures()
                                + " features per vertex, the dataset "
                                + dataset
                                + " has "
                                + g.featureDim);
            }
            LayerwiseInference.Outputs outputs =
                    LayerwiseInference.run(gnn, g.inferenceGraph(), chunk, fanout);
            int[] predicted = write(g, config, gnn.step(), outputs);
            String val = accuracy("val", g, Split.VAL, predicted);
            String test = accuracy("test", g, Split.TEST, predicted);
            spec.commandLine()
                    .getOut()
                    .println(
                            String.format(
                                    Locale.ROOT,
                                    "Wrote %d predictions (model step %d) to %s; %s, %s; %.1f s",
                                    g.numVertices(),
                                    gnn.step(),
                                    out,
                                    val,
                                    test,
                                    (System.nanoTime() - started) / 1e9));
        }
        return 0;
    }

    /** Writes one line per vertex and returns the predicted classes. */
    private int[] write(
            DatasetGraph g, ModelConfig config, long step, LayerwiseInference.Outputs outputs)
            throws IOException {
        int classes = config.numClasses();
        float[] logits = outputs.logits();
        float[] hidden = outputs.lastHidden(g.features);
        int width = config.layerIn(config.numLayers() - 1);
        int[] predicted = new int[g.numVertices()];
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (int v = 0; v < g.numVertices(); v++) {
                predicted[v] = ClassProbabilities.argmax(logits, v, classes);
                float[] embedding =
                        emitEmbeddings
                                ? Arrays.copyOfRange(hidden, v * width, (v + 1) * width)
                                : null;
                w.write(
                        PredictionRecords.toJson(
                                new Prediction(
                                        g.ids[v],
                                        step,
                                        predicted[v],
                                        ClassProbabilities.softmax(logits, v, classes),
                                        embedding)));
                w.newLine();
            }
        }
        return predicted;
    }

    private static String accuracy(String name, DatasetGraph g, Split split, int[] predicted) {
        int labelled = 0;
        int correct = 0;
        for (int v : g.split(split)) {
            if (g.labels[v] >= 0) {
                labelled++;
                correct += predicted[v] == g.labels[v] ? 1 : 0;
            }
        }
        return labelled == 0
                ? name + " acc n/a (no labelled vertices)"
                : String.format(
                        Locale.ROOT,
                        "%s acc %.4f (%d of %d)",
                        name,
                        (double) correct / labelled,
                        correct,
                        labelled);
    }
}
