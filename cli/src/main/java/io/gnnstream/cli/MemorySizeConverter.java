package io.gnnstream.cli;

import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine.ITypeConverter;

/** Parses sizes the way Flink's configuration does ({@code 64mb}, {@code 1 gb}, {@code 0}). */
public final class MemorySizeConverter implements ITypeConverter<MemorySize> {
    @Override
    public MemorySize convert(String value) {
        return MemorySize.parse(value);
    }
}
