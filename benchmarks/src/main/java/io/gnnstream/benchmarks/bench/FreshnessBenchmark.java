package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.jobs.DensityDefaults;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.PredictionOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.tools.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The freshness of incremental predictions while the job trains. The real job (MiniCluster,
 * RocksDB, a local broker, {@code --prediction-updates incremental}, GraphStore parallelism 1)
 * trains to a first round, whose model the GraphStore pins, and is stopped at a checkpoint after
 * it; the job resumed from there trains on without rounds, first for a phase without changes (the
 * baseline), then for a phase per {@code --rate} value, in ascending order, while {@link
 * ChangeStream} sends that many changes per second; between two phases the job is left to answer
 * the changes sent (it checkpoints at the default interval, and predictions become visible at its
 * checkpoints). Per prediction a change caused, {@code written} is the prediction record's Kafka
 * timestamp (the sink's send) minus its {@code changed_at} (the change record's), over the
 * predictions sent in the measured window, and {@code freshness} the time a {@code read_committed}
 * consumer read it minus the same, over those read in the window; the highest rate is the highest
 * whose {@code written} p99 is at most 2 s. The training rate with changes is compared with the
 * phase without, as the median of the metrics windows' rates ({@code training_with_changes}) and as
 * the seeds trained in the measured window over its length ({@code trained_with_changes}). Each
 * phase also reports the CPU seconds of the busiest threads of the job's process and of the
 * broker's ({@link ThreadCpu}).
 */
