package io.gnnstream.tools.internal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Helpers for running child JVMs on loopback: java binary, free ports, port probes, log tails. */
public final class Processes {

    private static final int TAIL_BYTES = 8 * 1024;

    private Processes() {}

    /** The java launcher of the running JVM, so the child uses the same Java version. */
    public static String javaBinary() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Files.isExecutable(java)) {
            return java.toString();
        }
        return ProcessHandle.current().info().command().orElse("java");
    }

    /**
     * {@code count} distinct free ports of {@code host}. All sockets are held open until every port
     * is known, so the ports differ; another process may still take one before the child binds it,
     * which shows as a bind error in the child's log.
     */
    public static int[] freePorts(String host, int count) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 1, address);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    /** Whether something accepts TCP connections on {@code host}'s port. */
    public static boolean isListening(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The last few kilobytes of a log file, for error messages; a note if it cannot be read. */
    public static String tail(Path file) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, raf.length() - TAIL_BYTES);
            byte[] bytes = new byte[(int) (raf.length() - start)];
            raf.seek(start);
            raf.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            return start == 0 ? text : "…" + text.substring(Math.max(0, text.indexOf('\n') + 1));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    /** Stops a process: SIGTERM, then SIGKILL if it has not exited within the grace period. */
    public static void stop(Process process, long graceMillis) {
        process.destroy();
        try {
            if (!process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(graceMillis, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
