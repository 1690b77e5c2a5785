package io.gnnstream.operators;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongCursor;
import com.carrotsearch.hppc.cursors.LongObjectCursor;
import io.gnnstream.operators.internal.CutEdgeLog;
import io.gnnstream.operators.internal.ReplicaHolders;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Keeps halo replicas in step with their vertices (see docs/design.md, "Halo replicas"). Replicas
 * are held per <em>site</em>, a GraphStore subtask ({@link StoreSites}): a site holds a copy of
 * {@code u} while {@code u} has an out-neighbour in one of the site's partitions and is owned by
 * another site. Keyed by the replicated vertex {@code u} (its own partition's key), the router
 * receives every node update of {@code u} and every edge {@code u -> v} whose ends lie in different
 * partitions (in {@link EdgeBundle}s from the {@link EdgeBundler}, keyed by the anchor of this
 * subtask's first partition, or singly).
 *
 * <p>State, all keyed: {@code u}'s latest attribute record under {@code u}'s key; per logical
 * partition, under its anchor key, the {@link CutEdgeLog} of the edges from its vertices (all of
 * them, whatever the site, so that the sites can be worked out again at another parallelism) and
 * the {@link ReplicaHolders} of its vertices (a record or not, the sites holding a replica). An
 * edge costs an append to the log and, when its ends lie on different sites, a look at the holders:
 * the site's first such edge sends it a {@link ReplicaMessage#create} with the record (or none
 * while {@code u} has no attributes). Every node update of {@code u} is pushed to every holding
 * site. A removal between sites marks {@code u} for a check: once the check is due (after {@code
 * maxDropDelayMs}, at a processing-time tick), before every checkpoint barrier and at the end of
 * input, the partition's log is compacted into its current edges, and a holding site where {@code
 * u} has no out-neighbour left gets a {@link ReplicaMessage#drop}. So the duplicate of an edge
 * changes nothing, and the removal of an absent one drops nothing. The log's heap tails and the
 * changed holders go to state before every barrier, and the messages go to the GraphStore with the
 * graph updates on ordinary keyed edges: they are part of every checkpoint and never lost or
 * repeated.
 *
 * <p>Rescaling: union operator state records the GraphStore parallelism the replicas were made for.
 * A restore at another one (or from state without that record) makes the GraphStore drop all its
 * replicas and the router create them again for the new sites from the compacted logs, once, at its
 * first input or processing-time tick; until then a checkpoint records that the replicas are not
 * made, so a restore from it makes them again. State in the per-vertex layout ({@link
 * #LEGACY_CUT_OUT_NEIGHBOURS}) is moved into the logs at restore.
 */
public class ReplicaRouter extends KeyedStateOperator<GraphStoreInput>
        implements OneInputStreamOperator<GraphStoreInput, GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    /** How long a removal between sites waits at most, by default, before its drop check. */
    public static final long DEFAULT_MAX_DROP_DELAY_MS = 1000;

    /** How often due checks and grown logs are looked at. */
    public static final long TICK_MS = 100;

    /** Logged operations kept on the heap before they go to state. */
    static final int TAIL_FLUSH = 1 << 21;

    static final ValueStateDescriptor<byte[]> RECORD =
            new ValueStateDescriptor<>(
                    "replica-source-record", BytePrimitiveArraySerializer.INSTANCE);

    /** Per partition (anchor key): chunks of its {@link CutEdgeLog}. */
    static final ListStateDescriptor<byte[]> CUT_EDGE_LOG =
            new ListStateDescriptor<>(
                    "replica-cut-edge-log", BytePrimitiveArraySerializer.INSTANCE);

    /** Per partition (anchor key): its {@link ReplicaHolders}. */
    static final ValueStateDescriptor<byte[]> HOLDERS =
            new ValueStateDescriptor<>("replica-holders", BytePrimitiveArraySerializer.INSTANCE);

    /**
     * The per-vertex layout: each vertex's sorted cut out-neighbours; moved into the logs at
     * restore.
     */
    static final ValueStateDescriptor<long[]> LEGACY_CUT_OUT_NEIGHBOURS =
            new ValueStateDescriptor<>(
                    "replica-cut-out-neighbours", LongPrimitiveArraySerializer.INSTANCE);

    /** The GraphStore parallelism the replicas were made for; -1 while they are not made. */
    static final ListStateDescriptor<Integer> MADE_FOR =
            new ListStateDescriptor<>("replica-router-sites", IntSerializer.INSTANCE);

    private final VertexPartitioner partitioner;
    private final StoreSites sites;
    private final long maxDropDelayMs;
    private FaultInjector faults = FaultInjector.NONE;

    /** Inputs taken since this subtask started (counts for {@link FaultInjector}). */
    private transient long inputsTaken;

    private transient ValueState<byte[]> record;
    private transient ListState<byte[]> logState;
    private transient ValueState<byte[]> holdersState;
    private transient ListState<Integer> madeFor;
    private transient boolean remake;
    private transient CutEdgeLog log;
    private transient CutEdgeLog.Chunks chunks;
    private transient ReplicaHolders holders;

    /** Per partition, the vertices with a removal between sites since its last compaction. */
    private transient LongHashSet[] checks;

    /** Per partition, whether deletions were logged since its last compaction. */
    private transient boolean[] deletionChecks;

    /** Marked vertices and partitions with deletions, not yet checked. */
    private transient int pendingChecks;

    /** When the oldest pending check was made. */
    private transient long oldestCheckAt;

    private transient Counter pushes;
    private transient Counter drops;

    /** The router for the GraphStore of {@code scale}. */
    public ReplicaRouter(VertexPartitioner partitioner, JobScale scale) {
        this(partitioner, scale, DEFAULT_MAX_DROP_DELAY_MS);
    }

    /**
     * With {@code maxDropDelayMs} 0, removals are checked as soon as their input record is applied.
     */
    public ReplicaRouter(VertexPartitioner partitioner, JobScale scale, long maxDropDelayMs) {
        if (maxDropDelayMs < 0) {
            throw new IllegalArgumentException(
                    "maxDropDelayMs must be >= 0, got " + maxDropDelayMs);
        }
        this.partitioner = scale.check(partitioner);
        this.sites = scale.storeSites();
        this.maxDropDelayMs = maxDropDelayMs;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        record = context.getKeyedStateStore().getState(RECORD);
        logState = context.getKeyedStateStore().getListState(CUT_EDGE_LOG);
        holdersState = context.getKeyedStateStore().getState(HOLDERS);
        madeFor = context.getOperatorStateStore().getUnionListState(MADE_FOR);
        int partitions = partitioner.numPartitions();
        log = new CutEdgeLog(partitions, TAIL_FLUSH);
        holders = new ReplicaHolders(partitions, sites.parallelism());
        checks = new LongHashSet[partitions];
        deletionChecks = new boolean[partitions];
        chunks =
                new CutEdgeLog.Chunks() {
                    @Override
                    public Iterable<byte[]> read(int partition) throws Exception {
                        setCurrentKey(VertexKey.anchor(partition));
                        Iterable<byte[]> stored = logState.get();
                        return stored == null ? List.of() : stored;
                    }

                    @Override
                    public void append(int partition, byte[] chunk) throws Exception {
                        setCurrentKey(VertexKey.anchor(partition));
                        logState.add(chunk);
                    }

                    @Override
                    public void replace(int partition, List<byte[]> replacement) throws Exception {
                        setCurrentKey(VertexKey.anchor(partition));
                        logState.update(replacement);
                    }
                };
        remake =
                context.isRestored()
                        && StoreSites.madeForAnother(madeFor.get(), sites.parallelism());
        if (context.isRestored()) {
            restoreHolders(context.getKeyedStateStore().getState(LEGACY_CUT_OUT_NEIGHBOURS));
        }
    }

    /**
     * Reads the holders of this subtask's partitions; moves state in the per-vertex layout into the
     * logs.
     */
    private void restoreHolders(ValueState<long[]> old) throws Exception {
        for (VertexKey key : keys(HOLDERS.getName())) {
            setCurrentKey(key);
            holders.restore(key.partition(), holdersState.value(), remake);
        }
        List<VertexKey> legacy = keys(LEGACY_CUT_OUT_NEIGHBOURS.getName());
        if (legacy.isEmpty()) {
            return;
        }
        for (VertexKey key : legacy) {
            setCurrentKey(key);
            long u = key.vertex();
            int partition = key.partition();
            for (long v : old.value()) {
                log.append(partition, u, v);
                int site = sites.siteOf(partitioner.partition(v));
                if (!remake && site != sites.siteOf(partition)) {
                    holders.hold(partition, u, site);
                }
            }
            old.clear();
        }
        for (VertexKey key : keys(RECORD.getName())) {
            holders.markRecord(key.partition(), key.vertex());
        }
    }

    private List<VertexKey> keys(String state) throws Exception {
        KeyedStateBackend<VertexKey> backend = getKeyedStateBackend();
        try (Stream<VertexKey> all = backend.getKeys(state, VoidNamespace.INSTANCE)) {
            return all.collect(Collectors.toList());
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        pushes = getMetricGroup().counter("replicaPushes");
        drops = getMetricGroup().counter("replicaDrops");
        getMetricGroup().gauge("cutEdgeLogTail", () -> log.tailSize());
        long now = getProcessingTimeService().getCurrentProcessingTime();
        if (remake) {
            getProcessingTimeService().registerTimer(now, t -> remake());
        }
        getProcessingTimeService().registerTimer(now + TICK_MS, this::tick);
    }

    /** Runs the due drop checks and compacts grown logs. */
    private void tick(long time) throws Exception {
        remake();
        if (pendingChecks > 0 && time - oldestCheckAt >= maxDropDelayMs) {
            runChecks();
        }
        for (int p = 0; p < partitioner.numPartitions(); p++) {
            if (log.grown(p)) {
                compact(p);
            }
        }
        getProcessingTimeService().registerTimer(time + TICK_MS, this::tick);
    }

    /** Makes this operator fail once as {@code faults} says ({@code replica-router}, per input). */
    public ReplicaRouter withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) throws Exception {
        faults.check(
                "replica-router",
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                ++inputsTaken);
        remake();
        GraphStoreInput input = element.getValue();
        if (input instanceof GraphStoreInput.Deletion deletion) {
            applyDeletion(deletion.deletion().vertex);
        } else if (input instanceof GraphStoreInput.Edges edges) {
            EdgeBundle bundle = edges.bundle();
            for (int i = 0; i < bundle.size(); i++) {
                applyEdge(bundle.sources[i], bundle.ops[i]);
            }
        } else {
            if (!(input instanceof GraphStoreInput.Update u)) {
                throw new IllegalArgumentException(
                        "the replica router takes graph updates and edge bundles only, got "
                                + input);
            }
            GraphUpdate update = u.update();
            if (update.node != null) {
                applyNode(update.node.id, VertexRecord.encode(update.node));
            } else if (partitioner.partition(update.edge.src)
                    != partitioner.partition(update.edge.dst)) {
                applyEdge(update.edge.src, EdgeBundle.op(update.edge.dst, update.edge.remove));
            }
        }
        if (pendingChecks > 0 && maxDropDelayMs == 0) {
            runChecks();
        }
    }

    /**
     * Logs an edge between partitions; makes the replica it calls for, or marks a removal for its
     * check.
     */
    private void applyEdge(long u, long op) throws Exception {
        int partition = partitioner.partition(u);
        if (log.append(partition, u, op)) {
            log.flush(chunks);
        }
        if (sites.parallelism() == 1) {
            return;
        }
        int site = sites.siteOf(partitioner.partition(EdgeBundle.destination(op)));
        if (site == sites.siteOf(partition)) {
            return;
        }
        if (EdgeBundle.isRemoval(op)) {
            if (holders.holds(partition, u, site)) {
                markCheck(partition, u);
            }
        } else if (holders.hold(partition, u, site)) {
            send(
                    ReplicaMessage.create(u, sites.holderOfSite(site), recordOf(partition, u)),
                    pushes);
        }
    }

    /**
     * This subtask's copy of the deletion of {@code v} (docs/design.md, "Vertex deletion"): a
     * deletion marker in the log of every partition it owns, whose check (as for a removal) drops
     * the replicas of the vertices that lost their last out-neighbour on a site with {@code v}'s
     * in-edges; where {@code v} is owned, its record goes, and every replica of it is dropped.
     */
    private void applyDeletion(long v) throws Exception {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        for (int p = 0; p < partitioner.numPartitions(); p++) {
            if (sites.siteOf(p) != subtask) {
                continue;
            }
            if (log.appendDeletion(p, v)) {
                log.flush(chunks);
            }
            if (sites.parallelism() > 1 && !deletionChecks[p]) {
                deletionChecks[p] = true;
                if (pendingChecks++ == 0) {
                    oldestCheckAt = getProcessingTimeService().getCurrentProcessingTime();
                }
            }
        }
        int partition = partitioner.partition(v);
        if (sites.siteOf(partition) == subtask) {
            setCurrentKey(partitioner.keyOf(v));
            record.clear();
            for (int site : holders.forget(partition, v)) {
                send(ReplicaMessage.drop(v, sites.holderOfSite(site)), drops);
            }
        }
    }

    private void markCheck(int partition, long u) {
        LongHashSet marked = checks[partition];
        if (marked == null) {
            marked = checks[partition] = new LongHashSet();
        }
        if (marked.add(u) && pendingChecks++ == 0) {
            oldestCheckAt = getProcessingTimeService().getCurrentProcessingTime();
        }
    }

    /**
     * The record of {@code u} when it has one, else null (known from the holders, without a read).
     */
    private byte[] recordOf(int partition, long u) throws Exception {
        if (!holders.hasRecord(partition, u)) {
            return null;
        }
        setCurrentKey(partitioner.keyOf(u));
        return record.value();
    }

    /** Stores the record and pushes it to every site that holds a replica. */
    private void applyNode(long u, byte[] encoded) throws Exception {
        int partition = partitioner.partition(u);
        setCurrentKey(partitioner.keyOf(u));
        record.update(encoded);
        holders.markRecord(partition, u);
        for (int site : holders.sites(partition, u)) {
            send(ReplicaMessage.push(u, sites.holderOfSite(site), encoded), pushes);
        }
    }

    private void send(ReplicaMessage message, Counter counter) {
        counter.inc();
        output.collect(new StreamRecord<>(GraphStoreInput.of(message)));
    }

    /** Compacts every partition with pending checks and drops the replicas left without an edge. */
    private void runChecks() throws Exception {
        for (int p = 0; p < checks.length; p++) {
            if ((checks[p] != null && !checks[p].isEmpty()) || deletionChecks[p]) {
                compact(p);
            }
        }
    }

    /**
     * Compacts the partition's log; the vertices marked for a check, and those whose edges into a
     * deleted vertex the compaction dropped, lose the replicas they no longer need.
     */
    private void compact(int partition) throws Exception {
        LongHashSet toCheck = new LongHashSet();
        LongObjectHashMap<LongHashSet> edges = log.compact(partition, chunks, toCheck);
        if (deletionChecks[partition]) {
            deletionChecks[partition] = false;
            pendingChecks--;
        }
        LongHashSet marked = checks[partition];
        if (marked != null) {
            toCheck.addAll(marked);
        }
        if (toCheck.isEmpty() || sites.parallelism() == 1) {
            return;
        }
        boolean[] needed = new boolean[sites.parallelism()];
        int home = sites.siteOf(partition);
        for (LongCursor c : toCheck) {
            long u = c.value;
            Arrays.fill(needed, false);
            LongHashSet out = edges.get(u);
            if (out != null) {
                for (LongCursor v : out) {
                    needed[sites.siteOf(partitioner.partition(v.value))] = true;
                }
            }
            for (int site = 0; site < needed.length; site++) {
                if (site != home && !needed[site] && holders.release(partition, u, site)) {
                    send(ReplicaMessage.drop(u, sites.holderOfSite(site)), drops);
                }
            }
        }
        if (marked != null) {
            pendingChecks -= marked.size();
            marked.clear();
        }
    }

    /** After a restore at another parallelism: a creation for every replica of the new sites. */
    private void remake() throws Exception {
        if (!remake) {
            return;
        }
        remake = false;
        List<Integer> logged = new ArrayList<>();
        for (VertexKey key : keys(CUT_EDGE_LOG.getName())) {
            logged.add(key.partition());
        }
        for (int p = 0; p < partitioner.numPartitions(); p++) {
            if (log.hasTail(p) && !logged.contains(p)) {
                logged.add(p);
            }
        }
        for (int partition : logged) {
            int home = sites.siteOf(partition);
            for (LongObjectCursor<LongHashSet> c : log.compact(partition, chunks)) {
                for (LongCursor v : c.value) {
                    int site = sites.siteOf(partitioner.partition(v.value));
                    if (site != home && holders.hold(partition, c.key, site)) {
                        send(
                                ReplicaMessage.create(
                                        c.key,
                                        sites.holderOfSite(site),
                                        recordOf(partition, c.key)),
                                pushes);
                    }
                }
            }
        }
    }

    /** Runs the pending checks, and stores the logs' tails and the changed holders. */
    private void persist() throws Exception {
        runChecks();
        log.flush(chunks);
        for (int p = 0; p < holders.partitions(); p++) {
            if (holders.dirty(p)) {
                byte[] value = holders.encode(p);
                setCurrentKey(VertexKey.anchor(p));
                if (value == null) {
                    holdersState.clear();
                } else {
                    holdersState.update(value);
                }
            }
        }
    }

    /**
     * Checkpoints hold every change: checks run and heap state is stored before the barrier goes
     * on.
     */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        remake();
        persist();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        madeFor.update(List.of(remake ? -1 : sites.parallelism()));
    }

    /** A bounded input runs its checks and stores its heap state at its end. */
    @Override
    public void finish() throws Exception {
        remake();
        persist();
        super.finish();
    }
}
