package io.gnnstream.operators.store;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One GraphStore subtask's graph and its answers, over Flink's keyed state interfaces only: the
 * {@code GraphStoreOperator} feeds it records, timers and snapshots and sends what it returns in a
 * {@link StoreOutputs}; a test runs it on an in-memory state store. It applies graph changes (edges
 * through the {@link EdgeWriter}, node records through {@link VertexRecords}, deletions, halo
 * {@link ReplicaMessage}s), answers sample requests ({@link Sampler}) with feature parts by row and
 * by vertex ({@link FeatureParts}, placed in the trainers' caches by a {@link
 * FeatureCacheDirectory} per trainer) or of stored layer outputs ({@link LayerOutputStore}), and
 * keeps the partition sizes ({@link PartitionSizes}). Not thread-safe: the keyed state has one
 * current key.
 *
 * <p>See docs/design.md, "Graph state", "Graph changes", "Feature paths and caches" and
 * "Checkpoints and restore", "GraphStore".
 */
public final class GraphStore {

    /** Per vertex: its attribute record ({@link VertexRecord}). */
    public static final ValueStateDescriptor<byte[]> ATTRIBUTES =
            new ValueStateDescriptor<>("vertex-attributes", BytePrimitiveArraySerializer.INSTANCE);

    /**
     * Under each owned partition's anchor: {@link #latestRoundStep} as of the last snapshot, so a
     * restored subtask's deletions name a round at least as late as any whose reads the restored
     * state reflects (a rank may still predict a deleted vertex from a block read before the
     * checkpoint); the anchors move with their partitions, and a subtask takes the latest of its
     * own.
     */
    static final ValueStateDescriptor<Long> LATEST_ROUND =
            new ValueStateDescriptor<>("latest-round-step", LongSerializer.INSTANCE);

    /** Under each owned partition's anchor: {@link NewestRoundRows} as of the last snapshot. */
    static final ValueStateDescriptor<long[]> NEWEST_ROWS =
            new ValueStateDescriptor<>(
                    "layer-rows-newest-round", LongPrimitiveArraySerializer.INSTANCE);

    private static final Logger LOG = LoggerFactory.getLogger(GraphStore.class);

    private final VertexPartitioner partitioner;
    private final GraphStoreConfig config;
    private final Site site;
    private final CurrentKey keys;
    private final StoreCounters counters = new StoreCounters();
    private final InAdjacency adjacency;
    private final VertexRecords records;
    private final LayerOutputStore layerOutputs;
    private final PartitionSizes sizes;
    private final Sampler sampler;
    private final EdgeWriter edges;

    /** Null when halo replicas are off. */
    private final HaloReplicas halo;

    /** Per trainer rank: what this subtask placed in that trainer's feature cache. */
    private final TrainerCaches trainerCaches;

    private final FeatureParts.Lookup ownedRecords;
    private final FeatureParts.Lookup localRecords;
    private final LongPredicate ownsVertex;

    /** Null when predictions follow rounds only. */
    private final IncrementalPredictions incremental;

    /** The time (ms) of the input being applied, for incremental predictions' freshness. */
    private long inputTime;

    /** The earliest input time of the buffered edges; {@code Long.MAX_VALUE}: none. */
    private long edgesSince = Long.MAX_VALUE;

    /** Buffered edges that {@link #predictIncrementally} writes whatever their age. */
    static final int PROMPT_FLUSH_EDGES = 4096;

    /** The longest (ms) more buffered edges wait for {@link #predictIncrementally}. */
    static final long MAX_BUFFER_WAIT_MS = 100;

    /** Processing time (ms, {@link #clock}) at which the buffer last went from empty to not. */
    private long bufferedSinceMs;

    /**
     * The step of the latest evaluation or inference round whose requests this subtask answered; a
     * deletion names it ({@link StoreOutputs#deleted}).
     */
    private long latestRoundStep;

    /** Whose layer outputs this subtask takes; restored and snapshotted by the operator. */
    private final Lineage lineage = new Lineage();

    /** Per hidden layer, the newest round whose rows this subtask stored. */
    private final NewestRoundRows newestRows;

    /** For tests: {@link #storingSupersededRows}. */
    private boolean storesSupersededRows;

    private final ValueState<long[]> newestRowsState;

    /** {@link #LATEST_ROUND}, and the value the anchors hold. */
    private final ValueState<Long> latestRound;

