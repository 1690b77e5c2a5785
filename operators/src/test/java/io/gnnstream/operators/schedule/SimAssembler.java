package io.gnnstream.operators.schedule;

import io.gnnstream.operators.assembly.AssemblerConfig;
import io.gnnstream.operators.assembly.AssemblerCore;
import io.gnnstream.operators.assembly.AssemblerOutput;
import io.gnnstream.operators.assembly.MemoryBatchState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.SampleResponse;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The batch assembler of a {@link ProtocolSimulator} run: the real {@link AssemblerCore} over its
 * keyed state in memory, with its timeout timers (keyed state too, so part of the snapshot, as
 * Flink's timers are); its batches in progress are heap only and lost at a restore. What the core
 * decides is left in {@link #out} for the simulator to send.
 */
final class SimAssembler {

    private final AssemblerConfig config;
    final AssemblerOutput out = new AssemblerOutput();
    private final MemoryBatchState state;
    private final TreeMap<Long, Set<Long>> timers;
    private final AssemblerCore core;

    SimAssembler(AssemblerConfig config) {
        this(config, new MemoryBatchState(), new TreeMap<>());
    }

    private SimAssembler(
            AssemblerConfig config, MemoryBatchState state, TreeMap<Long, Set<Long>> timers) {
        this.config = config;
        this.state = state;
        this.timers = timers;
        this.core = state.core(config, 0);
    }

    /** An assembler restored from {@code snapshot} ({@link #snapshot}). */
    @SuppressWarnings("unchecked")
    static SimAssembler restore(AssemblerConfig config, Object[] snapshot) {
        return new SimAssembler(
                config,
                ((MemoryBatchState) snapshot[0]).copy(),
                copy((TreeMap<Long, Set<Long>>) snapshot[1]));
    }

    void spec(BatchSpec spec, long nowMs) throws Exception {
        core.onSpec(spec, nowMs, out);
        keepTimers();
    }

    void response(SampleResponse response, long nowMs) throws Exception {
        core.onResponse(response, nowMs, out);
        keepTimers();
    }

    /** Fires every timer due at {@code nowMs}. */
    void fireTimers(long nowMs) throws Exception {
        while (!timers.isEmpty() && timers.firstKey() <= nowMs) {
            for (long batchId : timers.pollFirstEntry().getValue()) {
                core.onTimer(batchId, nowMs, out);
                keepTimers();
            }
        }
    }

    /** The snapshot: the keyed state and the timers. */
    Object[] snapshot() {
        return new Object[] {state.copy(), copy(timers)};
    }

    private void keepTimers() {
        for (AssemblerOutput.Timer t : out.timers()) {
            timers.computeIfAbsent(t.at(), at -> new HashSet<>()).add(t.batchId());
        }
        out.timers().clear();
    }

    private static TreeMap<Long, Set<Long>> copy(TreeMap<Long, Set<Long>> timers) {
        TreeMap<Long, Set<Long>> c = new TreeMap<>();
        for (Map.Entry<Long, Set<Long>> e : timers.entrySet()) {
            c.put(e.getKey(), new HashSet<>(e.getValue()));
        }
        return c;
    }
}
