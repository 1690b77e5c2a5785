package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.DensityDefaults;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import io.gnnstream.tools.Directories;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs the real training job on {@link BenchData} and collects the trainer's metrics windows once
 * the whole graph is ingested and a warm-up has passed (steady state: {@code warmupWindows} windows
 * and {@link #WARMUP_SECONDS} at least), stopping the job after {@code windows} of them.
 */
final class StreamingRuns {

    /**
     * Steps per metrics window. A window of a few batches lasts a fraction of a second and its rate
     * swings with every checkpoint or GC pause; ten batches per window keep the median meaningful.
     */
    static final int STEPS_PER_WINDOW = 10;

    /**
     * Unmeasured windows once the graph is in state: the loop's rate still climbs after ingestion
     * ends (compilation of the sampling path, heap sizing), as the in-memory baseline's does over
     * its own warm-up batches.
     */
    static final int DEFAULT_WARMUP_WINDOWS = 20;

    /**
     * Seconds of unmeasured windows at least, however many the warm-up counts: at hundreds of
     * batches/s twenty windows pass in half a second, while the loop's rate doubled over the first
     * ten seconds after ingestion (the JIT compiles the Flink and sampling paths the job has just
     * started using: thousands of compilations in that time, few after).
     */
    static final double WARMUP_SECONDS = 15;

    private StreamingRuns() {}

    /** One trainer on one ND4J/BLAS thread: the job {@code sample} and {@code pipeline} measure. */
    static List<JsonNode> steadyWindows(
            BenchData data,
            int parallelism,
            boolean compute,
            int hidden,
            int batchSize,
            List<Integer> fanouts,
            int prefetch,
            MemorySize featureCache,
            int warmupWindows,
            int windows,
            PrintStream log)
            throws Exception {
        return steadyWindows(
                data,
                parallelism,
                compute,
                hidden,
                batchSize,
                fanouts,
                prefetch,
                featureCache,
                warmupWindows,
                windows,
                log,
                conf -> {});
    }

    /** As above, with further job settings (a placement of {@link PlacementCases}). */
    static List<JsonNode> steadyWindows(
            BenchData data,
            int parallelism,
            boolean compute,
            int hidden,
            int batchSize,
            List<Integer> fanouts,
            int prefetch,
            MemorySize featureCache,
            int warmupWindows,
            int windows,
            PrintStream log,
            Consumer<Configuration> settings)
            throws Exception {
        return steadyWindows(
                data,
                parallelism,
                1,
                1,
                compute,
                hidden,
                batchSize,
                fanouts,
                prefetch,
                featureCache,
                warmupWindows,
                windows,
                log,
                settings);
    }

    /**
     * The job with {@code trainers} data-parallel trainer ranks ({@link ModelOptions#TRAINERS}, one
     * reducer per rank) of {@code trainerThreads} ND4J/BLAS threads each; {@code batchSize} is per
     * rank, and the windows are the merged metrics lines (one per 10 steps of every rank). Each
     * task slot keeps the managed memory it has at one trainer ({@code 1g / parallelism}): the
     * MiniCluster has {@code max(parallelism, trainers)} slots.
     */
    static List<JsonNode> steadyWindows(
            BenchData data,
            int parallelism,
            int trainers,
            int trainerThreads,
            boolean compute,
            int hidden,
            int batchSize,
            List<Integer> fanouts,
            int prefetch,
            MemorySize featureCache,
            int warmupWindows,
            int windows,
            PrintStream log)
            throws Exception {
        return steadyWindows(
                data,
                parallelism,
                trainers,
                trainerThreads,
                compute,
                hidden,
                batchSize,
                fanouts,
                prefetch,
                featureCache,
                warmupWindows,
                windows,
                log,
                conf -> {});
    }

    private static List<JsonNode> steadyWindows(
            BenchData data,
            int parallelism,
            int trainers,
            int trainerThreads,
            boolean compute,
            int hidden,
            int batchSize,
            List<Integer> fanouts,
            int prefetch,
            MemorySize featureCache,
            int warmupWindows,
            int windows,
            PrintStream log,
            Consumer<Configuration> settings)
            throws Exception {
        String prefix = "bench-" + System.nanoTime();
        Path checkpoints = BenchData.WORK.resolve("checkpoints").resolve(prefix);
        Configuration conf =
                JobDefaults.apply(new Configuration(), checkpoints, Duration.ofSeconds(30));
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, data.broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, data.edgesTopic);
        conf.set(KafkaOptions.NODES_TOPIC, data.nodesTopic);
        conf.set(KafkaOptions.TOPIC_PREFIX, prefix);
        conf.set(KafkaOptions.GROUP_ID, prefix);
        conf.set(GraphOptions.NUM_FEATURES, data.info.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, data.info.numClasses());
        DensityDefaults.decideNormalization(conf, data.info.signedRows() > 0);
        conf.set(SamplingOptions.FANOUTS, fanouts);
        conf.set(SamplingOptions.PREFETCH, prefetch);
        conf.set(SamplingOptions.BATCH_SIZE, batchSize);
        conf.set(SamplingOptions.EVAL_EVERY, 0);
        conf.set(SamplingOptions.MAX_STEPS, 0L);
        conf.set(ModelOptions.HIDDEN, hidden);
        conf.set(ModelOptions.COMPUTE, compute);
        conf.set(ModelOptions.FEATURE_CACHE, featureCache);
        conf.set(ModelOptions.LOG_EVERY, STEPS_PER_WINDOW);
        conf.set(ModelOptions.TRAINERS, trainers);
        conf.set(ModelOptions.TRAINER_THREADS, trainerThreads);
        conf.set(RunOptions.PARALLELISM, parallelism);
        settings.accept(conf);
        int slots = Math.max(parallelism, conf.get(ModelOptions.TRAINERS));
        conf.set(
                TaskManagerOptions.MANAGED_MEMORY_SIZE,
                new MemorySize(MemorySize.parse("1g").getBytes() / parallelism * slots));
        TrainingJob.ensureOutputTopics(conf);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        List<JsonNode> measured = new ArrayList<>();
        int[] unmeasured = {0};
        double[] steadySince = {Double.NaN};
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try {
            new TrainingRunner(conf, quiet, null)
                    .run(
                            env,
                            Duration.ofMinutes(30),
                            line -> {
                                log.println("  " + line);
                                if (line.path("edges_ingested").asLong() >= data.info.edges()
                                        && line.path("vertices").asLong() >= data.info.nodes()) {
                                    double elapsed = line.path("elapsed_s").asDouble();
                                    if (Double.isNaN(steadySince[0])) {
                                        steadySince[0] = elapsed;
                                    }
                                    if (unmeasured[0] < warmupWindows
                                            || elapsed - steadySince[0] < WARMUP_SECONDS) {
                                        unmeasured[0]++;
                                    } else {
                                        measured.add(line);
                                    }
                                }
                                return measured.size() >= windows;
                            });
        } finally {
            Directories.deleteRecursively(checkpoints);
        }
        return measured;
    }
}
