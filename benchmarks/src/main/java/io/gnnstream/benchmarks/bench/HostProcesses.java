package io.gnnstream.benchmarks.bench;

import io.gnnstream.cli.GnnstreamCli;
import io.gnnstream.cluster.NetworkHosts;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The processes of {@link NetworkHosts}' hosts for a benchmark: {@code gnnstream} commands run on a
 * host as a user runs them there, and the peak RSS of every process that ran on a host, read as the
 * kernel's high-water mark ({@code VmHWM} of {@code /proc/<pid>/status}) every {@value #PERIOD_MS}
 * ms by a daemon thread, so a process killed keeps the peak of its last read.
 */
final class HostProcesses implements AutoCloseable {

    static final long PERIOD_MS = 1000;

    private final NetworkHosts hosts;
    private final int count;
    private final Path logs;
    private final Map<Long, Peak> peaks = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    /** A process's host, role (its main class) and peak RSS in bytes. */
    record Peak(int host, long pid, String role, long bytes) {}

    HostProcesses(NetworkHosts hosts, int count, Path logs) {
        this.hosts = hosts;
        this.count = count;
        this.logs = logs;
        thread = new Thread(this::loop, "host-rss");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Starts {@code gnnstream args} on host {@code host}, its output in {@code <logs>/name.out}.
     */
    Process start(int host, String name, String... args) throws IOException {
        return new ProcessBuilder(hosts.on(host, command(args)))
                .redirectErrorStream(true)
                .redirectOutput(
                        ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".out").toFile()))
                .start();
    }

    /** Runs {@code gnnstream args} on host {@code host} to its end (at most 3 minutes). */
    void run(int host, String name, PrintStream log, String... args) throws Exception {
        Process p = start(host, name, args);
        try {
            if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(
                        "gnnstream "
                                + String.join(" ", args)
                                + " on host "
                                + host
                                + " failed; see "
                                + logs.resolve(name + ".out"));
            }
        } finally {
            p.destroyForcibly();
        }
        log.println("  host " + host + ": " + name + " started");
    }

    /** The peaks of every process seen, by host. */
    List<Peak> peaks() {
        sample();
        List<Peak> out = new ArrayList<>(peaks.values());
        out.sort((a, b) -> a.host != b.host ? a.host - b.host : Long.compare(a.pid, b.pid));
        return out;
    }

    /** The largest peak per host and role, e.g. {@code "h2 TaskManagerRunner" -> bytes}. */
    Map<String, Long> peaksByRole() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Peak p : peaks()) {
            out.merge("h" + p.host + " " + p.role, p.bytes, Math::max);
        }
        return out;
    }

    /** Stops the sampling; the processes themselves are the caller's to stop. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }

    private void loop() {
        while (running) {
            sample();
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void sample() {
        for (int host = 1; host <= count; host++) {
            List<Long> pids;
            try {
                pids = hosts.pids(host);
            } catch (IOException e) {
                continue;
            }
            for (long pid : pids) {
                try {
                    String status =
                            Files.readString(Path.of("/proc", Long.toString(pid), "status"));
                    long bytes = kib(status, "VmHWM:") * 1024;
                    if (bytes == 0) {
                        continue;
                    }
                    Peak before = peaks.get(pid);
                    String role = before != null ? before.role : role(pid);
                    peaks.put(
                            pid,
                            new Peak(
                                    host,
                                    pid,
                                    role,
                                    Math.max(bytes, before == null ? 0 : before.bytes)));
                } catch (IOException gone) {
                    // the process ended between the listing and the read
                }
            }
        }
    }

    private static long kib(String status, String field) {
        for (String line : status.split("\n")) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
            }
        }
        return 0;
    }

    /** The process's main class (simple name), or its executable's name. */
    private static String role(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        String[] args = new String(raw, StandardCharsets.UTF_8).split("\0");
        String last = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")) {
                i++;
            } else if (!a.startsWith("-") && i > 0 && a.matches("[\\w.$]+\\.[A-Z][\\w$]*")) {
                return a.substring(a.lastIndexOf('.') + 1);
            } else if (i == 0) {
                last = Path.of(a).getFileName().toString();
            }
        }
        return last == null ? "?" : last;
    }

    /** {@code gnnstream args} as a child JVM of this one's classpath. */
    private static List<String> command(String... args) {
        Path home = Path.of(System.getProperty("gnnstream.home", ".")).toAbsolutePath();
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx512m",
                                "-Dgnnstream.home=" + home,
                                "-Dgnnstream.kafka.lib="
                                        + System.getProperty("gnnstream.kafka.lib"),
                                "-Dlog4j.configurationFile="
                                        + home.resolve("flink-conf")
                                                .resolve("log4j2-cli.properties"),
                                "-cp",
                                System.getProperty("java.class.path"),
                                GnnstreamCli.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
