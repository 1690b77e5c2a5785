package io.gnnstream.reporter;

import java.util.Properties;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.NetUtils;

/**
 * Creates a {@link BoundPrometheusReporter} from {@code metrics.reporter.<name>.host} (an address;
 * absent or blank: every interface) and {@code metrics.reporter.<name>.port} (a port or a range
 * {@code FROM-TO}; default 9249).
 */
public final class BoundPrometheusReporterFactory implements MetricReporterFactory {

    public static final String HOST = "host";
    public static final String PORT = "port";
    static final String DEFAULT_PORT = "9249";

    @Override
    public BoundPrometheusReporter createMetricReporter(Properties properties) {
        String host = properties.getProperty(HOST, "").trim();
        String ports = properties.getProperty(PORT, DEFAULT_PORT);
        return new BoundPrometheusReporter(
                host.isEmpty() ? null : host, NetUtils.getPortRangeFromString(ports));
    }
}
