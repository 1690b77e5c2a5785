package io.gnnstream.cli;

import java.time.Duration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.ITypeConverter;

/**
 * Parses durations the way Flink's configuration does ({@code 500ms}, {@code 10s}, {@code 2 min}).
 */
public final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        return TimeUtils.parseDuration(value);
    }
}