    private long latestRoundStored;

    /** Processing time (ms) of incremental predictions ({@link #withClock}). */
    private java.util.function.LongSupplier clock = System::currentTimeMillis;

    /** Null unless {@link #acknowledgingWritesEarly} (tests): outputs acknowledged, not stored. */
    private List<LayerOutputs> acknowledgedNotStored;

    /**
     * The GraphStore of {@code site} over {@code state}, whose current key {@code keys} switches
     * and whose stored keys {@code storedKeys} lists.
     *
     * @param haloSites union operator state recording the parallelism the halo replicas were made
     *     for ({@link HaloReplicas#MADE_FOR}); used with halo replicas on only
     * @param restored whether the state was restored from a snapshot
     * @param probe what to report the adjacency writes and samples to (tests), or null
     */
    public GraphStore(
            VertexPartitioner partitioner,
            GraphStoreConfig config,
            Site site,
            KeyedStateStore state,
            CurrentKey keys,
            StoredKeys storedKeys,
            ListState<Integer> haloSites,
            boolean restored,
            StoreProbe probe)
            throws Exception {
        if (site.owned().length != partitioner.numPartitions()) {
            throw new IllegalArgumentException(
                    "a site of "
                            + site.owned().length
                            + " partitions for a partitioner of "
                            + partitioner.numPartitions());
        }
        if (config.halo && haloSites == null) {
            throw new IllegalArgumentException("halo replicas need their union state");
        }
        this.partitioner = partitioner;
        this.config = config;
        this.site = site;
        this.keys = keys;
        this.records = new VertexRecords(state, partitioner, keys, config);
        this.adjacency = InAdjacency.of(state);
        this.layerOutputs =
                new LayerOutputStore(
                        state,
                        partitioner,
                        keys,
                        config.layerRowCacheBytes,
                        config::layerRootWidth,
                        config.modelType().architecture());
        this.sizes =
                new PartitionSizes(
                        state, keys, partitioner.numPartitions(), partitioner.fingerprint());
        this.sampler =
                new Sampler(
                        adjacency,
                        config.adjacencyCacheBytes,
                        config.seed,
                        partitioner,
                        keys,
                        site.subtask(),
                        probe);
        this.edges =
                new EdgeWriter(
                        state,
                        adjacency,
                        config.edgeBufferEdges,
                        sizes,
                        sampler,
                        partitioner,
                        site,
                        keys,
                        storedKeys,
                        counters,
                        probe,
                        config.incrementalOutEdgeCacheBytes());
        this.halo =
                config.halo
                        ? new HaloReplicas(
                                state, haloSites, restored, site.parallelism(), keys, storedKeys)
                        : null;
        this.trainerCaches = new TrainerCaches(config.trainerCacheSlots, site);
        this.ownedRecords = records::recordOf;
        this.localRecords = this::localRecord;
        this.ownsVertex = v -> site.owns(partitioner.partition(v));
        if (config.incrementalModel() != null) {
            this.incremental =
                    new IncrementalPredictions(
                            config.incrementalModel(),
                            config.keepsHiddenRows(),
                            config.incrementalFanout(),
                            layerOutputs,
                            new NeighbourSums(
                                    state,
                                    partitioner,
                                    keys,
                                    config.incrementalModel().numLayers(),
                                    config.incrementalSumCacheBytes()),
                            new IncrementalPredictions.Graph() {
                                @Override
                                public long[] inNeighbours(long v) throws Exception {
                                    return edges.inNeighbours(v);
                                }

                                @Override
                                public long[] outNeighbours(long u) throws Exception {
                                    return edges.outNeighbours(u);
                                }

                                @Override
                                public float[] features(long v) throws Exception {
                                    byte[] record = records.recordOf(v);
                                    return record == null ? null : VertexRecord.features(record);
                                }

                                @Override
                                public int label(long v) throws Exception {
                                    return records.labelOf(v);
                                }
                            },
                            () -> clock.getAsLong());
            incremental.maxMarks(config.incrementalMaxMarks());
            incremental.coalesce(config.incrementalCoalesceMs());
            edges.followChanges(
                    new EdgeWriter.Changes() {
                        @Override
                        public void changed(long v) throws Exception {
                            incremental.adjacencyChanged(v, edgesSince);
                        }

                        @Override
                        public void applied(
                                long v, long[] ops, int change, EdgeWriter.Written written)
                                throws Exception {
                            incremental.edgesApplied(v, ops, change, written, edgesSince);
                        }

                        @Override
                        public void flushed() {
                            // The edges buffered since edgesSince are written: the next start anew.
                            edgesSince = Long.MAX_VALUE;
                        }
                    });
            if (config.aggregateAtOwner) {
                layerOutputs.followOwnedSums(incremental::roundSummed);
            }
        } else {
            this.incremental = null;
        }
        if (halo != null && halo.droppedAtRestore()) {
            sizes.forgetReplicas(site.owned());
        }
        this.latestRound = state.getState(LATEST_ROUND);
        this.newestRows = new NewestRoundRows();
        this.newestRowsState = state.getState(NEWEST_ROWS);
        if (restored) {
            sizes.loadStored(site.owned());
            for (int p = 0; p < site.owned().length; p++) {
                if (site.owns(p)) {
                    keys.set(VertexKey.anchor(p));
                    Long step = latestRound.value();
                    latestRoundStep = Math.max(latestRoundStep, step == null ? 0 : step);
                    newestRows.restore(newestRowsState.value());
                }
            }
            latestRoundStored = latestRoundStep;
        }
    }

