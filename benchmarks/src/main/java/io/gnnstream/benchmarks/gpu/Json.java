package io.gnnstream.benchmarks.gpu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Just enough JSON for the GPU check without a JSON library: writes maps, lists, strings, numbers,
 * booleans and null, and parses a document into the same ({@link LinkedHashMap}, {@link ArrayList},
 * {@link String}, {@link Double}, {@link Boolean}, null).
 */
final class Json {

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /**
     * {@code value} as indented JSON; numbers as Java prints them (the shortest decimal that reads
     * back to the same value), non-finite ones as null.
     */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, "");
        return out.append('\n').toString();
    }

    /**
     * The value of the JSON document {@code text}.
     *
     * @throws IllegalArgumentException if {@code text} is not one JSON value
     */
    static Object parse(String text) {
        Json p = new Json(text);
        p.blanks();
        Object v = p.value();
        p.blanks();
        if (p.pos != text.length()) {
            throw p.error("text after the value");
        }
        return v;
    }

    private static void write(Object v, StringBuilder out, String indent) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String s) {
            quote(s, out);
        } else if (v instanceof Boolean) {
            out.append(v);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (!Double.isFinite(d)) {
                out.append("null");
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                out.append((long) d);
            } else {
                out.append(v instanceof Float f ? Float.toString(f) : Double.toString(d));
            }
        } else if (v instanceof Number) {
            out.append(v);
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                out.append("{}");
                return;
            }
            String inner = indent + "  ";
            out.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.append(inner);
                quote(String.valueOf(e.getKey()), out);
                out.append(": ");
                write(e.getValue(), out, inner);
                out.append(++i < m.size() ? ",\n" : "\n");
            }
            out.append(indent).append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                out.append("[]");
                return;
            }
            boolean flat = l.stream().allMatch(x -> x == null || x instanceof Number);
            String inner = indent + "  ";
            out.append(flat ? "[" : "[\n");
            for (int i = 0; i < l.size(); i++) {
                if (!flat) {
                    out.append(inner);
                }
                write(l.get(i), out, inner);
                if (i + 1 < l.size()) {
                    out.append(flat ? ", " : ",\n");
                }
            }
            out.append(flat ? "]" : "\n" + indent + "]");
        } else if (v instanceof double[] a) {
            List<Object> l = new ArrayList<>();
            for (double d : a) {
                l.add(d);
            }
            write(l, out, indent);
        } else {
            quote(v.toString(), out);
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private Object value() {
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        pos++;
        blanks();
        if (peek('}')) {
            pos++;
            return m;
        }
        while (true) {
            blanks();
            if (!peek('"')) {
                throw error("expected a key");
            }
            String key = string();
            blanks();
            expect(':');
            blanks();
            m.put(key, value());
            blanks();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        pos++;
        blanks();
        if (peek(']')) {
            pos++;
            return l;
        }
        while (true) {
            blanks();
            l.add(value());
            blanks();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        StringBuilder s = new StringBuilder();
        pos++;
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return s.toString();
            }
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (pos >= text.length()) {
                break;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n' -> s.append('\n');
                case 't' -> s.append('\t');
                case 'r' -> s.append('\r');
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    s.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> s.append(e);
            }
        }
        throw error("unterminated string");
    }

    private Object literal(String word, Object v) {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
        return v;
    }

    private Double number() {
        // Python's json module writes the non-finite floats as NaN, Infinity and -Infinity.
        for (String word : new String[] {"NaN", "Infinity", "-Infinity"}) {
            if (text.startsWith(word, pos)) {
                pos += word.length();
                return Double.valueOf(word);
            }
        }
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        if (start == pos) {
            throw error("unexpected '" + text.charAt(pos) + "'");
        }
        try {
            return Double.valueOf(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error("bad number " + text.substring(start, pos));
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void blanks() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at offset " + pos + ": " + what);
    }
}
