package io.gnnstream.jobs;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Command-line flags derived from {@link JobOptions}: one flag per option, named, described and
 * checked as its declaration says, with the default in its help. Parsed flags become a Flink {@link
 * Configuration} holding only what was given, so a configuration file's values are kept for the
 * rest.
 */
public final class JobFlags {

    private JobFlags() {}

    /** Adds a flag for every option of {@code groups}, except the {@code excluded} flags. */
    public static void addTo(
            CommandSpec spec,
            Collection<OptionGroup> groups,
            Set<String> excluded,
            Map<String, String> defaultOverrides) {
        for (OptionGroup group : groups) {
            for (JobOption<?> option : group.options()) {
                if (!excluded.contains(option.flag())) {
                    spec.addOption(
                            optionSpec(
                                    option,
                                    defaultOverrides.getOrDefault(
                                            option.flag(), option.defaultText())));
                }
            }
        }
    }

    /** Adds a flag for every option of the job. */
    public static void addTo(CommandSpec spec) {
        addTo(spec, JobOptions.groups(), Set.of(), Map.of());
    }

    /** The options given on the command line, converted to their types. */
    public static Configuration configuration(ParseResult parsed) {
        Configuration conf = new Configuration();
        for (JobOption<?> option : JobOptions.all()) {
            put(conf, option, parsed);
        }
        return conf;
    }

    @SuppressWarnings("unchecked")
    private static <T> void put(Configuration conf, JobOption<T> option, ParseResult parsed) {
        OptionSpec matched = parsed.matchedOption(option.flag());
        if (matched != null && option.repeatable()) {
            T values = (T) new java.util.ArrayList<String>(matched.<List<String>>getValue());
            option.requireValid(values);
            conf.set(option.option(), values);
        } else if (matched != null) {
            conf.set(option.option(), option.parse(matched.getValue()));
        }
    }

    private static OptionSpec optionSpec(JobOption<?> option, String defaultText) {
        String description =
                option.description()
                        + (defaultText == null ? "" : " (default: " + defaultText + ")");
        if (option.repeatable()) {
            return OptionSpec.builder(option.flag())
                    .paramLabel(option.paramLabel())
                    .description(description.replace("%", "%%"))
                    .type(List.class)
                    .auxiliaryTypes(String.class)
                    .arity("1")
                    .hidden(option.hidden())
                    .build();
        }
        return OptionSpec.builder(option.flag())
                .paramLabel(option.paramLabel())
                .description(description.replace("%", "%%"))
                .type(String.class)
                .arity("1")
                .hidden(option.hidden())
                .converters(
                        text -> {
                            try {
                                option.parse(text);
                            } catch (IllegalArgumentException e) {
                                throw new CommandLine.TypeConversionException(e.getMessage());
                            }
                            return text;
                        })
                .build();
    }
}
