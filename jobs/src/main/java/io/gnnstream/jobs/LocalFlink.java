package io.gnnstream.jobs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A local MiniCluster with the Web UI, configured from {@code flink-conf/} plus the job's settings.
 */
public final class LocalFlink {

    /** System property set by {@code bin/gnnstream}: the project's {@code flink-conf} directory. */
    public static final String CONF_DIR_PROPERTY = "gnnstream.flink.conf";

    private LocalFlink() {}

    public static StreamExecutionEnvironment environment(
            Configuration job, int parallelism, int webPort) throws IOException {
        Configuration conf = baseConfiguration();
        conf.addAll(job);
        int port = webPort > 0 ? webPort : freePort(8081);
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.PORT, port);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(conf);
        env.setParallelism(parallelism);
        System.out.println("Flink Web UI: http://localhost:" + port);
        return env;
    }

    private static Configuration baseConfiguration() {
        String dir = System.getProperty(CONF_DIR_PROPERTY);
        if (dir != null && Files.isRegularFile(Path.of(dir, "config.yaml"))) {
            return GlobalConfiguration.loadConfiguration(dir);
        }
        return new Configuration();
    }

    /** The preferred port when it is free, else any free port. */
    public static int freePort(int preferred) throws IOException {
        try (ServerSocket s = new ServerSocket(preferred, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException busy) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            }
        }
    }
}
