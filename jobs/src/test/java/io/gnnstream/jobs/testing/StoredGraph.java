package io.gnnstream.jobs.testing;

import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.store.HaloReplicas;
import io.gnnstream.operators.store.OutEdgeIndex;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.AggregatingState;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * The graph a GraphStore holds, read out of a canonical savepoint of the training job with Flink's
 * State Processor API: every vertex's record and in-neighbours, the out-edge index and the halo
 * replicas, as {@link GraphComparison} compares them with a {@link ReferenceGraph}.
 */
public final class StoredGraph {

    /** Vertex -> its attribute record as stored. */
    public final Map<Long, byte[]> records = new HashMap<>();

    /** Vertex -> its in-neighbours, ascending (vertices without any are absent). */
    public final Map<Long, long[]> inNeighbours = new HashMap<>();

    /** "partition:source" -> the targets of the out-edge index entry, ascending. */
    public final Map<String, long[]> outEdges = new HashMap<>();

    /** "holder:vertex" -> the halo replica's stored value (status byte, then the record). */
    public final Map<String, byte[]> replicas = new HashMap<>();

    /** The partitions whose out-edge index is built. */
    public final java.util.Set<Integer> indexed = new java.util.HashSet<>();

    private StoredGraph() {}

    /**
     * Reads the GraphStore's keyed state (operator uid {@code graph-store}) of {@code savepoint}.
     */
    public static StoredGraph read(String savepoint) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        SavepointReader reader = SavepointReader.read(env, savepoint, new HashMapStateBackend());
        StoredGraph graph = new StoredGraph();
        try (CloseableIterator<String> lines =
                reader.readKeyedState(
                                OperatorIdentifier.forUid("graph-store"),
                                new Reader(),
                                VertexKeyTypeInfo.INSTANCE,
                                Types.STRING)
                        .executeAndCollect()) {
            while (lines.hasNext()) {
                graph.add(lines.next());
            }
        }
        return graph;
    }

    private void add(String line) {
        String[] f = line.split(" ", -1);
        switch (f[0]) {
            case "R" -> records.put(Long.parseLong(f[1]), Base64.getDecoder().decode(f[2]));
            case "I" -> inNeighbours.put(Long.parseLong(f[1]), longs(f, 2));
            case "O" -> outEdges.put(f[1] + ":" + f[2], longs(f, 3));
            case "H" -> replicas.put(f[1] + ":" + f[2], Base64.getDecoder().decode(f[3]));
            case "B" -> indexed.add(Integer.parseInt(f[1]));
            default -> throw new IllegalStateException("unknown state line " + line);
        }
    }

    private static long[] longs(String[] f, int from) {
        long[] out = new long[f.length - from];
        for (int i = from; i < f.length; i++) {
            out[i - from] = Long.parseLong(f[i]);
        }
        Arrays.sort(out);
        return out;
    }

    /**
     * One line per kind of state a key holds: R(ecord), I(n-neighbours), O(ut-edges), H(alo), and
     * B(uilt) for a partition anchor whose out-edge index is built.
     */
    private static final class Reader extends KeyedStateReaderFunction<VertexKey, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<byte[]> attributes;
        private transient InAdjacency adjacency;
        private transient MapState<Long, Boolean> outEdges;
        private transient ValueState<byte[]> replicas;
        private transient ValueState<Boolean> indexBuilt;

        @Override
        public void open(Configuration parameters) {
            KeyedStateStore store = new ContextStore();
            attributes = store.getState(GraphStoreOperator.ATTRIBUTES);
            adjacency = InAdjacency.of(store);
            outEdges = store.getMapState(OutEdgeIndex.STATE);
            replicas = store.getState(HaloReplicas.REPLICAS);
            indexBuilt = store.getState(OutEdgeIndex.BUILT);
        }

        @Override
        public void readKey(VertexKey key, Context context, Collector<String> out)
                throws Exception {
            if (key.isAnchor()) {
                if (Boolean.TRUE.equals(indexBuilt.value())) {
                    out.collect("B " + key.partition());
                }
                return;
            }
            byte[] record = attributes.value();
            if (record != null) {
                out.collect("R " + key.vertex() + " " + Base64.getEncoder().encodeToString(record));
            }
            long[] in = adjacency.neighbours();
            if (in.length > 0) {
                out.collect("I " + key.vertex() + join(in));
            }
            List<Long> targets = new ArrayList<>();
            outEdges.keys().forEach(targets::add);
            if (!targets.isEmpty()) {
                out.collect(
                        "O "
                                + key.partition()
                                + " "
                                + key.vertex()
                                + join(targets.stream().mapToLong(Long::longValue).toArray()));
            }
            byte[] replica = replicas.value();
            if (replica != null) {
                out.collect(
                        "H "
                                + key.partition()
                                + " "
                                + key.vertex()
                                + " "
                                + Base64.getEncoder().encodeToString(replica));
            }
        }

        private static String join(long[] values) {
            StringBuilder s = new StringBuilder();
            for (long v : values) {
                s.append(' ').append(v);
            }
            return s.toString();
        }

        /** The reader's runtime context as the keyed state store the GraphStore's classes take. */
        private final class ContextStore implements KeyedStateStore {
            @Override
            public <T> ValueState<T> getState(ValueStateDescriptor<T> d) {
                return getRuntimeContext().getState(d);
            }

            @Override
            public <T> ListState<T> getListState(ListStateDescriptor<T> d) {
                return getRuntimeContext().getListState(d);
            }

            @Override
            public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> d) {
                return getRuntimeContext().getReducingState(d);
            }

            @Override
            public <I, A, O> AggregatingState<I, O> getAggregatingState(
                    AggregatingStateDescriptor<I, A, O> d) {
                return getRuntimeContext().getAggregatingState(d);
            }

            @Override
            public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> d) {
                return getRuntimeContext().getMapState(d);
            }
        }
    }
}
