package io.gnnstream.operators.schedule;

import io.gnnstream.state.VertexKey;
import java.util.HashMap;
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

/**
 * Keyed value state in a map, for the simulator's GraphStore: one value per {@link VertexKey}, the
 * current key set through {@link #key}. Snapshots copy the map.
 */
final class MemoryValueStore implements KeyedStateStore {

    private final Map<VertexKey, long[]> values;
    private VertexKey current;

    MemoryValueStore(Map<VertexKey, long[]> values) {
        this.values = values;
    }

    void key(VertexKey key) {
        current = key;
    }

    /** A deep copy of the stored values. */
    Map<VertexKey, long[]> copy() {
        Map<VertexKey, long[]> c = new HashMap<>();
        values.forEach((k, v) -> c.put(k, v.clone()));
        return c;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return (ValueState<T>)
                new ValueState<long[]>() {
                    @Override
                    public long[] value() {
                        return values.get(current);
                    }

                    @Override
                    public void update(long[] value) {
                        values.put(current, value);
                    }

                    @Override
                    public void clear() {
                        values.remove(current);
                    }
                };
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <I, A, O> AggregatingState<I, O> getAggregatingState(
            AggregatingStateDescriptor<I, A, O> descriptor) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        throw new UnsupportedOperationException();
    }
}
