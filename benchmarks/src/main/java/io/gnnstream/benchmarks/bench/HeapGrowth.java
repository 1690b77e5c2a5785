package io.gnnstream.benchmarks.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What grew on a JVM's heap between two class histograms ({@code jcmd <pid> GC.class_histogram},
 * which collects before it counts): the classes whose live bytes grew most, so that a soak's old
 * generation growth names what holds it.
 */
final class HeapGrowth {

    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    private static final int TOP = 8;

    private final double from;
    private List<Histogram> first;
    private double firstMinute;
    private List<Histogram> last;
    private double lastMinute;

    /** Keeps the histograms of the first sample at or after minute {@code from} and of the last. */
    HeapGrowth(double from) {
        this.from = from;
    }

    /**
     * Takes a histogram of every JVM in {@code pids} when the sample at {@code minute} is the first
     * at or after the start of the growth window, or {@code last}.
     */
    void sample(List<Long> pids, double minute, boolean isLast) throws Exception {
        boolean isFirst = first == null && minute >= from - 1e-9;
        if (!isFirst && !isLast) {
            return;
        }
        List<Histogram> taken = new ArrayList<>();
        for (long pid : pids) {
            taken.add(parse(SoakProbe.jcmd(pid, "GC.class_histogram")));
        }
        if (isFirst) {
            first = taken;
            firstMinute = minute;
        }
        last = taken;
        lastMinute = minute;
    }

    /**
     * Per JVM, the classes that grew most between the two histograms; empty before there are two.
     */
    List<List<ClassGrowth>> growth() {
        List<List<ClassGrowth>> out = new ArrayList<>();
        if (first != null && lastMinute > firstMinute) {
            for (int i = 0; i < first.size(); i++) {
                out.add(top(first.get(i), last.get(i), TOP));
            }
        }
        return out;
    }

    void print(java.io.PrintStream log) {
        List<List<ClassGrowth>> growth = growth();
        for (int i = 0; i < growth.size(); i++) {
            log.printf(
                    java.util.Locale.ROOT,
                    "Live heap of TaskManager %d, min %.1f to %.1f: %.1f to %.1f MiB; grew most:%n",
                    i,
                    firstMinute,
                    lastMinute,
                    first.get(i).total() / 1048576.0,
                    last.get(i).total() / 1048576.0);
            for (ClassGrowth g : growth.get(i)) {
                log.printf(
                        java.util.Locale.ROOT,
                        "  %+9.2f MiB %+,10d instances  %s%n",
                        g.bytes() / 1048576.0,
                        g.lastCount() - g.firstCount(),
                        g.name());
            }
        }
    }

    /** The figures for the benchmark's JSON. */
    Map<String, Object> toMap() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("from_minute", firstMinute);
        out.put("to_minute", lastMinute);
        out.put("by_taskmanager", growth());
        return out;
    }

    /** One class's live bytes and instances at the first and the last histogram. */
    record ClassGrowth(
            String name, long firstBytes, long lastBytes, long firstCount, long lastCount) {

        long bytes() {
            return lastBytes - firstBytes;
        }
    }

    /** Live bytes and instances per class of one histogram. */
    record Histogram(Map<String, Long> bytes, Map<String, Long> instances) {

        long total() {
            return bytes.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Parses the text of {@code jcmd <pid> GC.class_histogram}; lines it does not know are skipped.
     */
    static Histogram parse(String text) {
        Map<String, Long> bytes = new LinkedHashMap<>();
        Map<String, Long> instances = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                bytes.merge(m.group(3), Long.parseLong(m.group(2)), Long::sum);
                instances.merge(m.group(3), Long.parseLong(m.group(1)), Long::sum);
            }
        }
        return new Histogram(bytes, instances);
    }

    /** The {@code top} classes whose live bytes grew most from {@code first} to {@code last}. */
    static List<ClassGrowth> top(Histogram first, Histogram last, int top) {
        Set<String> names = new HashSet<>(first.bytes().keySet());
        names.addAll(last.bytes().keySet());
        List<ClassGrowth> out = new ArrayList<>();
        for (String name : names) {
            out.add(
                    new ClassGrowth(
                            name,
                            first.bytes().getOrDefault(name, 0L),
                            last.bytes().getOrDefault(name, 0L),
                            first.instances().getOrDefault(name, 0L),
                            last.instances().getOrDefault(name, 0L)));
        }
        out.sort(Comparator.comparingLong(ClassGrowth::bytes).reversed());
        return out.subList(0, Math.min(top, out.size()));
    }
}
