package io.gnnstream.cli;

import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.JobOptions;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code resume}: submits the training job again from a savepoint (or a retained checkpoint), with
 * the options that {@code stop} kept next to it and any flags given on top, such as another {@code
 * --parallelism} or {@code --trainers}.
 */
@Command(
        name = "resume",
        mixinStandardHelpOptions = true,
        modelTransformer = TrainingFlags.AllJobFlags.class,
        description =
                "Resume the training job from a savepoint on a Flink cluster, with the options it"
                        + " was stopped with; flags given here override them (e.g. --parallelism,"
                        + " --trainers).")
final class ResumeCommand implements Callable<Integer> {

    @Option(
            names = "--from-savepoint",
            required = true,
            paramLabel = "PATH",
            description =
                    "Savepoint (or retained checkpoint) to resume from: a path or a Flink file"
                            + " system URI.")
    String savepoint;

    @Mixin ClusterTarget target;

    @Mixin ClusterSubmission submission;

    @Mixin TrainingFlags flags;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        String path = JobDefaults.fileSystemUri(savepoint);
        SavepointOptions.requireSavepoint(path);
        Map<String, String> recorded = SavepointOptions.read(path);
        if (recorded.isEmpty()) {
            System.out.println(
                    "No "
                            + SavepointOptions.FILE
                            + " next to the savepoint: the job's options come from "
                            + "the flags given here only.");
        }
        Configuration conf = JobOptions.fromRecorded(recorded);
        conf.addAll(flags.givenConfiguration(spec));
        JobDefaults.apply(conf, target.defaultCheckpointDir());
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        System.out.println("Resuming from " + path);
        return submission.submit(target.clientConfiguration(conf), target.rest(), flags);
    }
}
