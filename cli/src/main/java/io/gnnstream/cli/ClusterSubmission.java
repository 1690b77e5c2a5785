package io.gnnstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.cluster.ClusterException;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.MemoryDefaults;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Option;

/**
 * Flags and steps that {@code submit} and {@code resume} share: the job jar, following the job's
 * progress, and the submission itself. The job graph is built here, from the same classes as the
 * jar, and sent with the jar to the cluster's REST endpoint, as {@code flink run} does with the
 * jar's main class ({@code io.gnnstream.jobs.TrainingJob}).
 */
final class ClusterSubmission {

    @Option(
            names = "--job-jar",
            description =
                    "The shaded job jar (default: jobs/target/gnnstream-jobs-*-job.jar "
                            + "of this build).")
    Path jobJar;

    @Option(
            names = "--follow",
            description =
                    "Follow the job's metrics until its final evaluation, then cancel it (its last"
                        + " checkpoint is retained); without it the command returns once the job is"
                        + " submitted.")
    boolean follow;

    @Option(
            names = "--timeout",
            defaultValue = "0s",
            converter = DurationConverter.class,
            description =
                    "With --follow: give up after this long; 0s = never (default:"
                            + " ${DEFAULT-VALUE}).")
    Duration timeout;

    /** Checks the options, creates the output topics and submits the job; returns 0 or throws. */
    int submit(Configuration conf, ClusterRest rest, TrainingFlags flags) throws Exception {
        JobOptions.require(
                conf,
                KafkaOptions.BOOTSTRAP_SERVERS,
                GraphOptions.NUM_FEATURES,
                GraphOptions.NUM_CLASSES);
        TrainingJob.validate(conf);
        Path jar = jar();
        if (rest.overview().isEmpty()) {
            throw new ClusterException("the cluster at " + rest.webUi() + " does not answer");
        }
        slotHeap(rest)
                .ifPresent(
                        bytes -> {
                            String memory =
                                    MemoryDefaults.apply(
                                            conf,
                                            MemoryDefaults.Heap.slot(bytes),
                                            OptionalLong.empty());
                            if (memory != null) {
                                System.out.println(memory);
                            }
                        });
        TrainingJob.ensureOutputTopics(conf);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(
                        rest.host(), rest.port(), conf, jar.toString());
        env.setParallelism(conf.get(RunOptions.PARALLELISM));
        if (follow) {
            JsonNode result =
                    new TrainingRunner(conf, System.out, flags.metricsOut)
                            .predictionsOut(flags.predictionsOut)
                            .run(env, timeout)
                            .finalLine();
            System.out.println("final test accuracy " + result.path("test_acc").asDouble());
            return 0;
        }
        new TrainingJob(conf).buildWithKafka(env);
        JobClient client = env.executeAsync(TrainingJob.streamGraph(env));
        System.out.println("Submitted job " + client.getJobID() + " to " + rest.webUi());
        System.out.println(
                "Stop it with a savepoint: bin/gnnstream stop --job "
                        + client.getJobID()
                        + " --savepoint-dir URI");
        return 0;
    }

    /**
     * The smallest task heap per slot of the cluster's TaskManagers: a subtask may be placed in any
     * slot, also after a failover.
     */
    private static OptionalLong slotHeap(ClusterRest rest) throws IOException {
        return rest.taskManagers().stream()
                .filter(tm -> tm.slots() > 0 && tm.taskHeapBytes() > 0)
                .mapToLong(tm -> tm.taskHeapBytes() / tm.slots())
                .min();
    }

    private Path jar() throws IOException {
        if (jobJar != null) {
            if (!Files.isRegularFile(jobJar)) {
                throw new IllegalArgumentException("--job-jar " + jobJar + " does not exist");
            }
            return jobJar;
        }
        Path dir = ClusterCommand.home().resolve("jobs").resolve("target");
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(
                            p -> p.getFileName().toString().matches("gnnstream-jobs-.*-job\\.jar"))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new ClusterException(
                                            "no job jar in " + dir + " (built by `mvn package`)"));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ClusterException("no job jar in " + dir + " (built by `mvn package`)", e);
        }
    }
}
