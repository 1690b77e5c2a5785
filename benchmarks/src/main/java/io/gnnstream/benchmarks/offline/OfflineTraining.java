package io.gnnstream.benchmarks.offline;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GcnNorm;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.Mix;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.NeighbourSampler;
import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.FormatOptions;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Trains the job's model on a dataset folder in this JVM, with the job's schedule (shuffled epochs
 * of the training vertices, cosine learning rate over the steps) and sampling semantics, and scores
 * it by layer-wise full-neighbour inference: a quick way to compare hyper-parameters on validation
 * accuracy before confirming them with {@code demo}. No Kafka, no Flink.
 *
 * <pre>
 * java -cp ... io.gnnstream.benchmarks.offline.OfflineTraining --dataset DIR \
 *     [--model sage|gcn|gat] [--hidden 64] [--dropout 0.5]
 *     [--heads 8] [--out-heads 1] [--attention-dropout 0.6] (gat)
 *     [--lr 0.01] [--weight-decay 5e-4] [--batch-size 64] [--fanouts 25,10] [--steps 300]
 *     [--normalize auto|true|false] [--gcn-norm mean|sym] [--eval-every 50] [--eval-fanout 4096] [--seeds 1,2,3]
 *     [--format auto|gnnstream|ogb|planetoid|npz|dgl-csv] [--split-name NAME]
 *     [--add-inverse-edges true] [--split-seed 0] [--select last|best-val] [--threads 2]
 * </pre>
 *
 * <p>{@code --select} names the parameters a seed's "selected" test accuracy is of: the last step's
 * or those of the round with the best validation accuracy (ties: the earlier round), as the job's
 * {@code --select}. Every run prints both, with mean ± sample std over the seeds.
 */
public final class OfflineTraining {

    private OfflineTraining() {}

