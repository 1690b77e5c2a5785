package io.gnnstream.cli;

import io.gnnstream.jobs.JobOption;
import io.gnnstream.jobs.JobOptions;
import java.lang.reflect.AnnotatedElement;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * Gives an annotated flag that shares its name with a job option (such as {@code bench --fanouts})
 * the option's default, so {@code --help} and the job agree. A flag with its own annotated default
 * keeps it, so that a flag of another command with the same name ({@code generate --seed}) is not
 * given a training default, and neither does a required flag ({@code predict --model}) or one
 * declared without a default ({@link Option#NULL_VALUE}, {@code predict --eval-fanout}); the job's
 * own flags carry their defaults in their descriptions.
 */
final class OptionDefaults implements IDefaultValueProvider {

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec)
                || argSpec.defaultValue() != null
                || argSpec.userObject() == null
                || keepsOwnDefault(argSpec.userObject())) {
            return null;
        }
        return JobOptions.byFlag(((OptionSpec) argSpec).longestName())
                .map(JobOption::defaultText)
                .orElse(null);
    }

    /**
     * True for an annotated field or method declared {@code required = true} or with the default
     * {@link Option#NULL_VALUE}.
     */
    private static boolean keepsOwnDefault(Object member) {
        Option option = member instanceof AnnotatedElement e ? e.getAnnotation(Option.class) : null;
        return option != null
                && (option.required() || Option.NULL_VALUE.equals(option.defaultValue()));
    }
}
