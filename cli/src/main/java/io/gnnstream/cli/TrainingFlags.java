package io.gnnstream.cli;

import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.JobFlags;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.SamplingOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * Training flags of {@code demo} and {@code train}: every job option's flag (added from {@link
 * JobOptions} by the commands' model transformers), plus the flags that only the command line has.
 */
final class TrainingFlags {

    @Option(
            names = "--layers",
            description =
                    "Number of layers; must match --fanouts, or extends the default "
                            + "fanouts with 10s when --fanouts is not given.")
    Integer layers;

    @Option(names = "--metrics-out", description = "Write the metrics as JSON lines to this file.")
    Path metricsOut;

    @Option(
            names = "--predictions-out",
            description =
                    "Also write the predictions topic's records to this file, "
                            + "as JSON lines {\"id\":…,\"step\":…,\"label\":…,\"probs\":[…]}.")
    Path predictionsOut;

    /** Adds every job option's flag, with the options' own defaults (train, submit, resume). */
    static final class AllJobFlags implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            addJobFlags(spec, Set.of(), Map.of());
            return spec;
        }
    }

    /**
     * Adds the job's flags to a command, except {@code excluded}, with some defaults of its own.
     */
    static void addJobFlags(CommandSpec spec, Set<String> excluded, Map<String, String> defaults) {
        JobFlags.addTo(spec, JobOptions.groups(), excluded, defaults);
    }

    /**
     * The flags given to {@code spec}'s command as a Flink configuration with the job's defaults
     * for checkpointing.
     */
    Configuration toConfiguration(CommandSpec spec, Path defaultCheckpointDir) {
        return JobDefaults.apply(givenConfiguration(spec), defaultCheckpointDir);
    }

    /** The flags given to {@code spec}'s command as a Flink configuration, nothing else. */
    Configuration givenConfiguration(CommandSpec spec) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        Configuration c = JobFlags.configuration(parsed);
        if (layers != null) {
            if (!c.contains(SamplingOptions.FANOUTS)) {
                List<Integer> f = new ArrayList<>(SamplingOptions.FANOUTS.defaultValue());
                while (f.size() < layers) {
                    f.add(10);
                }
                c.set(SamplingOptions.FANOUTS, new ArrayList<>(f.subList(0, layers)));
            } else if (c.get(SamplingOptions.FANOUTS).size() != layers) {
                throw new IllegalArgumentException(
                        "--layers "
                                + layers
                                + " does not match --fanouts "
                                + c.get(SamplingOptions.FANOUTS));
            }
        }
        return c;
    }
}