    /** A graph update (an edge or a node record) of the vertex whose key is {@code key}. */
    public void applyUpdate(VertexKey key, GraphUpdate update, StoreOutputs out) throws Exception {
        if (update.edge != null) {
            buffering();
            edges.apply(key, update.edge.src, update.edge.dst, update.edge.remove);
        } else {
            applyNode(key, update.node, out);
        }
    }

    /** A bundle of edges whose destinations this subtask owns. */
    public void applyEdges(EdgeBundle bundle) throws Exception {
        buffering();
        edges.applyAll(bundle);
    }

    private void buffering() {
        edgesSince = Math.min(edgesSince, inputTime);
        if (incremental != null && edges.buffered() == 0) {
            bufferedSinceMs = clock.getAsLong();
        }
    }

    /**
     * This site's part of the deletion of {@code v} (docs/design.md, "Vertex deletion"): every
     * buffered edge is written first, so the deletion ends every edge this subtask received before
     * it. Then {@code v} leaves the in-adjacency of this site's vertices and every trainer-cache
     * directory; where {@code v} is owned, also its in-edges, attributes, layer rows and split, and
     * its deletion is returned. Halo replicas of {@code v} are the replica router's to drop.
     */
    public void applyDeletion(long v, StoreOutputs out) throws Exception {
        flushEdges();
        edgesSince = inputTime;
        edges.removeOutEdges(v);
        trainerCaches.forget(v);
        int partition = partitioner.partition(v);
        if (!site.owns(partition)) {
            return;
        }
        VertexKey key = partitioner.keyOf(v);
        long[] in = edges.clearInEdges(key, v);
        layerOutputs.forget(v, config.hiddenLayers());
        if (incremental != null) {
            incremental.deleted(v, inputTime);
        }
        byte[] previous = records.clear(key, v);
        long[] s = sizes.of(key);
        s[PartitionSizes.EDGES] -= in.length;
        if (previous != null) {
            s[PartitionSizes.VERTICES]--;
            out.event(GraphEvent.deleted(partition, v));
        }
        sizes.touched(partition);
        counters.verticesDeleted++;
        out.deleted(v, latestRoundStep);
    }

    /** A replica change from the router. */
    public void applyReplica(ReplicaMessage message) throws Exception {
        if (halo == null) {
            throw new IllegalStateException(
                    "a halo replica message reached a graph store without halo replicas: "
                            + message);
        }
        VertexKey key = message.key();
        long[] s = sizes.of(key);
        s[PartitionSizes.REPLICAS] += halo.apply(message);
        // Trainers may hold the vertex's features as this subtask's neighbour parts placed them.
        trainerCaches.forget(message.vertex);
        sizes.touched(key.partition());
    }

