package io.gnnstream.jobs.internal;

import java.util.EnumSet;
import org.apache.flink.configuration.description.Formatter;
import org.apache.flink.configuration.description.TextElement;

/** Renders a Flink option {@code Description} as one line of plain text, for command-line help. */
public final class PlainTextFormatter extends Formatter {

    @Override
    protected void formatLink(StringBuilder out, String link, String description) {
        out.append(description.isEmpty() ? link : description);
    }

    @Override
    protected void formatLineBreak(StringBuilder out) {
        out.append(' ');
    }

    @Override
    protected void formatText(
            StringBuilder out,
            String format,
            String[] elements,
            EnumSet<TextElement.TextStyle> styles) {
        out.append(String.format(format, (Object[]) elements));
    }

    @Override
    protected void formatList(StringBuilder out, String[] entries) {
        out.append(String.join("; ", entries));
    }

    @Override
    protected Formatter newInstance() {
        return new PlainTextFormatter();
    }
}
