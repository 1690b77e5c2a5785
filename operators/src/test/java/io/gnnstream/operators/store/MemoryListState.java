package io.gnnstream.operators.store;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;

/**
 * Operator list state in a heap list, for a {@link GraphStore} without Flink (its halo replicas'
 * union state, {@link HaloReplicas#MADE_FOR}); {@link #copy} is a snapshot.
 */
public final class MemoryListState<T> implements ListState<T> {

    private final List<T> values = new ArrayList<>();

    /** A copy of the values (a snapshot; union state restores every subtask's values). */
    public MemoryListState<T> copy() {
        MemoryListState<T> c = new MemoryListState<>();
        c.values.addAll(values);
        return c;
    }

    @Override
    public Iterable<T> get() {
        return new ArrayList<>(values);
    }

    @Override
    public void add(T value) {
        values.add(value);
    }

    @Override
    public void update(List<T> values) {
        this.values.clear();
        this.values.addAll(values);
    }

    @Override
    public void addAll(List<T> values) {
        this.values.addAll(values);
    }

    @Override
    public void clear() {
        values.clear();
    }
}
