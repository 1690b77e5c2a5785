package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.BatchSpec;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;

/**
 * An assembler's keyed state in maps, for tests: each unfinished batch's spec and attempt under its
 * id, the current id set through {@link #set}. A copy is a snapshot; a core built on one is a
 * restored assembler.
 */
public final class MemoryBatchState implements CurrentKey {

    final Map<Long, BatchSpec> specs = new HashMap<>();
    final Map<Long, Integer> attempts = new HashMap<>();
    private long current;

    @Override
    public void set(long batchId) {
        current = batchId;
    }

    /** The state as it is now (specs are not changed once stored, so they are shared). */
    public MemoryBatchState copy() {
        MemoryBatchState c = new MemoryBatchState();
        c.specs.putAll(specs);
        c.attempts.putAll(attempts);
        return c;
    }

    /** Assembler subtask {@code subtask} on this state. */
    public AssemblerCore core(AssemblerConfig config, int subtask) {
        return new AssemblerCore(
                config, subtask, new MapValue<>(specs), new MapValue<>(attempts), this);
    }

    boolean isEmpty() {
        return specs.isEmpty() && attempts.isEmpty();
    }

    /** One state's values by batch id, read and written under the current id. */
    private final class MapValue<T> implements ValueState<T> {

        private final Map<Long, T> values;

        MapValue(Map<Long, T> values) {
            this.values = values;
        }

        @Override
        public T value() {
            return values.get(current);
        }

        @Override
        public void update(T value) {
            if (value == null) {
                values.remove(current);
            } else {
                values.put(current, value);
            }
        }

        @Override
        public void clear() {
            values.remove(current);
        }
    }
}
