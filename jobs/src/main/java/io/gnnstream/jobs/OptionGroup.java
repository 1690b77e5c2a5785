package io.gnnstream.jobs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;

/**
 * The options of one part of the job, in declaration order, under a heading for {@code --help}. An
 * options class declares each of its options once through its group:
 *
 * <pre>{@code
 * static final OptionGroup GROUP = new OptionGroup("Model");
 * public static final ConfigOption<Integer> HIDDEN = GROUP.declare(
 *         ConfigOptions.key("gnnstream.model.hidden").intType().defaultValue(64)
 *                 .withDescription("Hidden units per layer."),
 *         OptionCheck.positive());
 * }</pre>
 */
public final class OptionGroup {

    private final String heading;
    private final List<JobOption<?>> options = new ArrayList<>();

    public OptionGroup(String heading) {
        this.heading = heading;
    }

    public String heading() {
        return heading;
    }

    public List<JobOption<?>> options() {
        return Collections.unmodifiableList(options);
    }

    /** Declares an option with the flag derived from its key. */
    public <T> ConfigOption<T> declare(ConfigOption<T> option, OptionCheck<T> check) {
        return add(
                new JobOption<>(
                        option,
                        JobOption.flagOf(option.key()),
                        label(option),
                        check,
                        false,
                        false));
    }

    /** Declares an option the job cannot run without; it has no default. */
    public <T> ConfigOption<T> declareRequired(ConfigOption<T> option, OptionCheck<T> check) {
        return add(
                new JobOption<>(
                        option, JobOption.flagOf(option.key()), label(option), check, true, false));
    }

    /**
     * Declares an option under a flag of its own (when the key's last segment would be ambiguous).
     */
    public <T> ConfigOption<T> declare(ConfigOption<T> option, String flag, OptionCheck<T> check) {
        return add(new JobOption<>(option, flag, label(option), check, false, false));
    }

    /**
     * Declares a list option under {@code flag}, given once per element on the command line ({@link
     * JobOption#repeatable}).
     */
    public <T> ConfigOption<java.util.List<T>> declareRepeatable(
            ConfigOption<java.util.List<T>> option,
            String flag,
            String paramLabel,
            OptionCheck<java.util.List<T>> check) {
        return add(new JobOption<>(option, flag, paramLabel, check, false, false, true));
    }

    /** Declares an option that {@code --help} does not list (for benchmarks and tests). */
    public <T> ConfigOption<T> declareHidden(ConfigOption<T> option, OptionCheck<T> check) {
        return add(
                new JobOption<>(
                        option, JobOption.flagOf(option.key()), label(option), check, false, true));
    }

    private <T> ConfigOption<T> add(JobOption<T> option) {
        options.add(option);
        return option.option();
    }

    private static String label(ConfigOption<?> option) {
        String last = option.key().substring(option.key().lastIndexOf('.') + 1);
        return last.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }
}