public final class FreshnessBenchmark implements Benchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FIRST_ROUND_STEP = 100;
    private static final int STEPS_PER_WINDOW = 10;
    private static final double PHASE_SECONDS = 40;
    private static final int WARMUP_SECONDS = 20;
    private static final long P99_BOUND_MS = 2_000;

    @Override
    public String name() {
        return "freshness";
    }

    @Override
    public String description() {
        return "incremental predictions: p50/p99 time from a change's Kafka record to its"
                + " predictions' records at --rate changes/s while the job trains, predictions/s,"
                + " and the training rate against the same job without changes";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        List<Integer> rates = new ArrayList<>(context.ratesOr(List.of(1000)));
        rates.sort(Integer::compare);
        try (BenchData data =
                BenchData.prepare(context, new SyntheticSpec(100_000, 20, 128, 10), 1)) {
            String prefix = "freshness-" + System.nanoTime();
            Path checkpoints = BenchData.WORK.resolve("checkpoints").resolve(prefix);
            try {
                Configuration conf = configuration(data, prefix, checkpoints);
                conf.set(SamplingOptions.MAX_STEPS, (long) FIRST_ROUND_STEP);
                conf.set(SamplingOptions.EVAL_EVERY, FIRST_ROUND_STEP);
                context.log()
                        .println("Training to the first round (step " + FIRST_ROUND_STEP + ")");
                JobClient first = submit(conf);
                try (KafkaConsumer<String, String> metrics = follow(data, conf, "metrics")) {
                    awaitFinalLine(metrics, context);
                }
                // Two checkpoints completed after the round, so one holds the pinned model: a
                // large graph's checkpoints take longer than the interval.
                Path jobCheckpoints = checkpoints.resolve(first.getJobID().toString());
                long atFinalLine = checkpointId(latestCheckpointOrNull(jobCheckpoints));
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
                while (checkpointId(latestCheckpointOrNull(jobCheckpoints)) < atFinalLine + 2) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "no two checkpoints completed within 10 minutes of the round");
                    }
                    Thread.sleep(500);
                }
                first.cancel().get(2, TimeUnit.MINUTES);
                Path restore = latestCheckpoint(jobCheckpoints);
                context.log().println("Resuming from " + restore + " to train without rounds");

                conf.set(SamplingOptions.MAX_STEPS, 0L);
                conf.set(SamplingOptions.EVAL_EVERY, 0);
                // The resumed job checkpoints at the default interval: each checkpoint flushes
                // RocksDB's memtables, and more often means more compaction.
                conf.set(
                        CheckpointingOptions.CHECKPOINTING_INTERVAL,
                        context.checkpointIntervalOr(RESUMED_CHECKPOINT_INTERVAL));
                conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restore.toString());
                try (KafkaConsumer<String, String> metrics = follow(data, conf, "metrics");
                        KafkaConsumer<String, String> predictions =
                                follow(data, conf, "predictions");
                        ChangeStream changes = new ChangeStream(data)) {
                    JobClient second = submit(conf);
                    try {
                        Phase quiet = measure(data, metrics, predictions, null, 0, context);
                        List<BenchResult> out = new ArrayList<>();
                        int highest = 0;
                        for (int rate : rates) {
                            changes.start(rate);
                            Phase changing =
                                    measure(data, metrics, predictions, changes, rate, context);
                            changes.stop();
                            out.addAll(
                                    results(
                                            data,
                                            rate,
                                            context.checkpointIntervalOr(
                                                    RESUMED_CHECKPOINT_INTERVAL),
                                            quiet,
                                            changing));
                            if (!changing.freshnessMs().isEmpty()
                                    && percentile(changing.writtenMs(), 0.99) <= P99_BOUND_MS) {
                                highest = Math.max(highest, rate);
                            }
                            drain(predictions, context);
                        }
                        Map<String, Object> params = data.graphParams();
                        params.put("rates", rates.toString());
                        out.add(
                                new BenchResult(
                                        name(),
                                        with(params, "highest_rate_p99_2s"),
                                        "changes/s",
                                        Stats.of(highest),
                                        null));
                        return out;
                    } finally {
                        second.cancel().get(2, TimeUnit.MINUTES);
                    }
                }
            } finally {
                Directories.deleteRecursively(checkpoints);
            }
        }
    }

    private static Configuration configuration(BenchData data, String prefix, Path checkpoints) {
        Configuration conf =
                JobDefaults.apply(new Configuration(), checkpoints, CHECKPOINT_INTERVAL);
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, data.broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, data.edgesTopic);
        conf.set(KafkaOptions.NODES_TOPIC, data.nodesTopic);
        conf.set(KafkaOptions.TOPIC_PREFIX, prefix);
        conf.set(KafkaOptions.GROUP_ID, prefix);
        conf.set(GraphOptions.NUM_FEATURES, data.info.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, data.info.numClasses());
        DensityDefaults.decideNormalization(conf, data.info.signedRows() > 0);
        conf.set(SamplingOptions.MIN_VERTICES, data.info.nodes());
        conf.set(SamplingOptions.MIN_EDGES, data.info.edges());
        conf.set(ModelOptions.LOG_EVERY, STEPS_PER_WINDOW);
        conf.set(ModelOptions.TRAINER_THREADS, 1);
        conf.set(RunOptions.PARALLELISM, 1);
        conf.set(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("1g"));
        return conf;
    }

    private static JobClient submit(Configuration conf) throws Exception {
        TrainingJob.ensureOutputTopics(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        new TrainingJob(conf).buildWithKafka(env);
        return env.executeAsync(TrainingJob.streamGraph(env));
    }

    /** A consumer of the job's {@code <prefix>.<kind>} topic from its end. */
    private static KafkaConsumer<String, String> follow(
            BenchData data, Configuration conf, String kind) {
        KafkaConsumer<String, String> c =
                KafkaIO.stringConsumer(data.broker.bootstrapServers(), 10_000);
        c.assign(List.of(new TopicPartition(conf.get(KafkaOptions.TOPIC_PREFIX) + "." + kind, 0)));
        c.seekToEnd(c.assignment());
        c.assignment().forEach(c::position);
        return c;
    }

    private static void awaitFinalLine(KafkaConsumer<String, String> metrics, BenchContext context)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : metrics.poll(Duration.ofMillis(500))) {
                JsonNode line = JSON.readTree(r.value());
                context.log().println("  " + line);
                if (line.path("final").asBoolean(false)) {
                    return;
                }
            }
        }
        throw new IllegalStateException("no first round within 30 minutes");
    }

    /** The slices (ms of send time) whose {@code written} tails a phase's log shows. */
    private static final long SLICE_MS = 2_000;

    /** What one phase measured. */
    /**
     * Checkpoint interval of the measured job: exactly-once predictions become visible to the
     * benchmark's read_committed consumer when the checkpoint after them completes.
     */
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);

    /** The resumed job's: the default, since predictions become visible at checkpoints. */
    private static final Duration RESUMED_CHECKPOINT_INTERVAL =
            RunOptions.CHECKPOINT_INTERVAL.defaultValue();

    /**
     * A phase's measured window: each metrics window's training rate, the seeds trained in the
     * window over its length, and the freshness of the predictions read and written in it.
     */
    private record Phase(
            List<Double> seedsPerS,
            double trainedPerS,
            List<Long> freshnessMs,
            List<Long> writtenMs,
            double seconds) {}

    /**
     * Waits out the warm-up, then collects {@link #PHASE_SECONDS} of metrics windows and the
     * freshness of every incremental prediction.
     */
    private static Phase measure(
            BenchData data,
            KafkaConsumer<String, String> metrics,
            KafkaConsumer<String, String> predictions,
            ChangeStream changes,
            int rate,
            BenchContext context)
            throws Exception {
        context.log()
                .println(
                        changes == null
                                ? "Phase without changes"
                                : "Phase with " + rate + " changes/s");
        List<Double> seeds = new ArrayList<>();
        // The seeds trained between the first window's end and the last's, over that time: a
        // window's rate times the time since the window before (the windows follow each other).
        double trained = 0;
        double firstEnd = -1;
        double lastEnd = -1;
        List<Long> freshness = new ArrayList<>();
        List<Long> written = new ArrayList<>();
        List<Long> writtenAt = new ArrayList<>();
        ThreadCpu cpuBefore = null;
        long start = System.nanoTime();
        int warmup = context.warmupOr(WARMUP_SECONDS);
        long measuredFrom = start + warmup * 1_000_000_000L;
        long end = measuredFrom + (long) (PHASE_SECONDS * 1e9);
        // The sink's sends in the measured window, as wall-clock times (Kafka's timestamps).
        long sentFrom = System.currentTimeMillis() + warmup * 1_000L;
        long sentTo = sentFrom + (long) (PHASE_SECONDS * 1e3);
        while (System.nanoTime() < end) {
            boolean measuring = System.nanoTime() >= measuredFrom;
            if (measuring && cpuBefore == null) {
                cpuBefore = ThreadCpu.of(ProcessHandle.current().pid(), data.broker.pid());
            }
            for (ConsumerRecord<String, String> r : metrics.poll(Duration.ofMillis(100))) {
                JsonNode line = JSON.readTree(r.value());
                double windowRate = line.path("seeds_per_s").asDouble();
                if (measuring && windowRate > 0) {
                    seeds.add(windowRate);
                    double windowEnd = line.path("elapsed_s").asDouble();
                    if (firstEnd < 0) {
                        firstEnd = windowEnd;
                    } else if (windowEnd > lastEnd) {
                        trained += windowRate * (windowEnd - lastEnd);
                    }
                    lastEnd = Math.max(lastEnd, windowEnd);
                }
            }
            // Read committed: with exactly-once predictions a record is read once the checkpoint
            // after it completed, which is when a downstream consumer can act on it.
            for (ConsumerRecord<String, String> r : predictions.poll(Duration.ofMillis(100))) {
                long readAt = System.currentTimeMillis();
                long changedAt = changedAt(r);
                if (changedAt <= 0) {
                    continue;
                }
                if (measuring) {
                    freshness.add(readAt - changedAt);
                }
                if (r.timestamp() >= sentFrom && r.timestamp() < sentTo) {
                    written.add(r.timestamp() - changedAt);
                    writtenAt.add(r.timestamp() - sentFrom);
                }
            }
        }
        ThreadCpu cpuAfter = ThreadCpu.of(ProcessHandle.current().pid(), data.broker.pid());
        // The predictions sent in the window's last checkpoint interval become readable at the
        // checkpoints after it: read on until one sent after the window comes (or 30 s pass).
        long readUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean after = false;
        while (!after && System.nanoTime() < readUntil) {
            for (ConsumerRecord<String, String> r : predictions.poll(Duration.ofMillis(100))) {
                long changedAt = changedAt(r);
                after |= r.timestamp() >= sentTo;
                if (changedAt > 0 && r.timestamp() >= sentFrom && r.timestamp() < sentTo) {
                    written.add(r.timestamp() - changedAt);
                    writtenAt.add(r.timestamp() - sentFrom);
                }
            }
        }
        context.log()
                .printf(
                        "  %d windows, %d incremental predictions%s%n",
                        seeds.size(),
                        freshness.size(),
                        changes == null ? "" : ", " + changes.sent() + " changes sent");
        context.log().printf("  CPU in the measured %.0f s, busiest threads:%n", PHASE_SECONDS);
        for (String line : cpuAfter.topSince(cpuBefore, 10)) {
            context.log().println("    " + line);
        }
        if (!written.isEmpty()) {
            context.log()
                    .printf(
                            "  written p99 / max by %d s of the window from %s:%n",
                            SLICE_MS / 1000, java.time.Instant.ofEpochMilli(sentFrom));
            context.log().println("    " + bySlice(written, writtenAt));
        }
        double trainedPerS = lastEnd > firstEnd ? trained / (lastEnd - firstEnd) : 0;
        context.log().printf("  trained %.0f seeds/s over the window%n", trainedPerS);
        return new Phase(seeds, trainedPerS, freshness, written, PHASE_SECONDS);
    }

    /** The {@code changed_at} of an incremental prediction's record; 0 for other records. */
    private static long changedAt(ConsumerRecord<String, String> r) throws Exception {
        if (r.value() == null) {
            return 0;
        }
        // Tokens only, no tree: the benchmark reads every prediction in the job's process.
        try (JsonParser line = JSON.getFactory().createParser(r.value())) {
            if (line.nextToken() != JsonToken.START_OBJECT) {
                return 0;
            }
            for (JsonToken t = line.nextToken(); t == JsonToken.FIELD_NAME; t = line.nextToken()) {
                String field = line.currentName();
                line.nextToken();
                if ("changed_at".equals(field)) {
                    return line.getLongValue();
                }
                line.skipChildren();
            }
            return 0;
        }
    }

    /**
     * Waits until no incremental prediction came for 5 s (at most 3 minutes): the changes of the
     * phase before are answered.
     */
    private static void drain(KafkaConsumer<String, String> predictions, BenchContext context) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        long quietSince = System.nanoTime();
        long start = quietSince;
        while (System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(5)
                && System.nanoTime() < deadline) {
            if (!predictions.poll(Duration.ofMillis(200)).isEmpty()) {
                quietSince = System.nanoTime();
            }
        }
        context.log()
                .printf("  predictions quiet again after %.0f s%n", (quietSince - start) / 1e9);
    }

    /** Each slice's p99 and maximum of {@code ms} by the send times {@code at} (ms into it). */
    private static String bySlice(List<Long> ms, List<Long> at) {
        List<List<Long>> slices = new ArrayList<>();
        for (int i = 0; i < ms.size(); i++) {
            int slice = (int) (at.get(i) / SLICE_MS);
            while (slices.size() <= slice) {
                slices.add(new ArrayList<>());
            }
            slices.get(slice).add(ms.get(i));
        }
        StringBuilder line = new StringBuilder();
        for (List<Long> slice : slices) {
            line.append(
                    slice.isEmpty()
                            ? "- "
                            : String.format(
                                    "%.0f/%d ",
                                    percentile(slice, 0.99),
                                    slice.stream().mapToLong(Long::longValue).max().getAsLong()));
        }
        return line.toString().trim();
    }

    private static double percentile(List<Long> values, double q) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(Long::compare);
        return sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * q)));
    }

    private List<BenchResult> results(
            BenchData data, int rate, Duration checkpointInterval, Phase quiet, Phase changing) {
        Map<String, Object> params = data.graphParams();
        params.put("rate", rate);
        params.put("parallelism", 1);
        params.put("predictions_delivery", "exactly-once");
        params.put("checkpoint_interval_ms", checkpointInterval.toMillis());
        List<BenchResult> out = new ArrayList<>();
        if (changing.freshnessMs().isEmpty()) {
            return out; // told in the log; the highest rate's row says what was met
        }
        out.add(
                new BenchResult(
                        name(),
                        with(params, "freshness_p50"),
                        "ms",
                        Stats.of(percentile(changing.freshnessMs(), 0.5)),
                        null));
        out.add(
                new BenchResult(
                        name(),
                        with(params, "freshness_p99"),
                        "ms",
                        Stats.of(percentile(changing.freshnessMs(), 0.99)),
                        null));
        // When the sink wrote the record (its Kafka timestamp): freshness without the commit.
        out.add(
                new BenchResult(
                        name(),
                        with(params, "written_p50"),
                        "ms",
                        Stats.of(percentile(changing.writtenMs(), 0.5)),
                        null));
        out.add(
                new BenchResult(
                        name(),
                        with(params, "written_p99"),
                        "ms",
                        Stats.of(percentile(changing.writtenMs(), 0.99)),
                        null));
        out.add(
                new BenchResult(
                        name(),
                        with(params, "incremental_predictions"),
                        "predictions/s",
                        Stats.of(changing.freshnessMs().size() / changing.seconds()),
                        null));
        out.add(
                new BenchResult(
                        name(),
                        with(params, "training_with_changes"),
                        "seeds/s",
                        Stats.of(changing.seedsPerS()),
                        new Baseline(
                                "the same job without changes",
                                Stats.of(quiet.seedsPerS()).median())));
        out.add(
                new BenchResult(
                        name(),
                        with(params, "trained_with_changes"),
                        "seeds/s",
                        Stats.of(changing.trainedPerS()),
                        new Baseline("the same job without changes", quiet.trainedPerS())));
        return out;
    }

    private static Map<String, Object> with(Map<String, Object> params, String figure) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("figure", figure);
        p.putAll(params);
        return p;
    }

    /** The latest completed checkpoint in {@code dir}, or null while there is none. */
    private static Path latestCheckpointOrNull(Path dir) throws Exception {
        return Files.isDirectory(dir) && hasCheckpoint(dir) ? latestCheckpoint(dir) : null;
    }

    private static boolean hasCheckpoint(Path dir) throws Exception {
        try (Stream<Path> chk = Files.list(dir)) {
            return chk.anyMatch(
                    p ->
                            p.getFileName().toString().startsWith("chk-")
                                    && Files.exists(p.resolve("_metadata")));
        }
    }

    /** The number of checkpoint {@code chk} (its folder {@code chk-N}), 0 for none. */
    private static long checkpointId(Path chk) {
        return chk == null ? 0 : Long.parseLong(chk.getFileName().toString().substring(4));
    }

    private static Path latestCheckpoint(Path dir) throws Exception {
        try (Stream<Path> chk = Files.list(dir)) {
            return chk.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(
                            (a, b) ->
                                    Long.compare(
                                            Long.parseLong(a.getFileName().toString().substring(4)),
                                            Long.parseLong(
                                                    b.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new IllegalStateException("no checkpoint in " + dir));
        }
    }
}
