package io.gnnstream.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaIO;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Submits the training job and follows its metrics topic: prints progress, copies the JSON lines to
 * a file, and, when the trainer reports its final evaluation, cancels the job (a streaming job with
 * iterations never finishes by itself; its last checkpoint is retained for a resume).
 */
public final class TrainingRunner {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReadableConfig conf;
    private final PrintStream out;
    private final Path metricsOut;
    private java.util.function.Consumer<JobID> onSubmit = id -> { };
    private Path predictionsOut;

    public TrainingRunner(ReadableConfig conf, PrintStream out, Path metricsOut) {
        this.conf = conf;
        this.out = out;
        this.metricsOut = metricsOut;
    }

    /**
     * Also follows the predictions topic and writes its records (JSON lines) to {@code file}, until
     * the final round's predictions have stopped arriving.
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
     * line. Throws if the job fails or no final line arrives within {@code timeout} (zero: no limit).
     */
    public Result run(StreamExecutionEnvironment env, Duration timeout) throws Exception {
        return run(env, timeout, line -> line.path("final").asBoolean(false));
    }

    /** Like {@link #run(StreamExecutionEnvironment, Duration)}, but stops at the first line {@code last} accepts. */
    public Result run(StreamExecutionEnvironment env, Duration timeout, Predicate<JsonNode> last) throws Exception {
        String bootstrap = conf.get(KafkaOptions.BOOTSTRAP_SERVERS);
        String topic = KafkaOptions.metricsTopic(conf);
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(bootstrap, 500);
                BufferedWriter file = metricsOut == null ? null : openFile(metricsOut);
                KafkaConsumer<String, String> predictions = predictionsOut == null ? null
                        : KafkaIO.stringConsumer(bootstrap, 10_000);
                BufferedWriter predictionsFile = predictionsOut == null ? null : openFile(predictionsOut)) {
            followFromEnd(consumer, topic);
            if (predictions != null) {
                followFromEnd(predictions, KafkaOptions.predictionsTopic(conf));
            }

            new TrainingJob(conf).buildWithKafka(env);
            JobClient client = env.executeAsync(TrainingJob.streamGraph(env));
            out.println("Submitted job " + client.getJobID());
            onSubmit.accept(client.getJobID());
            long started = System.nanoTime();
            JsonNode lastLine = null;
            long lastAt = started;
            while (timeout.isZero() || System.nanoTime() - started < timeout.toNanos()) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode line = JSON.readTree(record.value());
                    lastLine = line;
                    lastAt = System.nanoTime();
                    if (file != null) {
                        file.write(record.value());
                        file.newLine();
                        file.flush();
                    }
                    out.println(ProgressFormat.format(line));
                    if (last.test(line)) {
                        copy(predictions, predictionsFile, Duration.ofSeconds(2));
                        stop(client);
                        return new Result(client.getJobID(), line);
                    }
                }
                copy(predictions, predictionsFile, Duration.ZERO);
                failIfTerminated(client);
            }
            JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
            stop(client);
            throw new IllegalStateException("no final result within " + timeout.toSeconds() + " s (job " + status
                    + (lastLine == null ? ", no metrics line"
                            : ", last metrics line at step " + lastLine.path("step").asLong() + ", "
                                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastAt) + " s before the end")
                    + ")");
        }
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

    private static void failIfTerminated(JobClient client) throws Exception {
        JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
        if (status.isGloballyTerminalState()) {
            try {
                client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("training job " + status + ": " + rootMessage(e), e.getCause());
            }
            throw new IllegalStateException("training job ended (" + status + ") before its final evaluation");
        }
    }

    private static void stop(JobClient client) throws Exception {
        JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
        if (!status.isGloballyTerminalState()) {
            client.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static void followFromEnd(KafkaConsumer<String, String> consumer, String topic) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
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
    private static void copy(KafkaConsumer<String, String> consumer, BufferedWriter file, Duration quiet)
            throws IOException {
        if (consumer == null) {
            return;
        }
        while (true) {
            int n = 0;
            for (ConsumerRecord<String, String> record : consumer.poll(quiet.isZero() ? Duration.ofMillis(1) : quiet)) {
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