    /** Final and best-validation accuracies of one run. */
    public record Result(
            double val,
            double test,
            double bestVal,
            double bestValTest,
            long bestStep,
            double seconds) {

        /** The test accuracy of the parameters {@code select} keeps. */
        public double selectedTest(String select) {
            return switch (select) {
                case "last" -> test;
                case "best-val" -> bestValTest;
                default ->
                        throw new IllegalArgumentException(
                                "--select must be last or best-val, not " + select);
            };
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Nd4jThreads.configure(Integer.parseInt(a.getOrDefault("threads", "2")));
        DatasetGraph g =
                DatasetGraph.load(
                        Path.of(a.get("dataset")),
                        new FormatOptions(
                                DatasetFormat.parse(a.getOrDefault("format", "auto")),
                                a.get("split-name"),
                                Boolean.parseBoolean(a.getOrDefault("add-inverse-edges", "false")),
                                Long.parseLong(a.getOrDefault("split-seed", "0")),
                                FormatOptions.DEFAULT_TRAIN_PER_CLASS,
                                FormatOptions.DEFAULT_VAL_PER_CLASS),
                        RowNormalization.valueOf(
                                a.getOrDefault("normalize", "auto")
                                        .toUpperCase(java.util.Locale.ROOT)));
        int[] fanouts =
                Arrays.stream(a.getOrDefault("fanouts", "25,10").split(","))
                        .mapToInt(Integer::parseInt)
                        .toArray();
        int steps = Integer.parseInt(a.getOrDefault("steps", "300"));
        String select = a.getOrDefault("select", "last");
        new Result(0, 0, 0, 0, 0, 0).selectedTest(select);
        String[] seeds = a.getOrDefault("seeds", "1,2,3").split(",");
        double[] lastTests = new double[seeds.length];
        double[] bestTests = new double[seeds.length];
        int done = 0;
        for (String s : seeds) {
            ModelType type = ModelType.parse(a.getOrDefault("model", ModelType.DEFAULT.id()));
            ModelConfig.Builder builder = ModelConfig.builder();
            if (type.architecture().hasHeads()) {
                builder.heads(Integer.parseInt(a.getOrDefault("heads", "8")))
                        .outHeads(Integer.parseInt(a.getOrDefault("out-heads", "1")))
                        .attentionDropout(
                                Double.parseDouble(a.getOrDefault("attention-dropout", "0.6")));
            }
            ModelConfig cfg =
                    builder.inFeatures(g.featureDim)
                            .numClasses(g.numClasses)
                            .modelType(type)
                            .numLayers(fanouts.length)
                            .hidden(Integer.parseInt(a.getOrDefault("hidden", "64")))
                            .dropout(Double.parseDouble(a.getOrDefault("dropout", "0.5")))
                            .learningRate(Double.parseDouble(a.getOrDefault("lr", "0.01")))
                            .weightDecay(Double.parseDouble(a.getOrDefault("weight-decay", "5e-4")))
                            .seed(Long.parseLong(s))
                            .decaySteps(steps)
                            .build();
            if (a.containsKey("gcn-norm")) {
                cfg = cfg.withGcnNorm(GcnNorm.parse(a.get("gcn-norm")));
            }
            Result r =
                    run(
                            g,
                            cfg,
                            fanouts,
                            Integer.parseInt(a.getOrDefault("batch-size", "64")),
                            steps,
                            Integer.parseInt(a.getOrDefault("eval-every", "50")),
                            Integer.parseInt(
                                    a.getOrDefault(
                                            "eval-fanout",
                                            String.valueOf(EvalNeighbourhood.DEFAULT_FANOUT))));
            lastTests[done] = r.test();
            bestTests[done++] = r.bestValTest();
            System.out.printf(
                    Locale.ROOT,
                    "seed %s: val %.4f test %.4f | best val %.4f at %d -> test %.4f | %.1f s%n",
                    s,
                    r.val(),
                    r.test(),
                    r.bestVal(),
                    r.bestStep(),
                    r.bestValTest(),
                    r.seconds());
        }
        double[] selected = "last".equals(select) ? lastTests : bestTests;
        System.out.printf(
                Locale.ROOT,
                "mean test %.4f ± %.4f (--select %s) | last %.4f ± %.4f | best-val %.4f ± %.4f"
                        + " %s%n",
                mean(selected),
                std(selected),
                select,
                mean(lastTests),
                std(lastTests),
                mean(bestTests),
                std(bestTests),
                a);
    }

    static double mean(double[] xs) {
        double sum = 0;
        for (double x : xs) {
            sum += x;
        }
        return xs.length == 0 ? 0 : sum / xs.length;
    }

    /** Sample standard deviation (n - 1), 0 for fewer than two values. */
    static double std(double[] xs) {
        if (xs.length < 2) {
            return 0;
        }
        double m = mean(xs);
        double sum = 0;
        for (double x : xs) {
            sum += (x - m) * (x - m);
        }
        return Math.sqrt(sum / (xs.length - 1));
    }

    /**
     * {@link #run(DatasetGraph, ModelConfig, int[], int, int, int, int)} at the default eval
     * fanout.
     */
    public static Result run(
            DatasetGraph g,
            ModelConfig cfg,
            int[] fanouts,
            int batchSize,
            int steps,
            int evalEvery) {
        return run(g, cfg, fanouts, batchSize, steps, evalEvery, EvalNeighbourhood.DEFAULT_FANOUT);
    }

    /**
     * Trains and scores, evaluating each vertex over its neighbourhood under {@code evalFanout}.
     */
    public static Result run(
            DatasetGraph g,
            ModelConfig cfg,
            int[] fanouts,
            int batchSize,
            int steps,
            int evalEvery,
            int evalFanout) {
        long start = System.nanoTime();
        NeighbourSampler sampler = new NeighbourSampler(g, fanouts, evalFanout);
        LayerwiseInference.Graph inference = g.inferenceGraph();
        int[] train = g.split(Split.TRAIN);
        int[] val = g.split(Split.VAL);
        int[] test = g.split(Split.TEST);
        double bestVal = -1;
        double bestTest = 0;
        long bestStep = 0;
        double[] last = {0, 0};
        try (GnnModel model = GnnModel.create(cfg)) {
            int[] order = new int[0];
            int position = 0;
            long epoch = 0;
            for (int step = 1; step <= steps; step++) {
                if (position >= order.length) {
                    order = train.clone();
                    SplittableRandom r =
                            new SplittableRandom(Mix.seed(cfg.seed(), 0x5EED, epoch++));
                    for (int i = order.length - 1; i > 0; i--) {
                        int j = r.nextInt(i + 1);
                        int t = order[i];
                        order[i] = order[j];
                        order[j] = t;
                    }
                    position = 0;
                }
                int end = Math.min(order.length, position + batchSize);
                MiniBatch b =
                        sampler.sample(
                                Arrays.copyOfRange(order, position, end),
                                new SplittableRandom(Mix.seed(cfg.seed(), step)));
                position = end;
                model.trainStep(b);
                if (step == steps || (evalEvery > 0 && step % evalEvery == 0)) {
                    float[] logits =
                            LayerwiseInference.run(model, inference, 2048, evalFanout).logits();
                    last[0] = accuracy(logits, g, val);
                    last[1] = accuracy(logits, g, test);
                    if (last[0] > bestVal) {
                        bestVal = last[0];
                        bestTest = last[1];
                        bestStep = step;
                    }
                }
            }
        }
        return new Result(
                last[0], last[1], bestVal, bestTest, bestStep, (System.nanoTime() - start) / 1e9);
    }

    private static double accuracy(float[] logits, DatasetGraph g, int[] vertices) {
        int correct = 0;
        for (int v : vertices) {
            correct += ClassProbabilities.argmax(logits, v, g.numClasses) == g.labels[v] ? 1 : 0;
        }
        return vertices.length == 0 ? 0 : (double) correct / vertices.length;
    }
}
