package io.gnnstream.operators;

import io.gnnstream.operators.internal.FeatureCacheDirectory;
import io.gnnstream.operators.internal.FeatureParts;
import io.gnnstream.operators.internal.HaloReplicas;
import io.gnnstream.operators.internal.LayerOutputStore;
import io.gnnstream.operators.internal.OutEdgeIndex;
import io.gnnstream.operators.internal.PartitionSizes;
import io.gnnstream.operators.internal.VertexValueCache;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.Mix;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the graph: per vertex, its attributes and in-adjacency in keyed (RocksDB) state under {@link
 * VertexKey}.
 *
 * <p>Its input carries graph updates, keyed by the owning vertex, and bundles of {@link
 * SampleRequest}s from the sampling loop's feedback edge, keyed by a partition anchor so that each
 * request (its vertices all in partitions of one subtask, its route) and each bundle reach the
 * subtask owning them; the operator then switches its current key to every vertex of each request.
 * It answers with the sampled neighbours to the assembler (main output) and, if the request names
 * feature vertices, with their features and labels straight to the batch's trainer (side output
 * {@link #FEATURES}), bypassing the assembler. With the trainers' feature caches on, a vertex whose
 * features a trainer holds already is sent as a cache slot (a {@link FeatureCacheDirectory} per
 * trainer records what this subtask placed there), so its features cross the network once, not once
 * per batch. Sampling of vertex {@code v} at hop {@code h} of batch {@code b} is seeded by {@code
 * (seed, b, h, v)}, so a request answered twice (after a retry or a restore) gives the same answer
 * for the same graph.
 *
 * <p>Three heap structures keep RocksDB round trips down, none part of a checkpoint: edge additions
 * wait in an {@link EdgeBuffer} and are written one adjacency update per vertex, always before a
 * request is answered, before a snapshot and at the end of input (so answers and checkpoints see
 * every edge received before them, and a restore replays the rest from the source); a {@link
 * VertexValueCache} of attribute records serves feature fetches, replaced on every node write; and
 * another one of adjacency tails serves neighbour sampling (a vertex of up to {@link #FLAT_DEGREE}
 * in-neighbours is sampled without touching RocksDB: its whole list is cached as one tail),
 * invalidated on every adjacency write. The trainers' cache directories are heap only as well, and
 * forget a vertex on every node write.
 *
 * <p>Per-partition sizes ({@link PartitionSizes}) live in a heap cache that is written to the
 * partition anchor's keyed state before every snapshot, and are published to the scheduler as
 * {@link GraphEvent}s (side output {@link #EVENTS}) at most once per {@code statsIntervalMs}; edge
 * counts include written edges only. Vertices entering a training, validation or test split are
 * announced at once.
 *
 * <p>With halo replicas on ({@link GraphStoreConfig#halo}), each subtask also keeps {@link
 * HaloReplicas}: copies of the attribute records of other subtasks' vertices with an in-edge into
 * one of its partitions, as the {@link ReplicaRouter} creates, pushes and drops them.
 *
 * <p>See docs/design.md, "Graph state" (and its "Halo replicas") and "Checkpoints and restore",
 * "GraphStore".
 */
public class GraphStoreOperator extends KeyedStateOperator<SampleResponse>
        implements OneInputStreamOperator<GraphStoreInput, SampleResponse> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<GraphEvent> EVENTS =
            new OutputTag<>("graph-events", TypeInformation.of(GraphEvent.class));
    public static final OutputTag<MiniBatchPart> FEATURES =
            new OutputTag<>("feature-parts", MiniBatchPartSerializer.TYPE_INFO);

    /**
     * The vertices whose deletion the owning subtask applied, each with the step of the latest
     * inference round this subtask had answered requests of then (docs/design.md, "Vertex
     * deletion"): the job turns them into prediction tombstones.
     */
    public static final OutputTag<Tuple2<Long, Long>> DELETED =
            new OutputTag<>("deleted-vertices", Types.TUPLE(Types.LONG, Types.LONG));

    public static final ValueStateDescriptor<byte[]> ATTRIBUTES =
            new ValueStateDescriptor<>("vertex-attributes", BytePrimitiveArraySerializer.INSTANCE);

    /**
     * Up to this many in-neighbours, the adjacency cache holds a vertex's whole list (at most 32
     * KiB) instead of its tail, so sampling it reads no blocks from RocksDB; larger hubs are few,
     * and sampling reads at most a fanout's worth of their blocks. Smaller for a small cache: a
     * list takes at most 1/64 of it, so that it stays cached.
     */
    static final int FLAT_DEGREE = 4096;

    /** Cached in place of a missing tail, so vertices without in-neighbours are cache hits too. */
    private static final byte[] NO_NEIGHBOURS = new byte[0];

    private static final Logger LOG = LoggerFactory.getLogger(GraphStoreOperator.class);

    private final VertexPartitioner partitioner;
    private final GraphStoreConfig config;
    private FaultInjector faults = FaultInjector.NONE;

    /** Sample requests answered since this subtask started (counts for {@link FaultInjector}). */
    private transient long requestsAnswered;

    /**
     * Graph updates (edge bundles, node updates, deletions, replica messages) applied since this
     * subtask started (counts for {@link FaultInjector}, {@code graph-store-ingest}).
     */
    private transient long updatesApplied;

    /**
     * Layer-output records stored since this subtask started (counts for {@link FaultInjector}).
     */
    private transient long layerRecordsStored;

    private transient ValueState<byte[]> attributes;
    private transient InAdjacency adjacency;
    private transient OutEdgeIndex outEdges;

    /** The step of the latest inference round whose requests this subtask answered. */
    private transient long latestRoundStep;

    private transient Counter verticesDeleted;
    private transient PartitionSizes sizes;
    private transient Counter edgesIngested;

    /**
     * Edge additions whose source lives in another partition: over edgesIngested, the live
     * assignment's edge cut.
     */
    private transient Counter cutEdgesIngested;

    private transient Counter nodesIngested;
    private transient Counter requests;
    private transient Counter malformedRequests;

    /** Layer outputs for vertices of other subtasks, written before a rescale and skipped. */
    private transient Counter staleLayerOutputs;

    private transient VertexValueCache recordCache;
    private transient VertexValueCache tailCache;
    private transient EdgeBuffer edgeBuffer;
    private transient int flatDegree;

    /** The record sent for a vertex without attributes: zero features, no label. */
    private transient byte[] noAttributes;

    /** Per trainer rank: what this subtask placed in that trainer's feature cache. */
    private transient Map<Integer, FeatureCacheDirectory> trainerCaches;

    /** Null when halo replicas are off. */
    private transient HaloReplicas halo;

    /** This subtask's index: the sender of its feature parts. */
    private transient int subtask;

    /** Per partition: whether this subtask owns it. */
    private transient boolean[] owned;

    /** The partition whose key holds this subtask's halo replicas: the first of its range. */
    private transient int siteHolder;

    /** The layer outputs of inference rounds. */
    private transient LayerOutputStore layerOutputs;

    /** Makes this operator fail once as {@code faults} says (failure-injection tests). */
    public GraphStoreOperator withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    public GraphStoreOperator(VertexPartitioner partitioner, GraphStoreConfig config) {
        this.partitioner = partitioner;
        this.config = config;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        attributes = context.getKeyedStateStore().getState(ATTRIBUTES);
        adjacency = InAdjacency.of(context.getKeyedStateStore());
        layerOutputs =
                new LayerOutputStore(
                        context.getKeyedStateStore(),
                        partitioner,
                        this::setCurrentKey,
                        config.layerRowCacheBytes,
                        config::layerRootWidth);
        sizes =
                new PartitionSizes(
                        context.getKeyedStateStore(),
                        this::setCurrentKey,
                        partitioner.numPartitions(),
                        partitioner.fingerprint());
        recordCache = new VertexValueCache(config.recordCacheBytes);
        tailCache = new VertexValueCache(config.adjacencyCacheBytes);
        flatDegree = (int) Math.min(FLAT_DEGREE, config.adjacencyCacheBytes / 64 / Long.BYTES);
        edgeBuffer = new EdgeBuffer(config.edgeBufferEdges, partitioner);
        trainerCaches = new HashMap<>();
        noAttributes =
                VertexRecord.encode(
                        new NodeUpdate(
                                -1, new float[config.featureDim], NodeUpdate.NO_LABEL, Split.NONE));
        owned = new boolean[partitioner.numPartitions()];
        var task = getRuntimeContext().getTaskInfo();
        subtask = task.getIndexOfThisSubtask();
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        maxParallelism, task.getNumberOfParallelSubtasks(), subtask);
        for (int p = 0; p < owned.length; p++) {
            owned[p] =
                    range.contains(
                            KeyGroupRangeAssignment.assignToKeyGroup(
                                    VertexKey.anchor(p), maxParallelism));
        }
        siteHolder = range.getStartKeyGroup();
        outEdges = new OutEdgeIndex(context.getKeyedStateStore(), this::setCurrentKey, owned);
        if (config.halo) {
            halo =
                    new HaloReplicas(
                            context,
                            getKeyedStateBackend(),
                            task.getNumberOfParallelSubtasks(),
                            this::setCurrentKey);
            if (halo.droppedAtRestore()) {
                sizes.forgetReplicas(owned);
            }
        }
        if (context.isRestored()) {
            sizes.loadStored(owned);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        edgesIngested = getMetricGroup().counter("edgesIngested");
        cutEdgesIngested = getMetricGroup().counter("cutEdgesIngested");
        nodesIngested = getMetricGroup().counter("nodesIngested");
        verticesDeleted = getMetricGroup().counter("verticesDeleted");
        requests = getMetricGroup().counter("sampleRequests");
        malformedRequests = getMetricGroup().counter("malformedRequests");
        staleLayerOutputs = getMetricGroup().counter("staleLayerOutputs");
        getMetricGroup().gauge("layerRowsWritten", () -> layerOutputs.rowsWritten());
        getMetricGroup().gauge("missingLayerRows", () -> layerOutputs.missingRows());
        getMetricGroup().gauge("layerRowCacheHits", () -> layerOutputs.cacheHits());
        getMetricGroup().gauge("layerRowsSummedAtOwner", () -> layerOutputs.summedRows());
        getMetricGroup().gauge("haloReplicas", () -> sizes.sum(PartitionSizes.REPLICAS));
        getMetricGroup()
                .gauge(
                        "replicationFactor",
                        () -> {
                            long vertices = sizes.sum(PartitionSizes.VERTICES);
                            return vertices == 0
                                    ? 0.0
                                    : (double) sizes.sum(PartitionSizes.REPLICAS) / vertices;
                        });
        scheduleStats();
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) throws Exception {
        GraphStoreInput input = element.getValue();
        if (input.update != null
                || input.edges != null
                || input.replica != null
                || input.deletion != null) {
            faults.check("graph-store-ingest", subtask, ++updatesApplied);
        }
        if (input.update != null) {
            applyUpdate(input.update);
        } else if (input.edges != null) {
            applyEdges(input.edges);
        } else if (input.replica != null) {
            applyReplica(input.replica);
        } else if (input.deletion != null) {
            applyDeletion(input.deletion.vertex);
        } else if (input.outputs != null) {
            if (!ownsAll(input.outputs.vertices)) {
                // Written for the subtasks of another parallelism (read again from the topic after
                // a
                // rescale): the scheduler issues that round again for the current subtasks.
                staleLayerOutputs.inc();
                return;
            }
            faults.check("layer-store", subtask, ++layerRecordsStored);
            layerOutputs.write(input.outputs, this::labelOf);
            output.collect(EVENTS, new StreamRecord<>(GraphEvent.layerWritten(input.outputs)));
        } else {
            for (SampleRequest request : input.requests) {
                if (request.isHeartbeat()) {
                    continue;
                }
                if (request.featureVertices.length != request.featureRows.length) {
                    // Every feature vertex needs its row; the assembler re-sends what stays
                    // unanswered.
                    malformedRequests.inc();
                    LOG.warn(
                            "dropped a sample request of batch {} naming {} feature vertices but {}"
                                    + " rows",
                            request.batchId,
                            request.featureVertices.length,
                            request.featureRows.length);
                    continue;
                }
                faults.check(
                        "graph-store",
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        ++requestsAnswered);
                answer(request);
            }
        }
    }

    private void applyUpdate(GraphUpdate update) throws Exception {
        VertexKey key = (VertexKey) getCurrentKey();
        if (update.edge != null) {
            applyEdge(key, update.edge.src, update.edge.dst, update.edge.remove);
        } else {
            applyNode(key, update.node);
        }
    }

    /** A bundle of edges whose destinations this subtask owns (its key is the bundle's anchor). */
    private void applyEdges(EdgeBundle bundle) throws Exception {
        for (int i = 0; i < bundle.size(); i++) {
            long dst = EdgeBundle.destination(bundle.ops[i]);
            boolean remove = EdgeBundle.isRemoval(bundle.ops[i]);
            applyEdge(partitioner.keyOf(dst), bundle.sources[i], dst, remove);
        }
    }

    /** An edge addition or removal into {@code key}'s vertex, buffered with the others. */
    private void applyEdge(VertexKey key, long src, long dst, boolean remove) throws Exception {
        long[] s = sizes.of(key);
        s[PartitionSizes.EDGES_INGESTED]++;
        if (remove ? edgeBuffer.remove(dst, src) : edgeBuffer.add(dst, src)) {
            writeBufferedEdges();
        }
        sizes.touched(key.partition());
        edgesIngested.inc();
        if (!remove && partitioner.partition(src) != key.partition()) {
            cutEdgesIngested.inc();
            s[PartitionSizes.CUT_EDGES_INGESTED]++;
        }
    }

    /**
     * Writes every buffered edge addition and removal, one adjacency update per destination vertex,
     * and keeps the out-edge index of the built partitions in step.
     */
    private void writeBufferedEdges() throws Exception {
        if (edgeBuffer.isEmpty()) {
            return;
        }
        GraphStoreProbe.Listener probe = GraphStoreProbe.current();
        edgeBuffer.drain(
                (key, ops) -> {
                    if (probe != null) {
                        for (long op : ops) {
                            if (op >= 0) {
                                probe.added(subtask, key.vertex(), new long[] {op});
                            } else {
                                probe.removed(subtask, key.vertex(), -1 - op);
                            }
                        }
                    }
                    setCurrentKey(key);
                    long[] s = sizes.of(key);
                    s[PartitionSizes.EDGES] += adjacency.applyAll(ops);
                    sizes.touched(key.partition());
                    tailCache.invalidate(key.vertex());
                    if (outEdges.isBuilt(key.partition())) {
                        for (long op : ops) {
                            if (op >= 0) {
                                outEdges.add(key.partition(), op, key.vertex());
                            } else {
                                outEdges.remove(key.partition(), -1 - op, key.vertex());
                            }
                        }
                    }
                });
    }

    /**
     * This site's part of the deletion of {@code v} (docs/design.md, "Vertex deletion"): every
     * buffered edge is written first, so the deletion ends every edge this subtask received before
     * it. Then {@code v} leaves the in-adjacency of this site's vertices (found through the
     * out-edge index, one read per partition) and every trainer-cache directory; where {@code v} is
     * owned, also its in-edges, attributes, layer rows and split, and its deletion goes out on
     * {@link #DELETED}. Halo replicas of {@code v} are the replica router's to drop.
     */
    private void applyDeletion(long v) throws Exception {
        writeBufferedEdges();
        outEdges.build(owned, this::scanAdjacency);
        GraphStoreProbe.Listener probe = GraphStoreProbe.current();
        if (probe != null) {
            probe.deleted(subtask, v);
        }
        for (int p = 0; p < owned.length; p++) {
            if (!owned[p]) {
                continue;
            }
            long[] targets = outEdges.takeAll(p, v);
            for (long w : targets) {
                VertexKey key = partitioner.keyOf(w);
                setCurrentKey(key);
                if (adjacency.remove(v)) {
                    sizes.of(key)[PartitionSizes.EDGES]--;
                }
                tailCache.invalidate(w);
            }
            if (targets.length > 0) {
                sizes.touched(p);
            }
        }
        for (FeatureCacheDirectory cache : trainerCaches.values()) {
            cache.invalidate(v);
        }
        int partition = partitioner.partition(v);
        if (!owned[partition]) {
            return;
        }
        VertexKey key = partitioner.keyOf(v);
        setCurrentKey(key);
        long[] in = adjacency.neighbours();
        adjacency.clear();
        tailCache.invalidate(v);
        for (long u : in) {
            outEdges.remove(partition, u, v);
        }
        setCurrentKey(key);
        layerOutputs.forget(v, config.hiddenLayers());
        setCurrentKey(key);
        byte[] previous = attributes.value();
        attributes.clear();
        recordCache.invalidate(v);
        long[] s = sizes.of(key);
        s[PartitionSizes.EDGES] -= in.length;
        if (previous != null) {
            s[PartitionSizes.VERTICES]--;
            output.collect(EVENTS, new StreamRecord<>(GraphEvent.deleted(partition, v)));
        }
        sizes.touched(partition);
        verticesDeleted.inc();
        output.collect(DELETED, new StreamRecord<>(Tuple2.of(v, latestRoundStep)));
    }

    /** A replica change from the router (the current key is the replica's). */
    private void applyReplica(ReplicaMessage message) throws Exception {
        if (halo == null) {
            throw new IllegalStateException(
                    "a halo replica message reached a graph store without halo replicas: "
                            + message);
        }
        VertexKey key = message.key();
        long[] s = sizes.of(key);
        s[PartitionSizes.REPLICAS] += halo.apply(message);
        // Trainers may hold the vertex's features as this subtask's neighbour parts placed them.
        for (FeatureCacheDirectory cache : trainerCaches.values()) {
            cache.invalidate(message.vertex);
        }
        sizes.touched(key.partition());
    }

    private void applyNode(VertexKey key, NodeUpdate node) throws Exception {
        if (node.delete) {
            throw new IllegalArgumentException(
                    "a deletion reaches the graph store as one VertexDeletion per site: " + node);
        }
        byte[] previous = attributes.value();
        byte[] record = VertexRecord.encode(node);
        attributes.update(record);
        recordCache.replace(node.id, record);

        for (FeatureCacheDirectory cache : trainerCaches.values()) {
            cache.invalidate(node.id);
        }
        long[] s = sizes.of(key);
        if (previous == null) {
            s[PartitionSizes.VERTICES]++;
        }
        Split before = previous == null ? Split.NONE : VertexRecord.split(previous);
        if (node.split != before || previous == null) {
            output.collect(
                    EVENTS,
                    new StreamRecord<>(GraphEvent.seed(key.partition(), node.id, node.split)));
        }
        sizes.touched(key.partition());
        nodesIngested.inc();
    }

    private void answer(SampleRequest request) throws Exception {
        writeBufferedEdges();
        latestRoundStep = Math.max(latestRoundStep, request.samplingKey);
        requests.inc();
        SampleResponse response = new SampleResponse();
        response.batchId = request.batchId;
        response.hop = request.hop;
        response.route = request.route;
        response.part = request.part;
        sampleNeighbours(request, response);
        if (request.featurePart != SampleRequest.NO_FEATURES && request.layerInput > 0) {
            float[][] summed =
                    config.aggregateAtOwner
                            ? layerOutputs.sumOwned(
                                    request, response, v -> owned[partitioner.partition(v)])
                            : null;
            MiniBatchPart part = layerOutputs.part(request, summed);
            part.sender = subtask;
            output.collect(FEATURES, new StreamRecord<>(part));
        } else if (request.featurePart != SampleRequest.NO_FEATURES) {
            MiniBatchPart part =
                    FeatureParts.byRow(
                            request, trainerCache(request.trainer), this::recordOf, noAttributes);
            part.sender = subtask;
            output.collect(FEATURES, new StreamRecord<>(part));
        }
        if (request.neighbourPart != SampleRequest.NO_FEATURES) {
            MiniBatchPart part =
                    FeatureParts.byVertex(
                            request, response, trainerCache(request.trainer), this::localRecord);
            part.sender = subtask;
            output.collect(FEATURES, new StreamRecord<>(part));
        }
        output.collect(new StreamRecord<>(response));
    }

    /**
     * Samples the in-neighbours of the request's sample vertices. All tails are looked up in the
     * cache before any is read: reads of different vertices' values do not depend on each other, so
     * the processor overlaps their cache misses (a loop that looks up and samples one vertex at a
     * time would wait for each miss in turn).
     */
    private void sampleNeighbours(SampleRequest request, SampleResponse response) throws Exception {
        long[] vertices = request.sampleVertices;
        byte[][] tails = new byte[vertices.length][];
        tailCache.getAll(vertices, 0, vertices.length, tails);
        boolean[] fromState = new boolean[vertices.length];
        for (int i = 0; i < vertices.length; i++) {
            fromState[i] = tails[i] == null || InAdjacency.readsBlocks(tails[i]);
        }
        long[][] sampled = new long[vertices.length][];
        int total = 0;
        for (int i = 0; i < vertices.length; i++) {
            if (fromState[i]) {
                tails[i] = tailFromState(vertices[i], tails[i]);
            }
            sampled[i] =
                    adjacency.sample(
                            tails[i],
                            request.fanout,
                            new SplittableRandom(
                                    Mix.seed(
                                            config.seed,
                                            request.samplingKey,
                                            request.hop,
                                            vertices[i])));
            total += sampled[i].length;
        }
        GraphStoreProbe.Listener probe = GraphStoreProbe.current();
        if (probe != null) {
            for (int i = 0; i < vertices.length; i++) {
                probe.sampled(subtask, vertices[i], sampled[i]);
            }
        }
        response.sampleVertices = vertices;
        response.neighbourCounts = new int[vertices.length];
        response.neighbours = new long[total];
        int at = 0;
        for (int i = 0; i < vertices.length; i++) {
            response.neighbourCounts[i] = sampled[i].length;
            System.arraycopy(sampled[i], 0, response.neighbours, at, sampled[i].length);
            at += sampled[i].length;
        }
    }

    /**
     * The record of {@code vertex} as this subtask holds it (owned, or a halo replica with a
     * record), or null when it cannot tell. A replica made before its vertex had attributes is no
     * answer: the owner may have the record by now, and the replica's push may still be on its way.
     */
    private byte[] localRecord(long vertex) throws Exception {
        if (owned[partitioner.partition(vertex)]) {
            byte[] record = recordOf(vertex);
            return record == null ? noAttributes : record;
        }
        return halo == null ? null : halo.record(siteHolder, vertex);
    }

    /**
     * This subtask's directory of {@code trainer}'s feature cache; null when the caches are off.
     */
    private FeatureCacheDirectory trainerCache(int trainer) {
        return trainerCaches.computeIfAbsent(
                trainer,
                t ->
                        FeatureCacheDirectory.shareOf(
                                config.trainerCacheSlots,
                                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()));
    }

    private boolean ownsAll(long[] vertices) {
        for (long v : vertices) {
            if (!owned[partitioner.partition(v)]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The label of {@code vertex} for a row it writes: from the record cache, else from RocksDB
     * without caching the record (a round writes every vertex once, and those records would evict
     * the ones sampling keeps reading).
     */
    private int labelOf(long vertex) throws Exception {
        byte[] record = recordCache.get(vertex);
        if (record == null) {
            setCurrentKey(partitioner.keyOf(vertex));
            record = attributes.value();
        }
        return record == null ? MiniBatch.ABSENT : VertexRecord.label(record);
    }

    private byte[] recordOf(long vertex) throws Exception {
        byte[] record = recordCache.get(vertex);
        if (record == null) {
            setCurrentKey(partitioner.keyOf(vertex));
            record = attributes.value();
            if (record != null) {
                recordCache.put(vertex, record);
            }
        }
        return record;
    }

    /**
     * Makes {@code vertex} the current key (sampling a tail with blocks reads them) and returns its
     * tail: {@code cached}, or read from RocksDB and cached when {@code cached} is null.
     */
    private byte[] tailFromState(long vertex, byte[] cached) throws Exception {
        setCurrentKey(partitioner.keyOf(vertex));
        if (cached != null) {
            return cached;
        }
        byte[] tail = adjacency.tail(flatDegree);
        tailCache.put(vertex, tail == null ? NO_NEIGHBOURS : tail);
        return tail;
    }

    /** Replicas held by this subtask's partitions, for tests. */
    long replicas() {
        return sizes.sum(PartitionSizes.REPLICAS);
    }

    /** Vertices with attributes in this subtask's partitions, for tests. */
    long vertices() {
        return sizes.sum(PartitionSizes.VERTICES);
    }

    /** The halo replicas (null when off), for tests. */
    HaloReplicas halo() {
        return halo;
    }

    /**
     * Visits every vertex of {@code partitions} that has in-neighbours, with them (for {@link
     * OutEdgeIndex#build}); holds the keys of those vertices meanwhile.
     */
    private void scanAdjacency(boolean[] partitions, OutEdgeIndex.VertexVisitor visit)
            throws Exception {
        KeyedStateBackend<VertexKey> backend = getKeyedStateBackend();
        List<VertexKey> keys = new ArrayList<>();
        try (Stream<VertexKey> all =
                backend.getKeys(InAdjacency.TAIL.getName(), VoidNamespace.INSTANCE)) {
            all.filter(k -> !k.isAnchor() && partitions[k.partition()]).forEach(keys::add);
        }
        for (VertexKey key : keys) {
            setCurrentKey(key);
            visit.visit(key, adjacency.neighbours());
        }
    }

    /** The stored in-neighbours of {@code vertex} (buffered edges written first), for tests. */
    long[] inNeighbours(long vertex) throws Exception {
        writeBufferedEdges();
        setCurrentKey(partitioner.keyOf(vertex));
        return adjacency.neighbours();
    }

    /**
     * The out-edge index's targets of {@code source} in {@code partition} (null while the
     * partition's index is not built), for tests.
     */
    long[] outEdgeTargets(int partition, long source) throws Exception {
        writeBufferedEdges();
        return outEdges.isBuilt(partition) ? outEdges.targets(partition, source) : null;
    }

    /** The stored attribute record of {@code vertex}, or null, for tests. */
    byte[] storedRecord(long vertex) throws Exception {
        setCurrentKey(partitioner.keyOf(vertex));
        return attributes.value();
    }

    /** Layer-output rows the heap cache served, for tests. */
    long layerRowsSummedAtOwner() {
        return layerOutputs.summedRows();
    }

    long layerRowCacheHits() {
        return layerOutputs.cacheHits();
    }

    /** In-degree of the current key's vertex as stored (buffered edges not counted), for tests. */
    int degreeOfCurrentVertex() throws Exception {
        return adjacency.degree();
    }

    /** Adjacency blocks read so far by this subtask (tests check that sampling stays O(fanout)). */
    long adjacencyBlocksRead() {
        return adjacency.blocksRead();
    }

    /** A bounded input may end without another snapshot: its buffered edges are written here. */
    @Override
    public void finish() throws Exception {
        writeBufferedEdges();
        super.finish();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        writeBufferedEdges();
        if (halo != null) {
            halo.snapshot();
        }
        sizes.flush();
    }

    private void scheduleStats() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(now + config.statsIntervalMs, time -> publishStats());
    }

    private void publishStats() {
        sizes.publish(event -> output.collect(EVENTS, new StreamRecord<>(event)));
        scheduleStats();
    }
}
