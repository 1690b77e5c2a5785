package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One {@code demo} run of {@link ScaleBenchmark} in a child JVM, launched as {@code bin/gnnstream}
 * launches it (the parent's system properties and module openings, {@code -Xms6g -Xmx6g -Xmn1g},
 * the parallel collector and transparent huge pages where the kernel offers them), watched from
 * outside: its output lines with the time they appeared, the peak RSS of the JVM and of the broker
 * it starts (sampled every second), the JVM's own accounting of its memory at the largest RSS seen
 * ({@code jcmd VM.native_memory}), the bytes the job's local files take on disk (RocksDB's
 * instances among them), and the job's checkpoint statistics from Flink's REST API. The child's
 * output is copied to {@code demo.log} in the run's folder.
 */
final class ScaleRun {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern BROKER = Pattern.compile("Kafka broker on \\S+ \\(pid (\\d+)\\)");
    private static final Pattern WEB_UI = Pattern.compile("Flink Web UI: (http://\\S+)");
    private static final Pattern ROUND =
            Pattern.compile(
                    "Evaluation round of step (\\d+): ([\\d.]+) s \\((.*)\\), (\\d+) blocks over"
                            + " (\\d+) ranks");
    private static final Pattern LAYER = Pattern.compile("layer (\\d+) ([\\d.]+) s");

    final Path dir;
    final List<String> output = new ArrayList<>();
    final List<Double> outputSeconds = new ArrayList<>();
    long peakRss;
    long peakBrokerRss;

    /**
     * At the largest RSS sampled with {@code jcmd}: committed heap and all the JVM accounts for.
     */
    long heapCommitted;

    long jvmCommitted;
    long rssAtAccounting;
    long peakLocalDiskBytes;
    long checkpoints;
    long checkpointBytes;
    long checkpointFullBytes;
    double checkpointSeconds;
    int exitCode = -1;

    ScaleRun(Path dir) {
        this.dir = dir;
    }

