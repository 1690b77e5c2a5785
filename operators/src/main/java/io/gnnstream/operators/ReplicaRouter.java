package io.gnnstream.operators;

import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.operators.internal.CutNeighbourCache;
import io.gnnstream.operators.internal.SourceEdgeBuffer;
import io.gnnstream.operators.internal.StoreSites;
import io.gnnstream.state.VertexKey;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Keeps halo replicas in step with their vertices (see docs/design.md, "Halo replicas"). Replicas
 * are held per <em>site</em>, a GraphStore subtask ({@link StoreSites}): a site holds a copy of
 * {@code u} while {@code u} has an out-neighbour in one of the site's partitions and is owned by
 * another site. Keyed by the replicated vertex {@code u} (its own partition's key), the router
 * receives every node update of {@code u} and every edge {@code u -> v} whose ends lie in different
 * partitions (in {@link EdgeBundle}s from the {@link EdgeBundler}, keyed by the anchor of this
 * subtask's first partition, or singly), and keeps, in keyed state, {@code u}'s latest attribute
 * record and those cut out-neighbours (sorted, so a duplicate edge counts once; all of them,
 * whatever the site, so that the sites can be worked out again at another parallelism). A site's
 * first such edge sends it a {@link ReplicaMessage#create} with the record (or none, while
 * {@code u} has no attributes); every node update of {@code u} is pushed to every holding site; the
 * removal of the last such edge sends a {@link ReplicaMessage#drop}.
 *
 * <p>Edges wait in a heap buffer ({@link SourceEdgeBuffer}, {@code bufferEdges} in all) and are
 * applied grouped by source: when the buffer is full, before every checkpoint barrier, at the end
 * of input, and at a processing-time tick ({@link #TICK_MS}) when no edge arrived since the
 * previous tick or the oldest has waited {@link #MAX_WAIT_MS}; so a restore replays the rest from
 * the sources, and a quiet stream's replicas follow its edges within a tick or two. A source's cut
 * out-neighbours are worked on in a heap cache ({@link CutNeighbourCache}, at most
 * {@code cacheEdges} neighbours), loaded from keyed state on the source's first use (unless the job
 * started without state and the cache was never emptied), so a drain touches each source's entry
 * once and reads no state for the sources the cache holds. Changed
 * entries are written back to keyed state before every checkpoint barrier (after the buffer is
 * applied), at the end of input, and when the cache outgrows its capacity, which then empties it:
 * neither buffer nor cache is ever the only copy of a change at a checkpoint. A node update is
 * pushed at once to the sites that hold a replica by then; a creation that its source's buffered
 * edges make later carries the record as it is when they are applied, so every replica ends with
 * the latest record. The messages go to the GraphStore with the graph updates, on ordinary keyed
 * edges, so they are part of every checkpoint and never lost or repeated.
 *
 * <p>Rescaling: union operator state records the GraphStore parallelism the replicas were made
 * for. A restore at another one (or from state without that record) makes the GraphStore drop all
 * its replicas and the router create them again for the new sites from its keyed state, once, at
 * its first input or processing-time tick; until then a checkpoint records that the replicas are
 * not made, so a restore from it makes them again.
 */
public class ReplicaRouter extends AbstractStreamOperator<GraphStoreInput>
        implements OneInputStreamOperator<GraphStoreInput, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    /** Edges buffered by default before they are applied. */
    public static final int DEFAULT_BUFFER_EDGES = 1 << 20;
    /** Cut out-neighbours the heap cache holds by default before it is written back and emptied. */
    public static final int DEFAULT_CACHE_EDGES = 1 << 22;
    /** How often the buffer is looked at. */
    public static final long TICK_MS = 100;
    /** The longest an edge waits in the buffer while edges keep arriving. */
    public static final long MAX_WAIT_MS = 1000;

    static final ValueStateDescriptor<byte[]> RECORD =
            new ValueStateDescriptor<>("replica-source-record", BytePrimitiveArraySerializer.INSTANCE);
    static final ValueStateDescriptor<long[]> CUT_OUT_NEIGHBOURS =
            new ValueStateDescriptor<>("replica-cut-out-neighbours", LongPrimitiveArraySerializer.INSTANCE);
    /** The GraphStore parallelism the replicas were made for; -1 while they are not made. */
    static final ListStateDescriptor<Integer> MADE_FOR =
            new ListStateDescriptor<>("replica-router-sites", IntSerializer.INSTANCE);

    private final VertexPartitioner partitioner;
    private final StoreSites sites;
    private final int bufferEdges;
    private final int cacheEdges;

    private transient ValueState<byte[]> record;
    private transient ValueState<long[]> cutOut;
    private transient ListState<Integer> madeFor;
    private transient boolean remake;
    /** Buffered edges: per source, destinations, negated (minus one) for removals, in order. */
    private transient SourceEdgeBuffer buffer;
    /** The buffer's size at the previous tick. */
    private transient int sizeAtTick;
    /** When the buffer's oldest edge arrived. */
    private transient long oldestAt;
    private transient CutNeighbourCache cache;
    private transient CutNeighbourCache.Load load;
    private transient CutNeighbourCache.Store store;
    private transient Counter pushes;
    private transient Counter drops;

    public ReplicaRouter(VertexPartitioner partitioner, int storeParallelism) {
        this(partitioner, storeParallelism, DEFAULT_BUFFER_EDGES, DEFAULT_CACHE_EDGES);
    }

    public ReplicaRouter(VertexPartitioner partitioner, int storeParallelism, int bufferEdges, int cacheEdges) {
        if (bufferEdges < 1 || cacheEdges < 1) {
            throw new IllegalArgumentException("bufferEdges and cacheEdges must be >= 1, got " + bufferEdges
                    + " and " + cacheEdges);
        }
        this.partitioner = partitioner;
        this.sites = new StoreSites(partitioner.numPartitions(), storeParallelism);
        this.bufferEdges = bufferEdges;
        this.cacheEdges = cacheEdges;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        record = context.getKeyedStateStore().getState(RECORD);
        cutOut = context.getKeyedStateStore().getState(CUT_OUT_NEIGHBOURS);
        madeFor = context.getOperatorStateStore().getUnionListState(MADE_FOR);
        buffer = new SourceEdgeBuffer(partitioner, bufferEdges);
        cache = new CutNeighbourCache(sites, this::homeOf, cacheEdges, !context.isRestored());
        load = u -> {
            setCurrentKey(partitioner.keyOf(u));
            return cutOut.value();
        };
        store = (u, neighbours) -> {
            setCurrentKey(partitioner.keyOf(u));
            if (neighbours == null) {
                cutOut.clear();
            } else {
                cutOut.update(neighbours);
            }
        };
        remake = context.isRestored() && StoreSites.madeForAnother(madeFor.get(), sites.parallelism());
    }

    @Override
    public void open() throws Exception {
        super.open();
        pushes = getMetricGroup().counter("replicaPushes");
        drops = getMetricGroup().counter("replicaDrops");
        getMetricGroup().gauge("cutNeighboursCached", () -> cache.cached());
        long now = getProcessingTimeService().getCurrentProcessingTime();
        if (remake) {
            getProcessingTimeService().registerTimer(now, t -> remake());
        }
        getProcessingTimeService().registerTimer(now + TICK_MS, this::tick);
    }

    /** Applies the buffer when its edges stopped arriving or the oldest waited too long. */
    private void tick(long time) throws Exception {
        int size = buffer.size();
        if (size > 0 && (size == sizeAtTick || time - oldestAt >= MAX_WAIT_MS)) {
            drain();
        }
        sizeAtTick = buffer.size();
        getProcessingTimeService().registerTimer(time + TICK_MS, this::tick);
    }

    /** Applies the buffered edges, then bounds the cache. */
    private void drain() throws Exception {
        buffer.drain(this::apply);
        if (cache.full()) {
            cache.writeBack(store, true);
        }
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) throws Exception {
        remake();
        EdgeBundle bundle = element.getValue().edges;
        if (bundle != null) {
            for (int i = 0; i < bundle.size(); i++) {
                long u = bundle.sources[i];
                bufferEdge(u, partitioner.partition(u), bundle.ops[i]);
            }
        } else {
            GraphUpdate update = element.getValue().update;
            if (update == null) {
                throw new IllegalArgumentException("the replica router takes graph updates and edge bundles only, got "
                        + element.getValue());
            }
            if (update.node != null) {
                applyNode(update.node.id, VertexRecord.encode(update.node));
            } else {
                int partition = partitioner.partition(update.edge.src);
                if (partition != partitioner.partition(update.edge.dst)) {
                    bufferEdge(update.edge.src, partition, EdgeBundle.op(update.edge.dst, update.edge.remove));
                }
            }
        }
    }

    private void bufferEdge(long u, int partition, long op) throws Exception {
        if (buffer.size() == 0) {
            oldestAt = getProcessingTimeService().getCurrentProcessingTime();
        }
        if (buffer.add(u, partition, op)) {
            drain();
        }
    }

    /** Stores the record and pushes it to every site that holds a replica. */
    private void applyNode(long u, byte[] encoded) throws Exception {
        CutNeighbourCache.Entry entry = cache.get(u, load);
        setCurrentKey(partitioner.keyOf(u));
        record.update(encoded);
        for (int site = 0; site < entry.sites(); site++) {
            if (entry.inSite(site) > 0) {
                send(ReplicaMessage.push(u, sites.holderOfSite(site), encoded), pushes);
            }
        }
    }

    private void send(ReplicaMessage message, Counter counter) {
        counter.inc();
        output.collect(new StreamRecord<>(GraphStoreInput.of(message)));
    }

    /** Applies a source's buffered edges in order, {@code ops[order[from]]} to {@code ops[order[to - 1]]}. */
    private void apply(long u, long[] ops, int[] order, int from, int to) throws Exception {
        CutNeighbourCache.Entry entry = cache.get(u, load);
        byte[] known = null;
        boolean recordRead = false;
        for (int i = from; i < to; i++) {
            long op = ops[order[i]];
            if (EdgeBundle.isRemoval(op)) {
                int site = cache.remove(u, entry, EdgeBundle.destination(op));
                if (site >= 0) {
                    send(ReplicaMessage.drop(u, sites.holderOfSite(site)), drops);
                }
            } else {
                int site = cache.add(u, entry, op);
                if (site >= 0) {
                    if (!recordRead) {
                        setCurrentKey(partitioner.keyOf(u));
                        known = record.value();
                        recordRead = true;
                    }
                    send(ReplicaMessage.create(u, sites.holderOfSite(site), known), pushes);
                }
            }
        }
    }

    /** After a restore at another parallelism: a creation for every replica of the new sites. */
    private void remake() throws Exception {
        if (!remake) {
            return;
        }
        remake = false;
        cache.writeBack(store, true);
        List<VertexKey> keys;
        KeyedStateBackend<VertexKey> backend = getKeyedStateBackend();
        try (Stream<VertexKey> all = backend.getKeys(CUT_OUT_NEIGHBOURS.getName(), VoidNamespace.INSTANCE)) {
            keys = all.collect(Collectors.toList());
        }
        for (VertexKey key : keys) {
            CutNeighbourCache.Entry entry = cache.get(key.vertex(), load);
            byte[] known = null;
            boolean recordRead = false;
            for (int site = 0; site < entry.sites(); site++) {
                if (entry.inSite(site) > 0) {
                    if (!recordRead) {
                        setCurrentKey(key);
                        known = record.value();
                        recordRead = true;
                    }
                    send(ReplicaMessage.create(key.vertex(), sites.holderOfSite(site), known), pushes);
                }
            }
            if (cache.full()) {
                cache.writeBack(store, true);
            }
        }
    }

    /** The site that owns {@code u}. */
    private int homeOf(long u) {
        return sites.siteOf(partitioner.partition(u));
    }

    /** Checkpoints hold every change: the buffer is applied and the cache written back before the barrier goes on. */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        buffer.drain(this::apply);
        cache.writeBack(store, false);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        madeFor.update(List.of(remake ? -1 : sites.parallelism()));
    }

    /** A bounded input applies its buffered edges and writes back its changes at its end. */
    @Override
    public void finish() throws Exception {
        remake();
        buffer.drain(this::apply);
        cache.writeBack(store, false);
        super.finish();
    }
}
