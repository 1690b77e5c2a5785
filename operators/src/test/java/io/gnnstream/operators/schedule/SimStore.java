package io.gnnstream.operators.schedule;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.store.GraphStore;
import io.gnnstream.operators.store.MemoryStateStore;
import io.gnnstream.operators.store.Site;
import io.gnnstream.operators.store.StoreOutputs;
import io.gnnstream.state.VertexPartitioner;

/**
 * The GraphStore of a {@link ProtocolSimulator} run: the real {@link GraphStore} core of one site
 * over keyed state in memory, fed the graph stream of a {@link SimGraph} one operation at a time
 * (its position is part of the snapshot, as a source's offsets are), the sample requests of the
 * assembler and the ranks' layer outputs. What the core returns is left in {@link #out} for the
 * simulator to send.
 */
final class SimStore {

    /** Test-only switches that re-introduce a race (see their tests). */
    record Races(boolean earlyWriteAcks, boolean staleParts) {
        static final Races NONE = new Races(false, false);
    }

    private final VertexPartitioner partitioner;
    private final GraphStoreConfig config;
    private final SimGraph graph;
    private final Races races;
    final StoreOutputs out = new StoreOutputs();

    private MemoryStateStore state;
    private GraphStore core;
    private int ingested;

    SimStore(VertexPartitioner partitioner, GraphStoreConfig config, SimGraph graph, Races races) {
        this.partitioner = partitioner;
        this.config = config;
        this.graph = graph;
        this.races = races;
        this.state = new MemoryStateStore();
        this.core = core(false);
    }

    /** A store restored from {@code snapshot} ({@link #snapshot}). */
    SimStore(
            VertexPartitioner partitioner,
            GraphStoreConfig config,
            SimGraph graph,
            Races races,
            Object[] snapshot) {
        this.partitioner = partitioner;
        this.config = config;
        this.graph = graph;
        this.races = races;
        this.ingested = (Integer) snapshot[0];
        this.state = ((MemoryStateStore) snapshot[1]).copy();
        this.core = core(true);
    }

    private GraphStore core(boolean restored) {
        try {
            GraphStore c =
                    new GraphStore(
                            partitioner,
                            config,
                            Site.whole(partitioner.numPartitions()),
                            state,
                            state::setCurrentKey,
                            state::keys,
                            null,
                            restored,
                            null);
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

    /** Applies the next operation of the stream. */
    void ingest() throws Exception {
        SimGraph.Op op = graph.op(ingested++);
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
        for (SampleRequest request : bundle) {
            if (core.accepts(request)) {
                core.answer(request, out);
            }
        }
    }

    /** Layer outputs from a rank. */
    void outputs(LayerOutputs outputs) throws Exception {
        if (core.accepts(outputs)) {
            core.write(outputs, out);
        }
    }

    /** The statistics timer. */
    void publishSizes() {
        core.publishSizes(out);
    }

    /** The snapshot: the stream position and a deep copy of the keyed state. */
    Object[] snapshot() throws Exception {
        core.snapshot();
        return new Object[] {ingested, state.copy()};
    }
}
