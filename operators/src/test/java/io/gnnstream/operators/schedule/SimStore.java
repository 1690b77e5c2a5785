package io.gnnstream.operators.schedule;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.store.GraphStore;
import io.gnnstream.operators.store.IncrementalPredictions;
import io.gnnstream.operators.store.IncrementalState;
import io.gnnstream.operators.store.MemoryStateStore;
import io.gnnstream.operators.store.Site;
import io.gnnstream.operators.store.StoreOutputs;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.List;

/**
 * The GraphStore of a {@link ProtocolSimulator} run: the real {@link GraphStore} core of one site
 * over keyed state in memory, fed the graph stream of a {@link SimGraph} one operation at a time
 * (its position is part of the snapshot, as a source's offsets are), the sample requests of the
 * assembler and the ranks' layer outputs. What the core returns is left in {@link #out} for the
 * simulator to send.
 *
 * <p>With incremental predictions ({@link GraphStoreConfig#incrementalModel}), the operator's timer
 * is {@link #predict}, and the snapshot holds the {@link IncrementalState} encoded, as the
 * operator's union list state does: a restore decodes every entry and restores from all of them,
 * keeping the marks of the vertices this site owns.
 */
final class SimStore {

    /** Test-only switches that re-introduce a race (see their tests). */
    record Races(boolean earlyWriteAcks, boolean staleParts, boolean supersededRows) {
        static final Races NONE = new Races(false, false, false);
    }

    private final VertexPartitioner partitioner;
    private final GraphStoreConfig config;
    private final SimGraph graph;
    private final Races races;
    final StoreOutputs out = new StoreOutputs();

    private final Site site;

    /** The time of an input (ms), as the operator takes it from its record: above 0, ascending. */
    private final java.util.function.LongSupplier clock;

    /** Processing time (ms): the simulator's clock. */
    private final java.util.function.LongSupplier now;

    private MemoryStateStore state;
    private GraphStore core;
    private int ingested;

    /**
     * The newest round whose rows or requests (of any of its blocks: {@code
     * SampleRequest#evalNeighbourhood}) this store took, restored with the snapshot: an incremental
     * prediction must not be of an older step (its processing would run while a newer round reads
     * the graph or writes rows).
     */
    private long newestRound = -1;

    SimStore(
            VertexPartitioner partitioner,
            GraphStoreConfig config,
            SimGraph graph,
            Races races,
            java.util.function.LongSupplier clock,
            java.util.function.LongSupplier now) {
        this.partitioner = partitioner;
        this.clock = clock;
        this.now = now;
        this.config = config;
        this.graph = graph;
        this.races = races;
        this.site = Site.whole(partitioner.numPartitions());
        this.state = new MemoryStateStore();
        this.core = core(false);
    }

    /** A store restored from {@code snapshot} ({@link #snapshot}). */
    SimStore(
            VertexPartitioner partitioner,
            GraphStoreConfig config,
            SimGraph graph,
            Races races,
            java.util.function.LongSupplier clock,
            java.util.function.LongSupplier now,
            Object[] snapshot) {
        this.partitioner = partitioner;
        this.clock = clock;
        this.now = now;
        this.config = config;
        this.graph = graph;
        this.races = races;
        this.site = Site.whole(partitioner.numPartitions());
        this.ingested = (Integer) snapshot[0];
        this.state = ((MemoryStateStore) snapshot[1]).copy();
        this.core = core(true);
        this.newestRound = (Long) snapshot[3];
        this.restoredLineage = (long[]) snapshot[4];
        if (core.incremental() != null) {
            @SuppressWarnings("unchecked")
            List<byte[]> union = (List<byte[]>) snapshot[2];
            List<IncrementalState> states = new ArrayList<>();
            for (byte[] encoded : union) {
                states.add(IncrementalState.decode(encoded.clone()));
            }
            core.incremental().restore(states, v -> site.owns(partitioner.partition(v)));
        }
    }

