package io.gnnstream.operators;

import io.gnnstream.operators.internal.LongList;
import io.gnnstream.operators.internal.StoreSites;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * In the edge source's task, groups edges into {@link EdgeBundle}s, one list per subtask of the
 * keyed operator they go to, so that an edge costs an array append here instead of a record of its
 * own (docs/design.md, "Edge bundles"). {@link Grouping#STORE}: every edge, by the GraphStore
 * subtask that owns its destination; {@link Grouping#CUT}: the edges whose ends lie in different
 * partitions, by the {@link ReplicaRouter} subtask that owns their source (see "Halo replicas").
 * Stateless: a bundle goes out when it holds {@code bundleEdges} edges, at a processing-time tick
 * ({@link #TICK_MS}), before every checkpoint barrier and at the end of input, so a checkpoint
 * never holds one. A vertex's edges stay in arrival order: they all go to one bundle list, and
 * bundles leave in order on one channel.
 */
public class EdgeBundler extends AbstractStreamOperator<GraphStoreInput>
        implements OneInputStreamOperator<GraphStoreInput, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    /** Which edges go into bundles, and by which end they are grouped. */
    public enum Grouping {
        /** Every edge, by the subtask owning its destination (the GraphStore's key). */
        STORE,
        /** Edges between partitions, by the subtask owning their source (the replica router's key). */
        CUT
    }

    /** Edges per bundle by default (32 KB of sources and operations). */
    public static final int DEFAULT_BUNDLE_EDGES = 2048;
    /** How often partly filled bundles are sent. */
    public static final long TICK_MS = 100;

    private final VertexPartitioner partitioner;
    private final StoreSites sites;
    private final Grouping grouping;
    private final int bundleEdges;

    private transient LongList[] sources;
    private transient LongList[] ops;

    /** Bundles for a GraphStore (or router) of {@code parallelism} subtasks. */
    public EdgeBundler(VertexPartitioner partitioner, int parallelism, Grouping grouping) {
        this(partitioner, parallelism, grouping, DEFAULT_BUNDLE_EDGES);
    }

    public EdgeBundler(VertexPartitioner partitioner, int parallelism, Grouping grouping, int bundleEdges) {
        if (bundleEdges < 1) {
            throw new IllegalArgumentException("bundleEdges must be >= 1, got " + bundleEdges);
        }
        this.partitioner = partitioner;
        this.sites = new StoreSites(partitioner.numPartitions(), parallelism);
        this.grouping = grouping;
        this.bundleEdges = bundleEdges;
        // In the edge source's task: a task of its own would take every edge as a record again.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void open() throws Exception {
        super.open();
        sources = new LongList[sites.parallelism()];
        ops = new LongList[sites.parallelism()];
        for (int s = 0; s < sources.length; s++) {
            sources[s] = new LongList();
            ops[s] = new LongList();
        }
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + TICK_MS, this::tick);
    }

    private void tick(long time) {
        sendAll();
        getProcessingTimeService().registerTimer(time + TICK_MS, this::tick);
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) {
        GraphStoreInput input = element.getValue();
        if (input.update == null || input.update.edge == null) {
            throw new IllegalArgumentException("the edge bundler takes edge updates only, got " + input);
        }
        EdgeUpdate edge = input.update.edge;
        int site;
        if (grouping == Grouping.STORE) {
            site = sites.siteOf(partitioner.partition(edge.dst));
        } else {
            int partition = partitioner.partition(edge.src);
            if (partition == partitioner.partition(edge.dst)) {
                return;
            }
            site = sites.siteOf(partition);
        }
        sources[site].add(edge.src);
        ops[site].add(EdgeBundle.op(edge.dst, edge.remove));
        if (sources[site].size() >= bundleEdges) {
            send(site);
        }
    }

    private void send(int site) {
        if (sources[site].size() == 0) {
            return;
        }
        EdgeBundle bundle = new EdgeBundle(sites.holderOfSite(site), sources[site].toArray(), ops[site].toArray());
        sources[site].clear();
        ops[site].clear();
        output.collect(new StreamRecord<>(GraphStoreInput.of(bundle)));
    }

    private void sendAll() {
        for (int s = 0; s < sources.length; s++) {
            send(s);
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
}
