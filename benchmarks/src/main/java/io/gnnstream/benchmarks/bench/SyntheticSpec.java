package io.gnnstream.benchmarks.bench;

/**
 * {@code --synthetic N,D,F,C}: a generated graph of {@code N} nodes with average in-degree {@code
 * D}, {@code F} features and {@code C} classes.
 */
public record SyntheticSpec(long nodes, int degree, int features, int classes) {

    public SyntheticSpec {
        if (nodes < 1 || degree < 0 || features < 1 || classes < 2) {
            throw new IllegalArgumentException(
                    "--synthetic needs N >= 1, D >= 0, F >= 1, C >= 2, got "
                            + nodes
                            + ","
                            + degree
                            + ","
                            + features
                            + ","
                            + classes);
        }
    }

    /** Parses {@code N,D,F,C}; {@code N} may use a k/M/G suffix (powers of ten). */
    public static SyntheticSpec parse(String text) {
        String[] parts = text.trim().split("\\s*,\\s*");
        if (parts.length != 4) {
            throw new IllegalArgumentException(
                    "--synthetic expects N,D,F,C (4 numbers), got '" + text + "'");
        }
        try {
            return new SyntheticSpec(
                    count(parts[0]),
                    Integer.parseInt(parts[1]),
                    Integer.parseInt(parts[2]),
                    Integer.parseInt(parts[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--synthetic expects N,D,F,C as numbers, got '" + text + "'");
        }
    }

    private static long count(String s) {
        long factor = 1;
        char last = Character.toLowerCase(s.charAt(s.length() - 1));
        if (last == 'k' || last == 'm' || last == 'g') {
            factor = last == 'k' ? 1_000L : last == 'm' ? 1_000_000L : 1_000_000_000L;
            s = s.substring(0, s.length() - 1);
        }
        return Math.multiplyExact(Long.parseLong(s), factor);
    }

    @Override
    public String toString() {
        return nodes + "," + degree + "," + features + "," + classes;
    }
}
