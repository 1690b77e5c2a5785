package io.gnnstream.operators;

import io.gnnstream.operators.internal.LongList;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * In the edge source's task, groups the parsed edges into {@link EdgeBundle}s, one list per subtask
 * of the keyed operator they go to, so that an edge costs an array append here instead of a record
 * of its own (docs/design.md, "Edge bundles"): every edge, by the GraphStore subtask that owns its
 * destination, on the main output; with {@code cutEdges}, also the edges whose ends lie in
 * different partitions, by the {@link ReplicaRouter} subtask that owns their source, on {@link
 * #CUT_EDGES} (see "Halo replicas"). Stateless: a bundle goes out when it holds {@code bundleEdges}
 * edges, at a processing-time tick ({@link #TICK_MS}), before every checkpoint barrier and at the
 * end of input, so a checkpoint never holds one. A vertex's edges stay in arrival order: they all
 * go to one bundle list, and bundles leave in order on one channel.
 */
public class EdgeBundler extends AbstractStreamOperator<GraphStoreInput>
        implements OneInputStreamOperator<EdgeUpdate, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    /** Bundles of the edges between partitions, for the replica router. */
    public static final OutputTag<GraphStoreInput> CUT_EDGES =
            new OutputTag<>("cut-edges", GraphStoreInputSerializer.TYPE_INFO);

    /** Edges per bundle by default (32 KB of sources and operations). */
    public static final int DEFAULT_BUNDLE_EDGES = 2048;

    /** How often partly filled bundles are sent. */
    public static final long TICK_MS = 100;

    private final VertexPartitioner partitioner;
    private final StoreSites sites;
    private final boolean cutEdges;
    private final int bundleEdges;
    private FaultInjector faults = FaultInjector.NONE;

    /** Edges taken since this subtask started (counts for {@link FaultInjector}). */
    private transient long edgesTaken;

    /** Per subtask: bundles for the GraphStore, then (with cut edges) for the router. */
    private transient Lists store;

    private transient Lists cut;

    /** Bundles for the GraphStore (and router) of {@code scale}. */
    public EdgeBundler(VertexPartitioner partitioner, JobScale scale, boolean cutEdges) {
        this(partitioner, scale, cutEdges, DEFAULT_BUNDLE_EDGES);
    }

    public EdgeBundler(
            VertexPartitioner partitioner, JobScale scale, boolean cutEdges, int bundleEdges) {
        if (bundleEdges < 1) {
            throw new IllegalArgumentException("bundleEdges must be >= 1, got " + bundleEdges);
        }
        this.partitioner = scale.check(partitioner);
        this.sites = scale.storeSites();
        this.cutEdges = cutEdges;
        this.bundleEdges = bundleEdges;
        // In the edge source's task: a task of its own would take every edge as a record again.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    /** Makes this operator fail once as {@code faults} says ({@code edge-bundles}, per edge). */
    public EdgeBundler withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    @Override
    public void open() throws Exception {
        super.open();
        store = new Lists(null);
        cut = cutEdges ? new Lists(CUT_EDGES) : null;
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + TICK_MS, this::tick);
    }

    private void tick(long time) {
        sendAll();
        getProcessingTimeService().registerTimer(time + TICK_MS, this::tick);
    }

    @Override
    public void processElement(StreamRecord<EdgeUpdate> element) {
        EdgeUpdate edge = element.getValue();
        faults.check(
                "edge-bundles",
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                ++edgesTaken);
        long op = EdgeBundle.op(edge.dst, edge.remove);
        int dstPartition = partitioner.partition(edge.dst);
        long time = element.hasTimestamp() ? element.getTimestamp() : Long.MAX_VALUE;
        store.add(sites.siteOf(dstPartition), edge.src, op, time);
        if (cut != null) {
            int srcPartition = partitioner.partition(edge.src);
            if (srcPartition != dstPartition) {
                cut.add(sites.siteOf(srcPartition), edge.src, op, time);
            }
        }
    }

    private void sendAll() {
        store.sendAll();
        if (cut != null) {
            cut.sendAll();
        }
    }

    /** Checkpoints never hold a bundle: every one leaves before the barrier. */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        sendAll();
    }

    @Override
    public void finish() throws Exception {
        sendAll();
        super.finish();
    }

    /** One bundle list per subtask, sent to the main output or {@code tag}. */
    private final class Lists {
        final OutputTag<GraphStoreInput> tag;
        final LongList[] sources = new LongList[sites.parallelism()];
        final LongList[] ops = new LongList[sites.parallelism()];

        /** Per list: the earliest timestamp of its edges (their records'), the bundle's. */
        final long[] since = new long[sites.parallelism()];

        Lists(OutputTag<GraphStoreInput> tag) {
            java.util.Arrays.fill(since, Long.MAX_VALUE);
            this.tag = tag;
            for (int s = 0; s < sources.length; s++) {
                sources[s] = new LongList();
                ops[s] = new LongList();
            }
        }

        void add(int site, long src, long op, long time) {
            since[site] = Math.min(since[site], time);
            sources[site].add(src);
            ops[site].add(op);
            if (sources[site].size() >= bundleEdges) {
                send(site);
            }
        }

        void send(int site) {
            if (sources[site].size() == 0) {
                return;
            }
            EdgeBundle bundle =
                    new EdgeBundle(
                            sites.holderOfSite(site), sources[site].toArray(), ops[site].toArray());
            sources[site].clear();
            ops[site].clear();
            StreamRecord<GraphStoreInput> record =
                    since[site] == Long.MAX_VALUE
                            ? new StreamRecord<>(GraphStoreInput.of(bundle))
                            : new StreamRecord<>(GraphStoreInput.of(bundle), since[site]);
            since[site] = Long.MAX_VALUE;
            if (tag == null) {
                output.collect(record);
            } else {
                output.collect(tag, record);
            }
        }

        void sendAll() {
            for (int s = 0; s < sources.length; s++) {
                send(s);
            }
        }
    }
}
