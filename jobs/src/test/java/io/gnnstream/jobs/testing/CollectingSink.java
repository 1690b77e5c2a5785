package io.gnnstream.jobs.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * A sink that hands every record to a queue of the test's JVM (the MiniCluster runs in it), named
 * so that the sink itself stays serializable. At-least-once: a restored job may deliver again.
 */
public final class CollectingSink<T> implements Sink<T> {

    private static final Map<String, LinkedBlockingQueue<Object>> QUEUES =
            new ConcurrentHashMap<>();

    private final String name;

    private CollectingSink(String name) {
        this.name = name;
    }

    /** A sink writing into a fresh queue named {@code name}. */
    public static <T> CollectingSink<T> named(String name) {
        QUEUES.put(name, new LinkedBlockingQueue<>());
        return new CollectingSink<>(name);
    }

    /** The queue the sink writes into. */
    @SuppressWarnings("unchecked")
    public LinkedBlockingQueue<T> queue() {
        return (LinkedBlockingQueue<T>) (LinkedBlockingQueue<?>) QUEUES.get(name);
    }

    /** Everything received so far. */
    public List<T> received() {
        return List.copyOf(queue());
    }

    @Override
    @SuppressWarnings("deprecation")
    public SinkWriter<T> createWriter(InitContext context) {
        LinkedBlockingQueue<T> queue = queue();
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context context) {
                queue.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
