package io.gnnstream.operators;

import com.carrotsearch.hppc.IntIntHashMap;
import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongObjectCursor;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import java.util.Arrays;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Keeps halo replicas in step with their vertices (see docs/design.md, "Halo replicas"). Keyed by
 * the replicated vertex {@code u} (its own partition's key, so subtask {@code i} routes for the
 * partitions GraphStore subtask {@code i} owns), it receives every node update of {@code u} and
 * every edge {@code u -> v} whose ends lie in different partitions, and keeps, in keyed state,
 * {@code u}'s latest attribute record and its cut out-neighbours (sorted, so a duplicate edge
 * counts once); a partition holds a replica of {@code u} while one of them lies in it. A partition's
 * first such edge sends it a {@link ReplicaMessage#create} with the record (or none, while
 * {@code u} has no attributes); every node update of {@code u} is pushed to every holding partition;
 * the removal of the last such edge sends a {@link ReplicaMessage#drop}.
 *
 * <p>Edges wait in a heap buffer per source vertex ({@code bufferEdges} in all) and are applied one
 * state read and write per source: all of them when the buffer is full, before every checkpoint
 * barrier and at the end of input, and a source's own before its node update. So checkpoints
 * never hold the buffer, and a restore replays the rest from the sources. The messages go to the
 * GraphStore with the graph updates, on ordinary keyed edges, so they are part of every checkpoint
 * and never lost or repeated.
 */
public class ReplicaRouter extends AbstractStreamOperator<GraphStoreInput>
        implements OneInputStreamOperator<GraphStoreInput, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    /** Edges buffered by default before they are applied. */
    public static final int DEFAULT_BUFFER_EDGES = 65_536;

    static final ValueStateDescriptor<byte[]> RECORD =
            new ValueStateDescriptor<>("replica-source-record", BytePrimitiveArraySerializer.INSTANCE);
    static final ValueStateDescriptor<long[]> CUT_OUT_NEIGHBOURS =
            new ValueStateDescriptor<>("replica-cut-out-neighbours", LongPrimitiveArraySerializer.INSTANCE);

    private final VertexPartitioner partitioner;
    private final int bufferEdges;

    private transient ValueState<byte[]> record;
    private transient ValueState<long[]> cutOut;
    /** Per source: its buffered edges' destinations, negated (minus one) for removals, in order. */
    private transient LongObjectHashMap<LongArrayList> buffer;
    private transient int buffered;
    private transient Counter pushes;
    private transient Counter drops;

    public ReplicaRouter(VertexPartitioner partitioner) {
        this(partitioner, DEFAULT_BUFFER_EDGES);
    }

    public ReplicaRouter(VertexPartitioner partitioner, int bufferEdges) {
        if (bufferEdges < 1) {
            throw new IllegalArgumentException("bufferEdges must be >= 1, got " + bufferEdges);
        }
        this.partitioner = partitioner;
        this.bufferEdges = bufferEdges;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        record = context.getKeyedStateStore().getState(RECORD);
        cutOut = context.getKeyedStateStore().getState(CUT_OUT_NEIGHBOURS);
        buffer = new LongObjectHashMap<>();
    }

    @Override
    public void open() throws Exception {
        super.open();
        pushes = getMetricGroup().counter("replicaPushes");
        drops = getMetricGroup().counter("replicaDrops");
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) throws Exception {
        GraphUpdate update = element.getValue().update;
        if (update == null) {
            throw new IllegalArgumentException("the replica router takes graph updates only, got " + element.getValue());
        }
        if (update.node != null) {
            long u = update.node.id;
            LongArrayList pending = buffer.remove(u);
            if (pending != null) {
                buffered -= pending.size();
                apply(u, pending);
            }
            setCurrentKey(partitioner.keyOf(u));
            byte[] encoded = VertexRecord.encode(update.node);
            record.update(encoded);
            long[] dsts = cutOut.value();
            if (dsts != null) {
                for (int holder : holders(dsts).keys().toArray()) {
                    pushes.inc();
                    output.collect(new StreamRecord<>(GraphStoreInput.of(ReplicaMessage.push(u, holder, encoded))));
                }
            }
            return;
        }
        EdgeUpdate edge = update.edge;
        if (partitioner.partition(edge.src) == partitioner.partition(edge.dst)) {
            return;
        }
        LongArrayList pending = buffer.get(edge.src);
        if (pending == null) {
            pending = new LongArrayList(2);
            buffer.put(edge.src, pending);
        }
        pending.add(edge.remove ? -edge.dst - 1 : edge.dst);
        if (++buffered >= bufferEdges) {
            flush();
        }
    }

    /** Applies every buffered edge, one source at a time. */
    private void flush() throws Exception {
        if (buffered == 0) {
            return;
        }
        long[] sources = buffer.keys().toArray();
        Arrays.sort(sources);
        for (long u : sources) {
            apply(u, buffer.get(u));
        }
        buffer.clear();
        buffered = 0;
    }

    /** Applies a source's edges in order: one read and one write of its cut out-neighbours. */
    private void apply(long u, LongArrayList ops) throws Exception {
        setCurrentKey(partitioner.keyOf(u));
        long[] present = cutOut.value();
        LongArrayList dsts = new LongArrayList(Math.max(4, (present == null ? 0 : present.length) + ops.size()));
        if (present != null) {
            dsts.add(present, 0, present.length);
        }
        IntIntHashMap counts = holders(present);
        byte[] known = null;
        boolean recordRead = false;
        for (int i = 0; i < ops.size(); i++) {
            long op = ops.get(i);
            boolean remove = op < 0;
            long v = remove ? -op - 1 : op;
            int at = Arrays.binarySearch(dsts.buffer, 0, dsts.size(), v);
            int holder = partitioner.partition(v);
            if (remove) {
                if (at < 0) {
                    continue;
                }
                dsts.removeAt(at);
                if (counts.addTo(holder, -1) == 0) {
                    counts.remove(holder);
                    drops.inc();
                    output.collect(new StreamRecord<>(GraphStoreInput.of(ReplicaMessage.drop(u, holder))));
                }
            } else {
                if (at >= 0) {
                    continue;
                }
                dsts.insert(-at - 1, v);
                if (counts.addTo(holder, 1) == 1) {
                    if (!recordRead) {
                        known = record.value();
                        recordRead = true;
                    }
                    pushes.inc();
                    output.collect(new StreamRecord<>(GraphStoreInput.of(ReplicaMessage.create(u, holder, known))));
                }
            }
        }
        if (dsts.isEmpty()) {
            cutOut.clear();
        } else {
            cutOut.update(dsts.toArray());
        }
    }

    /** Cut out-neighbours per holding partition. */
    private IntIntHashMap holders(long[] dsts) {
        IntIntHashMap counts = new IntIntHashMap();
        if (dsts != null) {
            for (long v : dsts) {
                counts.addTo(partitioner.partition(v), 1);
            }
        }
        return counts;
    }

    /** Checkpoints never hold the buffer: it is applied before the barrier goes on. */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flush();
    }

    /** A bounded input applies its buffered edges at its end. */
    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }
}
