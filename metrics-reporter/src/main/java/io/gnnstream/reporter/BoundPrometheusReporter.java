package io.gnnstream.reporter;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.Iterator;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;

/**
 * Flink's Prometheus reporter with its HTTP server on one address: the first free port of a range
 * on {@code host}, or on every interface when no host is given (as Flink's own reporter).
 */
public final class BoundPrometheusReporter extends AbstractPrometheusReporter {

    private final HTTPServer server;
    private final InetSocketAddress address;

    BoundPrometheusReporter(String host, Iterator<Integer> ports) {
        CollectorRegistry registry = registry(this);
        HTTPServer started = null;
        InetSocketAddress at = null;
        IOException last = null;
        while (started == null && ports.hasNext()) {
            int port = ports.next();
            at = host == null ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
            try {
                started = new HTTPServer(at, registry, true);
            } catch (IOException e) {
                last = e;
            }
        }
        if (started == null) {
            throw new IllegalStateException(
                    "no free port for the Prometheus reporter on "
                            + (host == null ? "any address" : host)
                            + " in the configured range",
                    last);
        }
        this.server = started;
        this.address = new InetSocketAddress(at.getAddress(), started.getPort());
        log.info("Prometheus reporter listens on {}.", address);
    }

    /** Where the server listens. */
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public void close() {
        server.stop();
        super.close();
    }

    /**
     * The registry the base class fills with the metrics; it is package-private there, and the HTTP
     * server must serve that one.
     */
    private static CollectorRegistry registry(AbstractPrometheusReporter reporter) {
        try {
            Field field = AbstractPrometheusReporter.class.getDeclaredField("registry");
            field.setAccessible(true);
            return (CollectorRegistry) field.get(reporter);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "this flink-metrics-prometheus has no registry field the reporter can serve",
                    e);
        }
    }
}
