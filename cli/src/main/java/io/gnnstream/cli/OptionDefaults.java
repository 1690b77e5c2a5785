package io.gnnstream.cli;

import io.gnnstream.jobs.JobOption;
import io.gnnstream.jobs.JobOptions;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Gives an annotated flag that shares its name with a job option (such as {@code bench --fanouts})
 * the option's default, so {@code --help} and the job agree. A flag with its own annotated default
 * keeps it, so that a flag of another command with the same name ({@code generate --seed}) is not
 * given a training default; the job's own flags carry their defaults in their descriptions.
 */
final class OptionDefaults implements IDefaultValueProvider {

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec) || argSpec.defaultValue() != null || argSpec.userObject() == null) {
            return null;
        }
        return JobOptions.byFlag(((OptionSpec) argSpec).longestName()).map(JobOption::defaultText).orElse(null);
    }
}
