package io.gnnstream.operators.store;

import io.gnnstream.state.VertexKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
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
 * Keyed value, map and list state in heap maps, for running a {@link GraphStore} without Flink: per
 * state name, per {@link VertexKey}, a value or a map, under the key made current by {@link
 * #setCurrentKey}. Values of arrays are copied in and out, as RocksDB's serialized state would, so
 * the store never shares an array with its user; {@link #copy} is a deep snapshot and {@link #keys}
 * lists the keys holding a state.
 */
public final class MemoryStateStore implements KeyedStateStore {

    private static final Comparator<VertexKey> KEY_ORDER =
            Comparator.comparingInt(VertexKey::partition).thenComparingLong(VertexKey::vertex);

    /** Per state name and key: a value state's value, or a map state's (non-empty) map. */
    private final Map<String, Map<VertexKey, Object>> states;

    private VertexKey current;

    /** Per value state's name: how often its value was read. */
    private final Map<String, Long> reads = new HashMap<>();

    public MemoryStateStore() {
        this(new HashMap<>());
    }

    private MemoryStateStore(Map<String, Map<VertexKey, Object>> states) {
        this.states = states;
    }

    public void setCurrentKey(VertexKey key) {
        current = key;
    }

    /** How often the value state {@code name} was read in this copy. */
    public long reads(String name) {
        return reads.getOrDefault(name, 0L);
    }

    /** The keys holding a value of {@code state} that {@code which} accepts, in key order. */
    public List<VertexKey> keys(String state, Predicate<VertexKey> which) {
        List<VertexKey> out = new ArrayList<>();
        for (VertexKey key : states.getOrDefault(state, Map.of()).keySet()) {
            if (which.test(key)) {
                out.add(key);
            }
        }
        out.sort(KEY_ORDER);
        return out;
    }

    /** A deep copy of every state (a snapshot); the copy has no current key. */
    public MemoryStateStore copy() {
        Map<String, Map<VertexKey, Object>> c = new HashMap<>();
        states.forEach(
                (name, byKey) -> {
                    Map<VertexKey, Object> values = new HashMap<>();
                    byKey.forEach((key, value) -> values.put(key, deepCopy(value)));
                    c.put(name, values);
                });
        return new MemoryStateStore(c);
    }

    @SuppressWarnings("unchecked")
    private static Object deepCopy(Object value) {
        if (value instanceof List<?> list) {
            List<Object> c = new ArrayList<>();
            list.forEach(v -> c.add(copyOf(v)));
            return c;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> c = new LinkedHashMap<>();
            ((Map<Object, Object>) map).forEach((k, v) -> c.put(k, copyOf(v)));
            return c;
        }
        return copyOf(value);
    }

    /** A copy of an array value; other values (boxed numbers, booleans) are immutable. */
    @SuppressWarnings("unchecked")
    static <T> T copyOf(T value) {
        if (value instanceof byte[] a) {
            return (T) a.clone();
        } else if (value instanceof long[] a) {
            return (T) a.clone();
        } else if (value instanceof int[] a) {
            return (T) a.clone();
        } else if (value instanceof float[] a) {
            return (T) a.clone();
        }
        return value;
    }

    private Map<VertexKey, Object> state(String name) {
        if (current == null) {
            throw new IllegalStateException("no current key");
        }
        return states.computeIfAbsent(name, n -> new HashMap<>());
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        String name = descriptor.getName();
        return new ValueState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public T value() {
                reads.merge(name, 1L, Long::sum);
                return copyOf((T) state(name).get(current));
            }

            @Override
            public void update(T value) {
                if (value == null) {
                    clear();
                } else {
                    state(name).put(current, copyOf(value));
                }
            }

            @Override
            public void clear() {
                state(name).remove(current);
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        return new MemoryMapState<>(descriptor.getName());
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        String name = descriptor.getName();
        return new ListState<>() {
            @SuppressWarnings("unchecked")
            private List<T> list(boolean create) {
                Map<VertexKey, Object> byKey = state(name);
                Object list = byKey.get(current);
                if (list == null && create) {
                    list = new ArrayList<T>();
                    byKey.put(current, list);
                }
                return (List<T>) list;
            }

            @Override
            public Iterable<T> get() {
                reads.merge(name, 1L, Long::sum);
                List<T> list = list(false);
                List<T> out = new ArrayList<>();
                if (list != null) {
                    list.forEach(v -> out.add(copyOf(v)));
                }
                return out;
            }

            @Override
            public void add(T value) {
                list(true).add(copyOf(value));
            }

            @Override
            public void addAll(List<T> values) {
                values.forEach(this::add);
            }

            @Override
            public void update(List<T> values) {
                clear();
                addAll(values);
            }

            @Override
            public void clear() {
                state(name).remove(current);
            }
        };
    }

    @Override
    public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("keyed reducing state");
    }

    @Override
    public <I, A, O> AggregatingState<I, O> getAggregatingState(
            AggregatingStateDescriptor<I, A, O> descriptor) {
        throw new UnsupportedOperationException("keyed aggregating state");
    }

    /** Map state of one name: the current key's map, dropped when it becomes empty. */
    private final class MemoryMapState<K, V> implements MapState<K, V> {
        private final String name;

        MemoryMapState(String name) {
            this.name = name;
        }

        @SuppressWarnings("unchecked")
        private Map<K, V> map(boolean create) {
            Map<VertexKey, Object> byKey = state(name);
            Object map = byKey.get(current);
            if (map == null && create) {
                map = new LinkedHashMap<K, V>();
                byKey.put(current, map);
            }
            return (Map<K, V>) map;
        }

        /** Forgets the current key's map once it is empty, as a backend holds no empty map. */
        private void dropIfEmpty() {
            Map<K, V> map = map(false);
            if (map != null && map.isEmpty()) {
                state(name).remove(current);
            }
        }

        @Override
        public V get(K key) {
            Map<K, V> map = map(false);
            return map == null ? null : copyOf(map.get(key));
        }

        @Override
        public void put(K key, V value) {
            map(true).put(key, copyOf(value));
        }

        @Override
        public void putAll(Map<K, V> values) {
            values.forEach(this::put);
        }

        @Override
        public void remove(K key) {
            Map<K, V> map = map(false);
            if (map != null) {
                map.remove(key);
                dropIfEmpty();
            }
        }

        @Override
        public boolean contains(K key) {
            Map<K, V> map = map(false);
            return map != null && map.containsKey(key);
        }

        /** A copy of the entries, so the caller may change the state while iterating. */
        @Override
        public Iterable<Map.Entry<K, V>> entries() {
            Map<K, V> map = map(false);
            List<Map.Entry<K, V>> out = new ArrayList<>();
            if (map != null) {
                map.forEach((k, v) -> out.add(Map.entry(k, copyOf(v))));
            }
            return out;
        }

        @Override
        public Iterable<K> keys() {
            Map<K, V> map = map(false);
            return map == null ? List.of() : new ArrayList<>(map.keySet());
        }

        @Override
        public Iterable<V> values() {
            List<V> out = new ArrayList<>();
            entries().forEach(e -> out.add(e.getValue()));
            return out;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return entries().iterator();
        }

        @Override
        public boolean isEmpty() {
            return map(false) == null;
        }

        @Override
        public void clear() {
            state(name).remove(current);
        }
    }
}
