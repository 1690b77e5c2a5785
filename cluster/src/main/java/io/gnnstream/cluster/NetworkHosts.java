package io.gnnstream.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Hosts made of Linux network namespaces joined by a bridge ({@code docs/hosts.sh}): host {@code i}
 * has the address {@code 10.77.0.i} and this machine reaches them all through the bridge. Needs
 * root (CAP_NET_ADMIN); {@link #available} says whether this machine can make them. {@link #close}
 * kills whatever still runs on them and removes the namespaces and the bridge, also after a failed
 * test.
 */
public final class NetworkHosts implements AutoCloseable {

    private final Path script;
    private final int count;

    private NetworkHosts(Path script, int count) {
        this.script = script;
        this.count = count;
    }

    /** Whether this process may create network namespaces (root with {@code ip}). */
    public static boolean available(Path home) {
        if (!"root".equals(System.getProperty("user.name"))
                || !Files.isExecutable(Path.of("/usr/sbin/ip"))
                        && !Files.isExecutable(Path.of("/sbin/ip"))
                        && !Files.isExecutable(Path.of("/usr/bin/ip"))) {
            return false;
        }
        return Files.isExecutable(home.resolve("docs").resolve("hosts.sh"));
    }

    /** Removes hosts left by an earlier run and creates {@code count} new ones. */
    public static NetworkHosts create(Path home, int count) throws IOException {
        NetworkHosts hosts = new NetworkHosts(home.resolve("docs").resolve("hosts.sh"), count);
        hosts.run("down");
        hosts.run("up", Integer.toString(count));
        return hosts;
    }

    /** Host {@code i}'s address. */
    public String address(int host) {
        return "10.77.0." + host;
    }

    /** A command that runs {@code command} on host {@code i}. */
    public List<String> on(int host, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of(script.toString(), "exec", host + ""));
        cmd.addAll(command);
        return cmd;
    }

    /** Cuts ({@code false}) or restores host {@code i}'s link to every other host. */
    public void link(int host, boolean up) throws IOException {
        run("link", Integer.toString(host), up ? "up" : "down");
    }

    /** The processes running on host {@code i}. */
    public List<Long> pids(int host) throws IOException {
        String out = output(true, "ip", "netns", "pids", "gns-h" + host);
        return Arrays.stream(out.split("\\s+"))
                .filter(s -> !s.isBlank())
                .map(Long::parseLong)
                .collect(Collectors.toList());
    }

    /** Sends {@code signal} (KILL, STOP, CONT) to every process of host {@code i}. */
    public List<Long> signal(int host, String signal) throws IOException {
        List<Long> pids = pids(host);
        if (!pids.isEmpty()) {
            List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal));
            pids.forEach(p -> cmd.add(Long.toString(p)));
            // a process may exit between the listing and the signal
            output(false, cmd.toArray(new String[0]));
        }
        return pids;
    }

    /** Kills whatever runs on the hosts and removes them. */
    @Override
    public void close() throws IOException {
        for (int i = 1; i <= count; i++) {
            signal(i, "CONT");
            signal(i, "KILL");
        }
        run("down");
    }

    private void run(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(script.toString()));
        cmd.addAll(Arrays.asList(args));
        output(true, cmd.toArray(new String[0]));
    }

    private static String output(boolean check, String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new IOException(String.join(" ", cmd) + " did not finish");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (check && p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + out);
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        } finally {
            p.destroyForcibly();
        }
    }
}