    /**
     * Runs {@code demo} with {@code args}; returns when it ends (or after {@code timeout}, killing
     * it).
     */
    ScaleRun run(List<String> args, Duration timeout, PrintStream log) throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms6g");
        command.add("-Xmx6g");
        command.add("-Xmn1g");
        command.add("-XX:+UseParallelGC");
        if (kernelOffersHugePages()) {
            command.add("-XX:+UseTransparentHugePages");
        }
        command.add("-XX:NativeMemoryTracking=summary");
        command.add("-Djava.io.tmpdir=" + dir.resolve("tmp").toAbsolutePath());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if ((a.startsWith("-D") && !a.startsWith("-Djava.io.tmpdir"))
                    || a.startsWith("--add-opens")) {
                command.add(a);
            }
        }
        command.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.gnnstream.cli.GnnstreamCli",
                        "demo"));
        command.addAll(args);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        long started = System.nanoTime();
        Thread reader = new Thread(() -> read(child, started, log), "scale-run-output");
        reader.setDaemon(true);
        reader.start();
        try {
            long lastAccounting = 0;
            long lastCheckpointPoll = 0;
            while (!child.waitFor(1, TimeUnit.SECONDS)) {
                if (System.nanoTime() - started > timeout.toNanos()) {
                    log.println("  run exceeded " + timeout.toMinutes() + " min; stopping it");
                    break;
                }
                long rss = rss(child.pid());
                peakRss = Math.max(peakRss, rss);
                long broker = brokerPid();
                if (broker > 0) {
                    peakBrokerRss = Math.max(peakBrokerRss, rss(broker));
                }
                long now = System.nanoTime();
                if (rss >= rssAtAccounting && now - lastAccounting > 10_000_000_000L) {
                    lastAccounting = now;
                    account(child.pid(), rss);
                }
                if (now - lastCheckpointPoll > 5_000_000_000L) {
                    lastCheckpointPoll = now;
                    peakLocalDiskBytes =
                            Math.max(peakLocalDiskBytes, bytesUnder(dir.resolve("tmp")));
                    pollCheckpoints();
                }
            }
        } finally {
            child.descendants().forEach(ProcessHandle::destroy);
            child.destroy();
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
            }
            reader.join(5_000);
        }
        exitCode = child.exitValue();
        return this;
    }

    private void read(Process child, long started, PrintStream log) {
        try (BufferedReader in =
                        new BufferedReader(
                                new InputStreamReader(
                                        child.getInputStream(), StandardCharsets.UTF_8));
                java.io.BufferedWriter copy =
                        Files.newBufferedWriter(dir.resolve("demo.log"), StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                copy.write(line);
                copy.newLine();
                copy.flush();
                synchronized (output) {
                    output.add(line);
                    outputSeconds.add((System.nanoTime() - started) / 1e9);
                }
                if (line.startsWith("step")
                        || line.startsWith("final")
                        || line.startsWith("Produced")
                        || line.startsWith("gnnstream demo")
                        || line.startsWith("error")
                        || line.contains("Evaluation round")
                        || line.contains("Training starts")
                        || line.contains("OutOfMemory")) {
                    log.println("  " + line);
                }
            }
        } catch (IOException e) {
            log.println("  output ended: " + e.getMessage());
        }
    }

    /**
     * Seconds from the start when the first output line containing {@code text} appeared, or NaN.
     */
    double secondsAt(String text) {
        synchronized (output) {
            for (int i = 0; i < output.size(); i++) {
                if (output.get(i).contains(text)) {
                    return outputSeconds.get(i);
                }
            }
        }
        return Double.NaN;
    }

    /** The first output line matching {@code pattern}, or null. */
    Matcher find(Pattern pattern) {
        synchronized (output) {
            for (String line : output) {
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
        }
        return null;
    }

    /** The first evaluation round's seconds in all and per layer (index 0: all), or null. */
    double[] roundSeconds() {
        Matcher m = find(ROUND);
        if (m == null) {
            return null;
        }
        List<Double> out = new ArrayList<>(List.of(Double.parseDouble(m.group(2))));
        Matcher layer = LAYER.matcher(m.group(3));
        while (layer.find()) {
            out.add(Double.parseDouble(layer.group(2)));
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** The last output line starting with {@code prefix}, or null. */
    String lastLine(String prefix) {
        synchronized (output) {
            for (int i = output.size() - 1; i >= 0; i--) {
                if (output.get(i).startsWith(prefix)) {
                    return output.get(i);
                }
            }
        }
        return null;
    }

    private long brokerPid() {
        Matcher m = find(BROKER);
        return m == null ? -1 : Long.parseLong(m.group(1));
    }

    private static long rss(long pid) {
        try {
            return RssSampler.current(pid);
        } catch (IOException | IllegalArgumentException gone) {
            return 0;
        }
    }

    /**
     * The JVM's accounting of its memory ({@code jcmd VM.native_memory summary}), kept for the
     * largest RSS.
     */
    private void account(long pid, long rss) {
        try {
            Process jcmd =
                    new ProcessBuilder(
                                    Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                            .toString(),
                                    Long.toString(pid),
                                    "VM.native_memory",
                                    "summary",
                                    "scale=KB")
                            .redirectErrorStream(true)
                            .start();
            String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return;
            }
            long heap = committedKb(text, "Java Heap (");
            long total = committedKb(text, "Total: ");
            if (heap > 0 && total > 0) {
                heapCommitted = heap * 1024;
                jvmCommitted = total * 1024;
                rssAtAccounting = rss;
            }
        } catch (IOException | InterruptedException e) {
            // No accounting this time.
        }
    }

    private static long committedKb(String text, String section) {
        int at = text.indexOf(section);
        if (at < 0) {
            return -1;
        }
        Matcher m = Pattern.compile("committed=(\\d+)KB").matcher(text.substring(at));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private void pollCheckpoints() {
        Matcher ui = find(WEB_UI);
        if (ui == null) {
            return;
        }
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            JsonNode jobs = get(http, ui.group(1) + "/jobs/overview");
            for (JsonNode job : jobs.path("jobs")) {
                if (!"RUNNING".equals(job.path("state").asText())) {
                    continue;
                }
                JsonNode stats =
                        get(
                                http,
                                ui.group(1) + "/jobs/" + job.path("jid").asText() + "/checkpoints");
                checkpoints =
                        Math.max(checkpoints, stats.path("counts").path("completed").asLong());
                JsonNode latest = stats.path("latest").path("completed");
                if (!latest.isMissingNode() && !latest.isNull()) {
                    checkpointBytes =
                            Math.max(checkpointBytes, latest.path("checkpointed_size").asLong());
                    checkpointFullBytes =
                            Math.max(checkpointFullBytes, latest.path("state_size").asLong());
                    checkpointSeconds =
                            Math.max(
                                    checkpointSeconds,
                                    latest.path("end_to_end_duration").asLong() / 1000.0);
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // The job may be starting or ending.
        }
    }

    private static JsonNode get(HttpClient http, String url)
            throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static long bytesUnder(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(
                            p -> {
                                try {
                                    return Files.size(p);
                                } catch (IOException gone) {
                                    return 0;
                                }
                            })
                    .sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    /**
     * Whether the kernel gives a process transparent huge pages it asks for, as the launcher
     * checks.
     */
    private static boolean kernelOffersHugePages() {
        try {
            String mode = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
            return mode.contains("[always]") || mode.contains("[madvise]");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
