package io.gnnstream.operators;

import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.common.typeutils.base.array.IntPrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keeps halo replicas in step with their vertices (see docs/design.md, "Halo replicas"). Keyed by
 * the replicated vertex {@code u} (its own partition's key, so subtask {@code i} routes for the
 * partitions GraphStore subtask {@code i} owns), it receives every node update of {@code u} and
 * every edge {@code u -> v} whose ends lie in different partitions, and keeps, in keyed state:
 * {@code u}'s latest attribute record, its cut out-neighbours (so a duplicate edge counts once) and,
 * per holding partition, how many of them lie there. A partition's first such edge sends it a
 * {@link ReplicaMessage#create} with the record (or none, while {@code u} has no attributes); every
 * node update of {@code u} is pushed to every holding partition; the removal of the last such edge
 * sends a {@link ReplicaMessage#drop}. Its messages go to the GraphStore with the graph updates,
 * on ordinary keyed edges, so they are part of every checkpoint and are never lost or repeated.
 */
public class ReplicaRouter extends KeyedProcessFunction<VertexKey, GraphStoreInput, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<byte[]> RECORD =
            new ValueStateDescriptor<>("replica-source-record", BytePrimitiveArraySerializer.INSTANCE);
    static final MapStateDescriptor<Long, Boolean> CUT_OUT_NEIGHBOURS =
            new MapStateDescriptor<>("replica-cut-out-neighbours", LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);
    /** Holding partitions and their cut out-neighbour counts, interleaved and sorted by partition. */
    static final ValueStateDescriptor<int[]> HOLDERS =
            new ValueStateDescriptor<>("replica-holders", IntPrimitiveArraySerializer.INSTANCE);

    private final VertexPartitioner partitioner;

    private transient ValueState<byte[]> record;
    private transient MapState<Long, Boolean> cutOut;
    private transient ValueState<int[]> holders;
    private transient Counter pushes;
    private transient Counter drops;

    public ReplicaRouter(VertexPartitioner partitioner) {
        this.partitioner = partitioner;
    }

    @Override
    public void open(OpenContext openContext) {
        record = getRuntimeContext().getState(RECORD);
        cutOut = getRuntimeContext().getMapState(CUT_OUT_NEIGHBOURS);
        holders = getRuntimeContext().getState(HOLDERS);
        pushes = getRuntimeContext().getMetricGroup().counter("replicaPushes");
        drops = getRuntimeContext().getMetricGroup().counter("replicaDrops");
    }

    @Override
    public void processElement(GraphStoreInput input, Context ctx, Collector<GraphStoreInput> out) throws Exception {
        GraphUpdate update = input.update;
        if (update == null) {
            throw new IllegalArgumentException("the replica router takes graph updates only, got " + input);
        }
        if (update.node != null) {
            byte[] encoded = VertexRecord.encode(update.node);
            record.update(encoded);
            int[] h = holders.value();
            if (h != null) {
                for (int i = 0; i < h.length; i += 2) {
                    push(update.node.id, h[i], encoded, out);
                }
            }
        } else {
            edge(update.edge, out);
        }
    }

    private void edge(EdgeUpdate edge, Collector<GraphStoreInput> out) throws Exception {
        int holder = partitioner.partition(edge.dst);
        if (holder == partitioner.partition(edge.src)) {
            return;
        }
        boolean present = cutOut.contains(edge.dst);
        if (edge.remove == !present) {
            return; // a duplicate addition, or the removal of an absent edge
        }
        int[] h = holders.value();
        int at = indexOf(h, holder);
        if (edge.remove) {
            cutOut.remove(edge.dst);
            if (h[at + 1] > 1) {
                h[at + 1]--;
                holders.update(h);
            } else {
                int[] next = new int[h.length - 2];
                System.arraycopy(h, 0, next, 0, at);
                System.arraycopy(h, at + 2, next, at, h.length - at - 2);
                if (next.length == 0) {
                    holders.clear();
                } else {
                    holders.update(next);
                }
                drops.inc();
                out.collect(GraphStoreInput.of(ReplicaMessage.drop(edge.src, holder)));
            }
            return;
        }
        cutOut.put(edge.dst, Boolean.TRUE);
        if (at >= 0) {
            h[at + 1]++;
            holders.update(h);
            return;
        }
        int insert = -at - 1;
        int[] next = new int[(h == null ? 0 : h.length) + 2];
        if (h != null) {
            System.arraycopy(h, 0, next, 0, insert);
            System.arraycopy(h, insert, next, insert + 2, h.length - insert);
        }
        next[insert] = holder;
        next[insert + 1] = 1;
        holders.update(next);
        pushes.inc();
        out.collect(GraphStoreInput.of(ReplicaMessage.create(edge.src, holder, record.value())));
    }

    private void push(long vertex, int holder, byte[] encoded, Collector<GraphStoreInput> out) {
        pushes.inc();
        out.collect(GraphStoreInput.of(ReplicaMessage.push(vertex, holder, encoded)));
    }

    /** Position of {@code holder} in the interleaved array, or {@code -(insertion position) - 1}. */
    static int indexOf(int[] interleaved, int holder) {
        if (interleaved == null) {
            return -1;
        }
        int lo = 0;
        int hi = interleaved.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int p = interleaved[2 * mid];
            if (p < holder) {
                lo = mid + 1;
            } else if (p > holder) {
                hi = mid - 1;
            } else {
                return 2 * mid;
            }
        }
        return -(2 * lo) - 1;
    }
}
