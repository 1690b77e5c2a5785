package io.gnnstream.tools.formats;

import java.util.ArrayList;
import java.util.List;

/** Splits one CSV line into fields; double-quoted fields may hold the separator and {@code ""}. */
final class CsvLine {

    private CsvLine() {}

    /** The fields of {@code line}, or null when a quoted field is not closed on the line. */
    static List<String> split(String line, char separator) {
        List<String> fields = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
                        f.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    f.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == separator) {
                fields.add(f.toString());
                f.setLength(0);
            } else {
                f.append(c);
            }
        }
        if (quoted) {
            return null;
        }
        fields.add(f.toString());
        return fields;
    }
}