    private void applyNode(VertexKey key, NodeUpdate node, StoreOutputs out) throws Exception {
        if (node.delete) {
            throw new IllegalArgumentException(
                    "a deletion reaches the graph store as one VertexDeletion per site: " + node);
        }
        byte[] previous = records.write(key, node);
        trainerCaches.forget(node.id);
        long[] s = sizes.of(key);
        if (previous == null) {
            s[PartitionSizes.VERTICES]++;
        }
        Split before = previous == null ? Split.NONE : VertexRecord.split(previous);
        if (node.split != before || previous == null) {
            out.event(GraphEvent.seed(key.partition(), node.id, node.split));
        }
        sizes.touched(key.partition());
        counters.nodesIngested++;
        if (incremental != null) {
            if (previous == null) {
                incremental.arrived(node.id, inputTime);
            }
            incremental.featuresChanged(
                    node.id,
                    previous == null ? null : VertexRecord.features(previous),
                    node.features,
                    inputTime);
        }
    }

    /**
     * Whether {@code outputs} count: of this run's history ({@link Lineage}), and for vertices this
     * subtask owns; outputs written for the subtasks of another parallelism (read again from the
     * topic after a rescale) are counted and skipped: the scheduler issues that round again for the
     * current subtasks.
     */
    public boolean accepts(LayerOutputs outputs) {
        if (!lineage.takes(outputs.incarnation, outputs.checkpoint)) {
            return false; // a failed run's, sent after the cut this run restored
        }
        if (!storesSupersededRows && newestRows.superseded(outputs, lineage.current())) {
            counters.supersededLayerOutputs++;
            return false; // a duplicate of an older round's block, after a newer round's rows
        }
        if (outputs.isPin()) {
            return true;
        }
        for (long v : outputs.vertices) {
            if (!site.owns(partitioner.partition(v))) {
                counters.staleLayerOutputs++;
                return false;
            }
        }
        return true;
    }

    /** Stores the rows of {@code outputs} ({@link #accepts} them first) and announces them. */
    public void write(LayerOutputs outputs, StoreOutputs out) throws Exception {
        if (outputs.isPin()) {
            if (incremental != null) {
                incremental.pin(outputs);
            }
            return;
        }
        if (incremental != null) {
            incremental.roundRuns(outputs.step);
        }
        if (outputs.isFeatureSums()) {
            // Kept by incremental predictions only; acknowledged as a part of the block. The
            // edges buffered since the round's reads are written first: they mark the vertices
            // whose sums they change, and no read of the engine writes them in between.
            if (incremental != null) {
                flushEdges();
                incremental.roundFeatureSums(
                        outputs.step,
                        outputs.incarnation,
                        outputs.vertices,
                        outputs.dim,
                        outputs.values);
            }
            out.event(GraphEvent.layerWritten(outputs));
            return;
        }
        newestRows.stored(outputs, lineage.current());
        if (acknowledgedNotStored != null) {
            acknowledgedNotStored.add(outputs);
        } else {
            RoundSums.RowsBefore before =
                    incremental != null ? incremental.roundRowsBefore(outputs) : null;
            layerOutputs.write(outputs, records::labelOf);
            if (before != null) {
                incremental.roundRowsWritten(outputs, before, inputTime);
            }
        }
        if (incremental != null && outputs.step == incremental.pinnedStep()) {
            incremental.rowsRewritten(outputs.layer, outputs.vertices, inputTime);
        }
        out.event(GraphEvent.layerWritten(outputs));
    }

    /**
     * For tests only: re-introduces a race, rows of an older round stored over a newer round's
     * ({@link NewestRoundRows}). The protocol simulation must find it.
     */
    public GraphStore storingSupersededRows() {
        storesSupersededRows = true;
        return this;
    }

    /**
     * For tests only: re-introduces a race, layer outputs acknowledged before they are durable. The
     * store announces outputs at once but writes them to its state only before the next request it
     * answers, not before a snapshot; a restore then loses outputs that the scheduler, whose
     * snapshot saw the acknowledgement, counts as stored. The protocol simulation must find it.
     */
    public GraphStore acknowledgingWritesEarly() {
        acknowledgedNotStored = new ArrayList<>();
        return this;
    }

    /**
     * For tests: {@code ms} is the processing time (ms) incremental predictions measure a quiet run
     * of the pinned round again by, instead of the system clock.
     */
    public GraphStore withClock(java.util.function.LongSupplier ms) {
        this.clock = ms;
        return this;
    }

    private void storeAcknowledged() throws Exception {
        for (LayerOutputs outputs : acknowledgedNotStored) {
            layerOutputs.write(outputs, records::labelOf);
        }
        acknowledgedNotStored.clear();
    }