    private GraphStore core(boolean restored) {
        try {
            GraphStore c =
                    new GraphStore(
                                    partitioner,
                                    config,
                                    site,
                                    state,
                                    state::setCurrentKey,
                                    state::keys,
                                    null,
                                    restored,
                                    null)
                            .withClock(now);
            c = races.supersededRows() ? c.storingSupersededRows() : c;
            return races.earlyWriteAcks() ? c.acknowledgingWritesEarly() : c;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether the stream has an operation to take now: the graph's changes come once training runs
     * ({@code training}).
     */
    boolean hasInput(boolean training) {
        return ingested < graph.size() && (training || !graph.isChange(ingested));
    }

    /** Whether the next operation changes the loaded graph. */
    boolean nextIsChange() {
        return graph.isChange(ingested);
    }

    /** The next operation of the stream, for a trace. */
    String describeNext() {
        SimGraph.Op op = graph.op(ingested);
        if (op.update() == null) {
            return ingested + ": delete " + op.deleted();
        }
        if (op.update().edge != null) {
            return ingested
                    + ": edge "
                    + op.update().edge.src
                    + " -> "
                    + op.update().edge.dst
                    + (op.update().edge.remove ? " removed" : "");
        }
        return ingested + ": record of " + op.update().node.id;
    }

    /** Applies the next operation of the stream. */
    void ingest() throws Exception {
        SimGraph.Op op = graph.op(ingested++);
        core.inputTime(clock.getAsLong());
        if (op.update() == null) {
            core.applyDeletion(op.deleted(), out);
        } else if (op.update().edge != null) {
            core.applyUpdate(partitioner.keyOf(op.update().edge.dst), op.update(), out);
        } else {
            core.applyUpdate(partitioner.keyOf(op.update().node.id), op.update(), out);
        }
    }

    /** A bundle of sample requests from the assembler. */
    void requests(SampleRequest[] bundle) throws Exception {
        core.inputTime(clock.getAsLong());
        for (SampleRequest request : bundle) {
            if (core.accepts(request)) {
                if (request.evalNeighbourhood) {
                    newestRound = Math.max(newestRound, request.samplingKey);
                }
                core.answer(request, out);
            }
        }
    }

    /** Layer outputs from a rank. */
    void outputs(LayerOutputs outputs) throws Exception {
        core.inputTime(clock.getAsLong());
        if (core.accepts(outputs)) {
            if (!outputs.isPin()) {
                newestRound = Math.max(newestRound, outputs.step);
            }
            core.write(outputs, out);
        }
    }

    /** The incremental predictions' timer: recomputes for up to {@code budgetNanos}. */
    void predict(long budgetNanos) throws Exception {
        core.predictIncrementally(budgetNanos, out);
    }

    /** The incremental predictions, or null when off. */
    IncrementalPredictions incremental() {
        return core.incremental();
    }

    /** {@code v}'s in-neighbours as the store holds them (buffered edges written first). */
    long[] inNeighbours(long v) throws Exception {
        core.flushEdges();
        state.setCurrentKey(partitioner.keyOf(v));
        return io.gnnstream.state.InAdjacency.of(state).neighbours();
    }

    /** {@code v}'s features as stored, or null. */
    float[] features(long v) throws Exception {
        byte[] record = core.storedRecord(v);
        return record == null ? null : io.gnnstream.state.VertexRecord.features(record);
    }

    /** {@code v}'s stored row of layer {@code layer} of round {@code step} ({@code dim} floats). */
    float[] row(long v, int layer, long step, int dim) throws Exception {
        float[] out = new float[dim];
        core.layerOutputs().rows(layer, step, new long[] {v}, 1, dim, out);
        return out;
    }

    /** See {@link #newestRound}. */
    long newestRound() {
        return newestRound;
    }

    /** The statistics timer. */
    void publishSizes() {
        core.publishSizes(out);
    }

    /** The lineage's pairs of the snapshot restored from, until {@link #start}; else null. */
    private long[] restoredLineage;

    /**
     * A start of job incarnation {@code incarnation}, restored from checkpoint {@code checkpoint}
     * if this store was: the lineage the operator keeps ({@code GraphStoreOperator}).
     */
    void start(long incarnation, long checkpoint) {
        core.lineage().current(incarnation);
        if (restoredLineage != null) {
            core.lineage().restore(List.of(restoredLineage), checkpoint);
            restoredLineage = null;
        }
        if (core.incremental() != null) {
            core.incremental().incarnation(incarnation);
        }
    }

    /**
     * The snapshot: the stream position, a deep copy of the keyed state, the union list state of
     * incremental predictions (one entry: this subtask's), {@link #newestRound} and the lineage.
     */
    Object[] snapshot() throws Exception {
        core.snapshot();
        List<byte[]> union =
                core.incremental() == null
                        ? List.of()
                        : List.of(core.incremental().state().encode());
        return new Object[] {ingested, state.copy(), union, newestRound, core.lineage().snapshot()};
    }
}
