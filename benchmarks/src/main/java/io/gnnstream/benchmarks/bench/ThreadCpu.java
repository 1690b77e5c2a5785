package io.gnnstream.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU seconds per thread of processes on this machine, read from {@code /proc} (Linux), so that
 * native threads (RocksDB's compactions, OpenBLAS), the JIT compilers and a broker process count as
 * well as Java code; empty elsewhere. Threads are grouped by name ({@link #group}); Linux keeps 15
 * characters of a thread's name.
 */
final class ThreadCpu {

    private static final double TICKS_PER_SECOND = 100; // USER_HZ on Linux

    private final Map<String, Double> seconds;

    private ThreadCpu(Map<String, Double> seconds) {
        this.seconds = seconds;
    }

    /** The CPU seconds so far of the threads of processes {@code pids}, by process and name. */
    static ThreadCpu of(long... pids) {
        Map<String, Double> s = new HashMap<>();
        for (long pid : pids) {
            String process = pid == ProcessHandle.current().pid() ? "" : "broker: ";
            Path tasks = Path.of("/proc", Long.toString(pid), "task");
            try (Stream<Path> list = Files.list(tasks)) {
                for (Path task : (Iterable<Path>) list::iterator) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        int open = stat.indexOf('(');
                        int close = stat.lastIndexOf(')');
                        String[] f = stat.substring(close + 2).split(" ");
                        double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12]));
                        s.merge(
                                process + group(stat.substring(open + 1, close)),
                                cpu / TICKS_PER_SECOND,
                                Double::sum);
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                // no /proc: nothing to report
            }
        }
        return new ThreadCpu(s);
    }

    /** The name up to a parenthesis or '#', without a trailing number: one group per pool. */
    static String group(String name) {
        String g = name.split("[(#]", 2)[0].replaceAll("[-_ :]*\\d*$", "").strip();
        return g.isEmpty() ? name : g;
    }

    /**
     * The {@code n} groups that used the most CPU since {@code before}, as "seconds name" lines.
     */
    List<String> topSince(ThreadCpu before, int n) {
        List<Map.Entry<String, Double>> d = new ArrayList<>();
        for (Map.Entry<String, Double> e : seconds.entrySet()) {
            double was = before.seconds.getOrDefault(e.getKey(), 0.0);
            d.add(Map.entry(e.getKey(), e.getValue() - was));
        }
        d.sort((a, b) -> Double.compare(b.getValue(), a.getValue()));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(n, d.size()); i++) {
            out.add(String.format("%6.1f s %s", d.get(i).getValue(), d.get(i).getKey()));
        }
        return out;
    }
}
