package io.gnnstream.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Submits the training job and follows its metrics topic: prints progress, copies the JSON lines to
 * a file, and, when the trainer reports its final evaluation and its predictions are committed,
 * cancels the job (a streaming job with iterations never finishes by itself; its last checkpoint is
 * retained for a resume).
 */
public final class TrainingRunner {

    /** How long cancelling the job may take, a JobManager failover included. */
    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long the predictions topic must stay unchanged for a round to have reached it. */
    private static final Duration PREDICTIONS_QUIET = Duration.ofSeconds(2);

    private final ReadableConfig conf;
    private final PrintStream out;
    private final Path metricsOut;
    private java.util.function.Consumer<JobID> onSubmit = id -> {};
    private Path predictionsOut;

    public TrainingRunner(ReadableConfig conf, PrintStream out, Path metricsOut) {
        this.conf = conf;
        this.out = out;
        this.metricsOut = metricsOut;
    }

    /**
     * Also follows the predictions topic and writes its committed records (JSON lines) to {@code
     * file}, until the final round's predictions have stopped arriving.
     */
    public TrainingRunner predictionsOut(Path file) {
        this.predictionsOut = file;
        return this;
    }

    /** Calls {@code listener} with the job's id once it is submitted. */
    public TrainingRunner onSubmit(java.util.function.Consumer<JobID> listener) {
        this.onSubmit = listener;
        return this;
    }

    /**
     * Runs until the final metrics line (when a step limit is set) or for ever; returns the final
     * line. Throws if the job fails or no final line arrives within {@code timeout} (zero: no
     * limit).
     */
    public Result run(StreamExecutionEnvironment env, Duration timeout) throws Exception {
        return run(env, timeout, line -> line.path("final").asBoolean(false));
    }

