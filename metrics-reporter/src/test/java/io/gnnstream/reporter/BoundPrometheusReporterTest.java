package io.gnnstream.reporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import org.apache.flink.metrics.CharacterFilter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.LogicalScopeProvider;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BoundPrometheusReporterTest {

    @Test
    void servesTheMetricsOnTheConfiguredAddressOnly() throws Exception {
        BoundPrometheusReporter reporter = create("127.0.0.1", "19249-19268");
        try {
            reporter.open(new MetricConfig());
            Gauge<Double> loss = () -> 0.25;
            reporter.notifyOfAddedMetric(loss, "loss", new TrainingGroup());
            InetSocketAddress at = reporter.address();
            assertEquals(InetAddress.getByName("127.0.0.1"), at.getAddress());
            String body = get("http://127.0.0.1:" + at.getPort() + "/metrics");
            assertTrue(body.contains("training_loss 0.25"), body);
            // Another loopback address of this host: nothing listens there.
            try (Socket s = new Socket()) {
                assertThrows(
                        ConnectException.class,
                        () -> s.connect(new InetSocketAddress("127.0.0.2", at.getPort()), 2000));
            }
        } finally {
            reporter.close();
        }
    }

    @Test
    void takesTheNextPortOfTheRangeWhenOneIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            BoundPrometheusReporter reporter =
                    create("127.0.0.1", port + "-" + Math.min(65535, port + 5));
            try {
                assertTrue(reporter.address().getPort() > port, reporter.address().toString());
            } finally {
                reporter.close();
            }
            IllegalStateException full =
                    assertThrows(
                            IllegalStateException.class,
                            () -> create("127.0.0.1", Integer.toString(port)));
            assertTrue(full.getMessage().contains("127.0.0.1"), full.getMessage());
        }
    }

    /** A metric group with the logical scope the reporter names metrics by. */
    private static final class TrainingGroup extends UnregisteredMetricsGroup
            implements LogicalScopeProvider {
        @Override
        public String getLogicalScope(CharacterFilter filter) {
            return "training";
        }

        @Override
        public String getLogicalScope(CharacterFilter filter, char delimiter) {
            return "training";
        }

        @Override
        public MetricGroup getWrappedMetricGroup() {
            return this;
        }
    }

    private static BoundPrometheusReporter create(String host, String ports) {
        Properties p = new Properties();
        p.setProperty(BoundPrometheusReporterFactory.HOST, host);
        p.setProperty(BoundPrometheusReporterFactory.PORT, ports);
        return new BoundPrometheusReporterFactory().createMetricReporter(p);
    }

    private static String get(String url) throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