    /**
     * Whether {@code request} is one to answer: not a heartbeat, and naming a row for each feature
     * vertex (a malformed request is counted and dropped; the assembler re-sends what stays
     * unanswered).
     */
    public boolean accepts(SampleRequest request) {
        if (request.isHeartbeat()) {
            return false;
        }
        if (request.featureVertices.length != request.featureRows.length) {
            counters.malformedRequests++;
            LOG.warn(
                    "dropped a sample request of batch {} naming {} feature vertices but {} rows",
                    request.batchId,
                    request.featureVertices.length,
                    request.featureRows.length);
            return false;
        }
        return true;
    }

    /**
     * Answers {@code request} ({@link #accepts} it first), after writing the buffered edges: its
     * sampled neighbours, and the feature parts it names (by row or of layer outputs, and by
     * vertex).
     */
    public void answer(SampleRequest request, StoreOutputs out) throws Exception {
        flushEdges();
        if (incremental != null && request.evalNeighbourhood) {
            incremental.roundRuns(request.samplingKey);
        }
        if (acknowledgedNotStored != null) {
            storeAcknowledged();
        }
        if (request.evalNeighbourhood) {
            // A round's read (a training step's key names no round: a round of that step may
            // still read the vertex after its deletion, and its prediction is then fresh).
            latestRoundStep = Math.max(latestRoundStep, request.samplingKey);
        }
        counters.sampleRequests++;
        SampleResponse response = new SampleResponse();
        response.batchId = request.batchId;
        response.hop = request.hop;
        response.route = request.route;
        response.part = request.part;
        sampler.sample(request, response);
        int[] degrees =
                request.featurePart != SampleRequest.NO_FEATURES && config.sendsDegrees()
                        ? sampler.evalDegrees(request.featureVertices, config.degreeFanout())
                        : null;
        float[][] summed =
                request.featurePart != SampleRequest.NO_FEATURES
                                && request.layerInput > 0
                                && config.aggregateAtOwner
                        ? layerOutputs.sumOwned(request, response, ownsVertex)
                        : null;
        if (incremental != null
                && request.evalNeighbourhood
                && request.layerInput > 0
                && summed == null) {
            // The owner did not sum the rows (and tell the engine): the engine sums them itself.
            incremental.roundReadRows(
                    request.layerInput,
                    request.samplingKey,
                    response.sampleVertices,
                    response.neighbourCounts,
                    response.neighbours);
        }
        if (request.featurePart != SampleRequest.NO_FEATURES && request.layerInput > 0) {
            sent(
                    FeatureParts.withDegrees(layerOutputs.part(request, summed), request, degrees),
                    out);
        } else if (request.featurePart != SampleRequest.NO_FEATURES) {
            sent(
                    FeatureParts.withDegrees(
                            FeatureParts.byRow(
                                    request,
                                    trainerCaches.of(request.trainer),
                                    ownedRecords,
                                    records.noAttributes()),
                            request,
                            degrees),
                    out);
        }
        if (request.neighbourPart != SampleRequest.NO_FEATURES) {
            sent(
                    FeatureParts.byVertex(
                            request, response, trainerCaches.of(request.trainer), localRecords),
                    out);
        }
        out.response(response);
    }

    private void sent(MiniBatchPart part, StoreOutputs out) {
        part.sender = site.subtask();
        out.part(part);
    }

    /** A statistics event per partition whose sizes changed since the last call. */
    public void publishSizes(StoreOutputs out) {
        sizes.publish(out::event);
    }

    /** Writes the buffered edges into the adjacency (the site's out-edges may stay staged). */
    public void flushEdges() throws Exception {
        edges.flush();
        edgesSince = Long.MAX_VALUE;
    }

    /** Writes the buffered edges and the staged site out-edges (a bounded input's end). */
    public void writeAll() throws Exception {
        flushEdges();
        edges.writeStagedOutEdges();
    }

    /** The time (ms) of the input applied next: its change's time, for freshness. */
    public void inputTime(long ms) {
        inputTime = ms;
    }

