package io.gnnstream.cli;

import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code submit}: the training job on a Flink cluster, with the shaded job jar. */
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        modelTransformer = TrainingFlags.AllJobFlags.class,
        description =
                "Submit the training job to a Flink cluster (the one `cluster start` started, or"
                        + " --jobmanager).")
final class SubmitCommand implements Callable<Integer> {

    @Mixin ClusterTarget target;

    @Mixin ClusterSubmission submission;

    @Mixin TrainingFlags flags;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Configuration conf = flags.toConfiguration(spec, target.defaultCheckpointDir());
        return submission.submit(target.clientConfiguration(conf), target.rest(), flags);
    }
}
