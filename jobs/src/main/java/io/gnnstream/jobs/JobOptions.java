package io.gnnstream.jobs;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Every option of the training job, by group; the single list flags, help and validation derive
 * from.
 */
public final class JobOptions {

    private JobOptions() {}

    /** The groups in the order {@code --help} shows them. */
    public static List<OptionGroup> groups() {
        return List.of(
                KafkaOptions.GROUP,
                GraphOptions.GROUP,
                SamplingOptions.GROUP,
                ModelOptions.GROUP,
                PredictionOptions.GROUP,
                RunOptions.GROUP);
    }

    public static List<JobOption<?>> all() {
        return groups().stream().flatMap(g -> g.options().stream()).collect(Collectors.toList());
    }

    public static Optional<JobOption<?>> byFlag(String flag) {
        return Optional.ofNullable(ByFlag.MAP.get(flag));
    }

    /**
     * Throws {@link IllegalArgumentException} ("--flag is required") for the first option {@code
     * conf} lacks.
     */
    public static void require(ReadableConfig conf, ConfigOption<?>... options) {
        for (ConfigOption<?> option : options) {
            if (conf.getOptional(option).isEmpty()) {
                throw new IllegalArgumentException(flagOf(option) + " is required");
            }
        }
    }

    /** The flag of {@code option} ({@code --name}), or its key if it has none. */
    public static String flagOf(ConfigOption<?> option) {
        return all().stream()
                .filter(o -> o.key().equals(option.key()))
                .map(JobOption::flag)
                .findFirst()
                .orElse(option.key());
    }

    /**
     * Checks every option's value in {@code conf} (or its default); throws {@link
     * IllegalArgumentException} on the first problem.
     */
    public static void validate(ReadableConfig conf) {
        for (JobOption<?> option : all()) {
            option.validate(conf);
        }
    }

    /** Prefix of the options that only tests set (failure injection); they are never recorded. */
    private static final String TEST_PREFIX = "gnnstream.test.";

    /**
     * The options {@code conf} holds, as the text a flag takes, by key (test-only options left
     * out): what a job records in its global job parameters, so that {@code stop} can keep them
     * with a savepoint and {@code resume} can start the job again with the same options.
     */
    public static Map<String, String> recorded(ReadableConfig conf) {
        Map<String, String> recorded = new java.util.TreeMap<>();
        for (JobOption<?> option : all()) {
            if (!option.key().startsWith(TEST_PREFIX)) {
                record(recorded, conf, option);
            }
        }
        // The savepoint lineage's options, also when defaulted: a later build's default must not
        // change them.
        recorded.putIfAbsent(
                GraphOptions.PARTITIONS.key(), JobOption.text(conf.get(GraphOptions.PARTITIONS)));
        recorded.putIfAbsent(GraphOptions.HALO.key(), JobOption.text(GraphOptions.halo(conf)));
        return recorded;
    }

    private static <T> void record(
            Map<String, String> recorded, ReadableConfig conf, JobOption<T> option) {
        conf.getOptional(option.option())
                .ifPresent(v -> recorded.put(option.key(), option.textOf(v)));
    }

    /**
     * Options recorded by {@link #recorded}, parsed and checked as their flags would be; keys of no
     * option are ignored (a savepoint of a build with other options).
     */
    public static org.apache.flink.configuration.Configuration fromRecorded(
            Map<String, String> recorded) {
        org.apache.flink.configuration.Configuration conf =
                new org.apache.flink.configuration.Configuration();
        for (JobOption<?> option : all()) {
            String text = recorded.get(option.key());
            if (text != null && !option.key().startsWith(TEST_PREFIX)) {
                put(conf, option, text);
            }
        }
        return conf;
    }

    private static <T> void put(
            org.apache.flink.configuration.Configuration conf, JobOption<T> option, String text) {
        conf.set(option.option(), option.parse(text));
    }

    /** Built on first use, after every options class has declared its options. */
    private static final class ByFlag {
        static final Map<String, JobOption<?>> MAP =
                all().stream().collect(Collectors.toMap(JobOption::flag, Function.identity()));
    }
}
