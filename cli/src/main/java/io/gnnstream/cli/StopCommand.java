package io.gnnstream.cli;

import io.gnnstream.cluster.ClusterException;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.TrainingJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code stop}: savepoint, then cancel (see {@link ClusterRest#savepointAndCancel}), and the job's
 * options kept next to the savepoint for {@code resume}.
 */
@Command(
        name = "stop",
        mixinStandardHelpOptions = true,
        description =
                "Stop a training job with a savepoint: the savepoint is written, then the job is"
                        + " cancelled (its iterations never finish by themselves); prints the"
                        + " savepoint's path for `resume`.")
final class StopCommand implements Callable<Integer> {

    @Option(
            names = "--job",
            paramLabel = "ID",
            description = "The job (default: the only running training job).")
    String job;

    @Option(
            names = "--savepoint-dir",
            paramLabel = "URI",
            description =
                    "Where to write the savepoint: a path or a Flink file system URI (default: the"
                            + " cluster's state.savepoints.dir).")
    String savepointDir;

    @Option(
            names = "--timeout",
            defaultValue = "5m",
            converter = DurationConverter.class,
            description =
                    "Give up when the savepoint has not completed after this long (default:"
                            + " ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin ClusterTarget target;

    @Override
    public Integer call() throws Exception {
        ClusterRest rest = target.rest();
        JobID id = job != null ? parse(job) : onlyRunningJob(rest);
        Map<String, String> options = rest.userConfiguration(id);
        long started = System.nanoTime();
        String path =
                rest.savepointAndCancel(
                        id,
                        savepointDir == null ? null : JobDefaults.fileSystemUri(savepointDir),
                        timeout,
                        System.err);
        SavepointOptions.write(path, options);
        System.out.printf(
                "Savepoint %s written and job %s cancelled in %.1f s%n",
                path, id, (System.nanoTime() - started) / 1e9);
        System.out.println("Resume with: bin/gnnstream resume --from-savepoint " + path);
        return 0;
    }

    private static JobID parse(String text) {
        try {
            return JobID.fromHexString(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--job must be a job id (32 hex digits), got " + text);
        }
    }

    private static JobID onlyRunningJob(ClusterRest rest) throws Exception {
        List<ClusterRest.JobInfo> running =
                rest.jobs().stream()
                        .filter(
                                j ->
                                        j.status() == JobStatus.RUNNING
                                                && j.name().equals(TrainingJob.JOB_NAME))
                        .collect(Collectors.toList());
        if (running.size() != 1) {
            throw new ClusterException(
                    running.isEmpty()
                            ? "no training job is running at " + rest.webUi()
                            : running.size()
                                    + " training jobs are running at "
                                    + rest.webUi()
                                    + ": give --job ID");
        }
        return running.get(0).id();
    }
}
