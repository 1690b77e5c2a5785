package io.gnnstream.jobs;

import io.gnnstream.jobs.internal.PlainTextFormatter;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/**
 * One option of the training job: the typed Flink {@link ConfigOption} (key, type, default,
 * description), the command-line flag derived from it, and the check its value must pass. Options
 * are declared once, with {@link OptionGroup#declare}; {@link JobOptions} lists them, and the
 * command line, its defaults and help text, and {@link TrainingJob#validate} all derive from that
 * list.
 *
 * @param <T> the value type
 */
public final class JobOption<T> {

    private final ConfigOption<T> option;
    private final String flag;
    private final String paramLabel;
    private final OptionCheck<T> check;
    private final boolean required;
    private final boolean hidden;
    private final boolean repeatable;

    JobOption(
            ConfigOption<T> option,
            String flag,
            String paramLabel,
            OptionCheck<T> check,
            boolean required,
            boolean hidden) {
        this(option, flag, paramLabel, check, required, hidden, false);
    }

    JobOption(
            ConfigOption<T> option,
            String flag,
            String paramLabel,
            OptionCheck<T> check,
            boolean required,
            boolean hidden,
            boolean repeatable) {
        this.option = option;
        this.flag = flag;
        this.paramLabel = paramLabel;
        this.check = check;
        this.required = required;
        this.hidden = hidden;
        this.repeatable = repeatable;
    }

    /**
     * A list option whose flag is given once per element ({@code --kafka-property a=1
     * --kafka-property b=2}); its text is Flink's own list form (elements separated by {@code ;},
     * quoted where they hold one), so that elements may contain commas.
     */
    public boolean repeatable() {
        return repeatable;
    }

    /** The text of {@code value} as {@link #parse} reads it back. */
    public String textOf(T value) {
        if (repeatable) {
            Configuration c = new Configuration();
            c.set(option, value);
            return c.toMap().get(key());
        }
        return text(value);
    }

    /**
     * The flag of a key: {@code --} and the key's last segment ({@code gnnstream.model.hidden} is
     * {@code --hidden}).
     */
    static String flagOf(String key) {
        return "--" + key.substring(key.lastIndexOf('.') + 1);
    }

    public ConfigOption<T> option() {
        return option;
    }

    public String key() {
        return option.key();
    }

    public String flag() {
        return flag;
    }

    public String paramLabel() {
        return paramLabel;
    }

    /** The option's description as plain text. */
    public String description() {
        return new PlainTextFormatter().format(option.description());
    }

    /** The job cannot run without a value (and there is no default). */
    public boolean required() {
        return required;
    }

    /** Not listed in {@code --help}: for benchmarks and tests, not for users. */
    public boolean hidden() {
        return hidden;
    }

    /** The default as a user would type it on the command line, or null when there is none. */
    public String defaultText() {
        return option.hasDefaultValue() ? text(option.defaultValue()) : null;
    }

    /**
     * Parses a flag's text into a value with Flink's own conversion (so the flag accepts what a
     * configuration file does: {@code 64mb}, {@code 10s}, {@code cosine}); list elements are
     * separated by commas. Throws {@link IllegalArgumentException} naming the flag when the text
     * does not parse or the value fails the option's check.
     */
    public T parse(String text) {
        T value;
        if (repeatable) {
            try {
                value = Configuration.fromMap(java.util.Map.of(key(), text)).get(option);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot read '" + text + "' as " + flag, e);
            }
            requireValid(value);
            return value;
        }
        try {
            value = Configuration.fromMap(java.util.Map.of(key(), text)).get(option);
        } catch (IllegalArgumentException notAsIs) {
            if (!text.contains(",")) {
                throw new IllegalArgumentException(
                        "cannot read '" + text + "' as " + flag, notAsIs);
            }
            try {
                value =
                        Configuration.fromMap(java.util.Map.of(key(), text.replace(',', ';')))
                                .get(option);
            } catch (IllegalArgumentException notAsList) {
                throw new IllegalArgumentException(
                        "cannot read '" + text + "' as " + flag, notAsList);
            }
        }
        requireValid(value);
        return value;
    }

    /**
     * Throws {@link IllegalArgumentException} ("--flag must be ..., got v") unless {@code value}
     * passes the check.
     */
    public void requireValid(T value) {
        String problem = check.problem(value);
        if (problem != null) {
            throw new IllegalArgumentException(
                    flag + " " + problem + (repeatable ? "" : ", got " + text(value)));
        }
    }

    /** Checks the value {@code conf} holds (or the default); a required option must be present. */
    public void validate(ReadableConfig conf) {
        Optional<T> value;
        try {
            value = conf.getOptional(option);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + " (" + key() + "): " + e.getMessage(), e);
        }
        if (value.isPresent()) {
            requireValid(value.get());
        } else if (option.hasDefaultValue()) {
            requireValid(option.defaultValue());
        } else if (required) {
            throw new IllegalArgumentException(flag + " is required (" + key() + ")");
        }
    }

    static String text(Object value) {
        if (value instanceof List) {
            return ((List<?>) value).stream().map(JobOption::text).collect(Collectors.joining(","));
        }
        if (value instanceof MemorySize) {
            MemorySize size = (MemorySize) value;
            return size.getBytes() == 0
                    ? "0"
                    : size.toString().replace(" bytes", "b").replace(" ", "");
        }
        if (value instanceof java.time.Duration) {
            java.time.Duration d = (java.time.Duration) value;
            return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
        }
        if (value instanceof Enum) {
            return value.toString().toLowerCase(java.util.Locale.ROOT);
        }
        return String.valueOf(value);
    }

    @Override
    public String toString() {
        return flag + " (" + key() + ")";
    }
}