    /**
     * Like {@link #run(StreamExecutionEnvironment, Duration)}, but stops at the first line {@code
     * last} accepts.
     */
    public Result run(StreamExecutionEnvironment env, Duration timeout, Predicate<JsonNode> last)
            throws Exception {
        KafkaClientConfig bootstrap = KafkaOptions.clients(conf);
        String topic = KafkaOptions.metricsTopic(conf);
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(bootstrap, 500);
                BufferedWriter file = metricsOut == null ? null : openFile(metricsOut);
                KafkaConsumer<String, String> predictions =
                        predictionsOut == null ? null : KafkaIO.stringConsumer(bootstrap, 10_000);
                BufferedWriter predictionsFile =
                        predictionsOut == null ? null : openFile(predictionsOut)) {
            followFromEnd(consumer, topic);
            if (predictions != null) {
                followFromEnd(predictions, KafkaOptions.predictionsTopic(conf));
            }

            new TrainingJob(conf).buildWithKafka(env);
            JobClient client = env.executeAsync(TrainingJob.streamGraph(env));
            out.println("Submitted job " + client.getJobID());
            onSubmit.accept(client.getJobID());
            // Completes when the job ends, also after a local MiniCluster has shut down with it.
            CompletableFuture<JobExecutionResult> ended = client.getJobExecutionResult();
            try (FailureWatch failures =
                    FailureWatch.of(
                                    env.getConfiguration(),
                                    client.getJobID(),
                                    conf.get(RunOptions.MAX_SAME_FAILURES),
                                    out::println)
                            .orElse(null)) {
                return follow(
                        client,
                        ended,
                        failures,
                        consumer,
                        file,
                        predictions,
                        predictionsFile,
                        timeout,
                        last);
            }
        }
    }

    /** Follows the submitted job until {@code last} accepts a metrics line; see {@link #run}. */
    private Result follow(
            JobClient client,
            CompletableFuture<JobExecutionResult> ended,
            FailureWatch failures,
            KafkaConsumer<String, String> consumer,
            BufferedWriter file,
            KafkaConsumer<String, String> predictions,
            BufferedWriter predictionsFile,
            Duration timeout,
            Predicate<JsonNode> last)
            throws Exception {
        long started = System.nanoTime();
        JsonNode lastLine = null;
        long lastAt = started;
        long furthestStep = Long.MIN_VALUE;
        while (timeout.isZero() || System.nanoTime() - started < timeout.toNanos()) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                JsonNode line = JSON.readTree(record.value());
                lastLine = line;
                lastAt = System.nanoTime();
                if (line.has("step") && line.path("step").asLong() > furthestStep) {
                    furthestStep = line.path("step").asLong();
                    if (failures != null) {
                        failures.progressed();
                    }
                }
                if (file != null) {
                    file.write(record.value());
                    file.newLine();
                    file.flush();
                }
                out.println(ProgressFormat.format(line));
                if (last.test(line)) {
                    if (line.path("final").asBoolean(false)) {
                        // A stop mid-training leaves its open transaction to be aborted (a
                        // restore writes those records again); waiting would train on.
                        awaitCommittedPredictions(ended);
                    }
                    copy(predictions, predictionsFile, Duration.ofSeconds(2));
                    stop(client);
                    return new Result(client.getJobID(), line);
                }
            }
            copy(predictions, predictionsFile, Duration.ZERO);
            failIfTerminated(ended);
            if (failures != null) {
                failures.poll();
                String repeated = failures.repeatedCause();
                if (repeated != null) {
                    int times = failures.streakLength();
                    stop(client);
                    awaitEnd(ended, STOP_TIMEOUT);
                    throw new JobFailedException(
                            "training job FAILED "
                                    + times
                                    + " times in a row with the same cause (cancelled): "
                                    + repeated,
                            null);
                }
            }
        }
        JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
        stop(client);
        throw new JobFailedException(
                "no final result within "
                        + timeout.toSeconds()
                        + " s (job "
                        + status
                        + (lastLine == null
                                ? ", no metrics line"
                                : ", last metrics line at step "
                                        + lastLine.path("step").asLong()
                                        + ", "
                                        + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastAt)
                                        + " s before the end")
                        + ")",
                null);
    }

    /**
     * With exactly-once predictions, after the final line, waits until what the predictions topic
     * received by it has been committed (at the next completed checkpoint), so that cancelling the
     * job does not abort the final round's transaction: first until the topic's high watermark has
     * not moved for {@link #PREDICTIONS_QUIET} (the round's last records have reached the broker),
     * then until its last stable offset has passed that mark. Gives up with a note after two
     * checkpoint intervals and a minute.
     */
    private void awaitCommittedPredictions(CompletableFuture<JobExecutionResult> ended)
            throws Exception {
        if (!TrainingJob.exactlyOncePredictions(conf)) {
            return;
        }
        KafkaClientConfig bootstrap = KafkaOptions.clients(conf);
        String topic = KafkaOptions.predictionsTopic(conf);
        long deadline =
                System.nanoTime()
                        + conf.get(RunOptions.CHECKPOINT_INTERVAL).multipliedBy(2).toNanos()
                        + TimeUnit.MINUTES.toNanos(1);
        Map<Integer, Long> written =
                KafkaTopics.endOffsets(bootstrap, topic, IsolationLevel.READ_UNCOMMITTED);
        long stableSince = System.nanoTime();
        while (System.nanoTime() - stableSince < PREDICTIONS_QUIET.toNanos()
                && System.nanoTime() < deadline) {
            Thread.sleep(200);
            Map<Integer, Long> now =
                    KafkaTopics.endOffsets(bootstrap, topic, IsolationLevel.READ_UNCOMMITTED);
            if (!now.equals(written)) {
                written = now;
                stableSince = System.nanoTime();
            }
        }
        while (System.nanoTime() < deadline) {
            Map<Integer, Long> stable =
                    KafkaTopics.endOffsets(bootstrap, topic, IsolationLevel.READ_COMMITTED);
            Map<Integer, Long> target = written;
            if (target.entrySet().stream()
                    .allMatch(e -> stable.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
                return;
            }
            failIfTerminated(ended);
            Thread.sleep(200);
        }
        out.println(
                "Note: the final round's predictions were not committed in time (no checkpoint"
                        + " completed); they are dropped with the job's open transaction.");
    }

    /** The job that ran and its last metrics line. */
    public static final class Result {
        private final JobID jobId;
        private final JsonNode finalLine;

        Result(JobID jobId, JsonNode finalLine) {
            this.jobId = jobId;
            this.finalLine = finalLine;
        }

        public JobID jobId() {
            return jobId;
        }

        public JsonNode finalLine() {
            return finalLine;
        }

        public double testAccuracy() {
            return finalLine.path("test_acc").asDouble();
        }
    }

    private static void failIfTerminated(CompletableFuture<JobExecutionResult> ended)
            throws Exception {
        if (!ended.isDone()) {
            return;
        }
        try {
            ended.get();
        } catch (ExecutionException e) {
            throw new JobFailedException("training job FAILED: " + cause(e), e.getCause());
        }
        throw new JobFailedException("training job ended before its final evaluation", null);
    }

    /**
     * The failure that ended a job, in one line: the first exception of the chain that is not one
     * of Flink's wrappers (job execution, suppressed recovery or restarts, futures), and the root
     * cause when it is another.
     */
    static String cause(Throwable failure) {
        Throwable first = null;
        Throwable root = failure;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            root = t;
            if (first == null
                    && !(t instanceof ExecutionException
                            || t instanceof java.util.concurrent.CompletionException
                            || t instanceof org.apache.flink.runtime.client.JobExecutionException
                            || t instanceof org.apache.flink.runtime.JobException
                            || t instanceof SuppressRestartsException)) {
                first = t;
            }
        }
        if (first == null) {
            first = root;
        }
        String line = describe(first);
        return first == root
                        || describe(root).equals(line)
                        || line.contains(FailureCause.oneLine(String.valueOf(root.getMessage())))
                ? line
                : line + " (caused by " + describe(root) + ")";
    }

    private static String describe(Throwable t) {
        return describe(t.getClass().getName(), t.getMessage());
    }

    /**
     * An exception in one line: its class's simple name and its message, the message alone for a
     * plain runtime or illegal-state exception.
     */
    static String describe(String className, String message) {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        simple = simple.substring(simple.lastIndexOf('$') + 1);
        if (message == null) {
            return simple;
        }
        String line = FailureCause.oneLine(message);
        boolean plain =
                className.equals(IllegalStateException.class.getName())
                        || className.equals(RuntimeException.class.getName());
        return plain ? line : simple + ": " + line;
    }

    /** The job failed or ended before its final evaluation; the message says why, in one line. */
    public static final class JobFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        JobFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Cancels the job unless it has ended. A highly available cluster may be between leaders (its
     * client finds the next one), so failed calls are retried for as long as a failover takes.
     */
    private static void stop(JobClient client) throws Exception {
        CompletableFuture<JobExecutionResult> ended = client.getJobExecutionResult();
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        while (true) {
            if (ended.isDone()) {
                return;
            }
            try {
                JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
                if (!status.isGloballyTerminalState()) {
                    client.cancel().get(60, TimeUnit.SECONDS);
                }
                return;
            } catch (IllegalStateException gone) {
                return; // the job's local cluster has ended with it
            } catch (ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(1000);
            }
        }
    }

    /** Waits until the job has ended (cancelled, failed or finished), at most {@code timeout}. */
    private static void awaitEnd(CompletableFuture<JobExecutionResult> ended, Duration timeout)
            throws InterruptedException {
        try {
            ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException
                | TimeoutException
                | java.util.concurrent.CancellationException e) {
            // cancelled (the usual end), failed, or still ending: the cancellation was accepted
        }
    }

    private static void followFromEnd(KafkaConsumer<String, String> consumer, String topic) {
        List<TopicPartition> partitions =
                consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition()))
                        .collect(Collectors.toList());
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /**
     * Copies the records waiting in {@code consumer} to {@code file}; with a {@code quiet} period,
     * goes on until none has arrived for that long.
     */
    private static void copy(
            KafkaConsumer<String, String> consumer, BufferedWriter file, Duration quiet)
            throws IOException {
        if (consumer == null) {
            return;
        }
        while (true) {
            int n = 0;
            for (ConsumerRecord<String, String> record :
                    consumer.poll(quiet.isZero() ? Duration.ofMillis(1) : quiet)) {
                file.write(record.value());
                file.newLine();
                n++;
            }
            file.flush();
            if (n == 0 || quiet.isZero()) {
                return;
            }
        }
    }

    private static BufferedWriter openFile(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return Files.newBufferedWriter(path, StandardCharsets.UTF_8);
    }
}