    /**
     * Recomputes marked vertices for incremental predictions, a block at a time, until none is
     * ready or {@code budgetNanos} have passed; true if work is ready (marks still in their
     * coalescing window are not). Buffered edges are written first while they are few ({@link
     * #PROMPT_FLUSH_EDGES}) or have waited {@link #MAX_BUFFER_WAIT_MS}: a stream of many edges
     * fills the buffer and is written in its large batches.
     */
    public boolean predictIncrementally(long budgetNanos, StoreOutputs out) throws Exception {
        if (incremental == null) {
            return false;
        }
        if (edges.buffered() <= PROMPT_FLUSH_EDGES
                || clock.getAsLong() - bufferedSinceMs >= MAX_BUFFER_WAIT_MS) {
            flushEdges();
        }
        incremental.resumeIfRerunQuiet();
        long start = System.nanoTime();
        while (incremental.hasReadyWork()) {
            incremental.process(out);
            if (System.nanoTime() - start >= budgetNanos) {
                return incremental.hasReadyWork();
            }
        }
        return false;
    }

    /** Which job incarnations' layer outputs this subtask takes. */
    public Lineage lineage() {
        return lineage;
    }

    /** The incremental predictions, or null when off. */
    public IncrementalPredictions incremental() {
        return incremental;
    }

    /**
     * Writes what lives on the heap into the state before a snapshot: the buffered edges, the
     * neighbour sums written back, the parallelism the halo replicas are made for, the changed
     * partition sizes and the latest round answered ({@link #LATEST_ROUND}).
     */
    public void snapshot() throws Exception {
        writeAll();
        if (incremental != null) {
            incremental.snapshot();
        }
        if (halo != null) {
            halo.snapshot();
        }
        sizes.flush();
        if (latestRoundStep != latestRoundStored) {
            for (int p = 0; p < site.owned().length; p++) {
                if (site.owns(p)) {
                    keys.set(VertexKey.anchor(p));
                    latestRound.update(latestRoundStep);
                }
            }
            latestRoundStored = latestRoundStep;
        }
        long[] newest = newestRows.changed();
        if (newest != null) {
            for (int p = 0; p < site.owned().length; p++) {
                if (site.owns(p)) {
                    keys.set(VertexKey.anchor(p));
                    newestRowsState.update(newest);
                }
            }
        }
    }

    /**
     * The record of {@code vertex} as this subtask holds it (owned, or a halo replica with a
     * record), or null when it cannot tell. A replica made before its vertex had attributes is no
     * answer: the owner may have the record by now, and the replica's push may still be on its way.
     */
    private byte[] localRecord(long vertex) throws Exception {
        if (site.owns(partitioner.partition(vertex))) {
            byte[] record = records.recordOf(vertex);
            return record == null ? records.noAttributes() : record;
        }
        return halo == null ? null : halo.record(site.holder(), vertex);
    }

    public StoreCounters counters() {
        return counters;
    }

    /** The layer-output store, for its counters. */
    public LayerOutputStore layerOutputs() {
        return layerOutputs;
    }

    /** Halo replicas held by this subtask's partitions. */
    public long replicas() {
        return sizes.sum(PartitionSizes.REPLICAS);
    }

    /** Vertices with attributes in this subtask's partitions. */
    public long vertices() {
        return sizes.sum(PartitionSizes.VERTICES);
    }

    /** Stored edges (into this subtask's partitions' vertices) less those removed or deleted. */
    public long edges() {
        return sizes.sum(PartitionSizes.EDGES);
    }

    /** The halo replicas (null when off), for tests. */
    public HaloReplicas halo() {
        return halo;
    }

    /** The stored in-neighbours of {@code vertex} (buffered edges written first), for tests. */
    public long[] inNeighbours(long vertex) throws Exception {
        return edges.inNeighbours(vertex);
    }

    /**
     * The out-edge index's targets of {@code source} in {@code partition} (null while the
     * partition's index is not built), for tests.
     */
    public long[] outEdgeTargets(int partition, long source) throws Exception {
        return edges.outEdgeTargets(partition, source);
    }

    /** The stored attribute record of {@code vertex}, or null, for tests. */
    public byte[] storedRecord(long vertex) throws Exception {
        return records.stored(vertex);
    }

    /** The in-degree of {@code vertex} as stored (buffered edges not counted), for tests. */
    public int storedDegree(long vertex) throws Exception {
        keys.set(partitioner.keyOf(vertex));
        return adjacency.degree();
    }

    /** Adjacency blocks read so far (tests check that sampling stays O(fanout)). */
    public long adjacencyBlocksRead() {
        return adjacency.blocksRead();
    }
}
