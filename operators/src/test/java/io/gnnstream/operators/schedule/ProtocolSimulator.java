package io.gnnstream.operators.schedule;

import static io.gnnstream.operators.schedule.SimChannels.copy;

import io.gnnstream.operators.GradientReducer;
import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.PredictionTombstones;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.assembly.AssemblerConfig;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.schedule.SimChannels.Channel;
import io.gnnstream.operators.schedule.SimChannels.Snap;
import io.gnnstream.operators.schedule.SimRank.RankModel;
import io.gnnstream.operators.store.IncrementalPredictions;
import io.gnnstream.operators.store.StoreOutputs;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Runs the batch protocol's roles in memory, as Flink would run them, with a seeded random
 * schedule: the real {@link Schedule}, {@link TrainerRank}s with their {@link GradientExchange}s
 * and a {@link GradientSums} reducer, joined by FIFO channels whose records the simulator delivers
 * in random order across channels. The GraphStore and the assembler are reduced to what the
 * protocol sees of them: the GraphStore ingests the vertices one by one, announces each as a seed
 * and publishes its partitions' sizes ({@link PartitionSizes}, on a timer) to the scheduler; a spec
 * becomes its whole batch at its rank by way of a request on a feedback edge; a hidden layer's
 * outputs are acknowledged as written to the scheduler.
 *
 * <p>Checkpoints follow Flink's unaligned checkpoints ({@link SimChannels}). A restore resets every
 * role to the last completed checkpoint, replays channel state on ordinary edges, drops every
 * record in flight on feedback edges (credits, requests, reduced sums), has the GraphStore read the
 * layer-outputs topic again from its snapshot's offset ({@link SimChannels}), and may change the
 * trainer count. Each start is a job incarnation of its own. Timers fire when nothing else can
 * happen: idle ranks send their credit again, ranks waiting for sums send their gradient again, and
 * the clock moves past the scheduler's stall limit.
 *
 * <p>With incremental predictions ({@link SimModels}), the GraphStore core keeps its incremental
 * predictions, whose timer fires at random like the others; ranks compute rounds with real models
 * and send pin records; every prediction (a round's from the ranks, an incremental one or a
 * deletion from the GraphStore) goes, as it is emitted, through the real {@link
 * PredictionTombstones} into a map that stands for the compacted predictions topic. After the last
 * step the run goes on until the stream is ingested and the GraphStore's marks are drained; {@link
 * #checkPredictions} then compares the topic with layer-wise inference on the final graph.
 *
 * <p>This class drives a run and checks its end; a rank is a {@link SimRank}.
 */
final class ProtocolSimulator {

    static final long STALL_NANOS = 30_000_000_000L;

    /** The assembler's batch timeout: well below the scheduler's stall limit, as in the job. */
    static final long ASSEMBLER_TIMEOUT_MS = 1_000;

    /**
     * The evaluation neighbourhood's fanout with incremental predictions: small, so that vertices
     * above it (hubs, whose neighbourhood is a bottom-k selection) are common.
     */
    static final int EVAL_FANOUT = Integer.getInteger("sim.evalFanout", 3);

    /** Just over the quiet time after which a run of the pinned round again resumes (5 s). */
    static final long QUIET_NANOS = 5_001_000_000L;

    private final SchedulerConfig base;
    private final SplittableRandom random;
    private final long[] train;
    private final long[] val;
    private final long[] test;
    private final List<String> trace = new ArrayList<>();
    private final SimChannels net = new SimChannels(trace, this::roleState);

    private static final int PARTITIONS = 4;

    private int trainers;
    private long now;
    private final SimGraph graph;
    private final SimStore.Races races;
    private final GraphStoreConfig storeConfig;
    private final AssemblerConfig assemblerConfig;
    private final VertexPartitioner partitioner;
    private SimStore store;
    private long roundSums;
    private SimAssembler assembler;
    private Schedule schedule;
    private SimRank[] ranks;
    private GradientSums reducer;

    /** Per rank: the highest {@code seq} the current scheduler issued (the prefetch check). */
    private long[] highestIssued;

    /**
     * Last-pass blocks processed per plan of a round (output side effects, never rolled back). A
     * restore at another trainer count may plan a round again on the graph as it then is, and a
     * later restore may go back to a checkpoint before that plan: a round is scored when every
     * last-pass block of one of its plans is.
     */
    private final Map<Plan, Set<Integer>> scored = new HashMap<>();

    /** A plan of the round of {@code step}, by its number of blocks. */
    private record Plan(long step, int size) {}

    /** Blocks of the serving round as the ranks computed them, over all starts. */
    final List<Served> served = new ArrayList<>();

    /** Per channel: how often it is picked when ready, relative to the others. */
    private final Map<String, Integer> speeds = new HashMap<>();

    /** Per round step: the vertices the round covers, as its first block left the scheduler. */
    private final Map<Long, Set<Long>> roundVertices = new HashMap<>();

    /** Per plan: the last pass's blocks of vertices without a split or of training. */
    private final Map<Plan, Integer> roundOthers = new HashMap<>();

    int restores;
    int rescales;

    /** Layer outputs the GraphStore read again from the topic after restores. */
    long outputsReread() {
        return net.topicReread;
    }

    /** Inputs the GraphStore took, over all its starts: their times. */
    private long inputs;

    private final int params;
    private final long minEdges;

    /** The real models of a run with incremental predictions; null without. */
    private final SimModels models;

    /** The predictions of a run with incremental predictions; null without. */
    private final SimPredictions predictions;

    /**
     * Whether the GraphStore's timer ran to the end of its work since the last operation of the
     * stream (whose edges it may still buffer) and the last restore.
     */
    private boolean settled;

    /**
     * A run of seed {@code seed}: {@code vertices} seeds and {@code extra} vertices without a
     * split, a graph that changes while training runs, and the races {@code races} re-introduced.
     */
    ProtocolSimulator(
            SchedulerConfig config,
            long seed,
            int vertices,
            int extra,
            boolean changesWhileTraining,
            SimStore.Races races) {
        this(config, seed, vertices, extra, changesWhileTraining, races, null);
    }

    /**
     * A run as above; with {@code model} (null: none), with incremental predictions by real models
     * of that shape, and a round's last pass over every vertex ({@code config.predictAll}).
     */
    ProtocolSimulator(
            SchedulerConfig config,
            long seed,
            int vertices,
            int extra,
            boolean changesWhileTraining,
            SimStore.Races races,
            SimModels.Shape model) {
        this.params = vertices + extra;
        this.base = config;
        this.random = new SplittableRandom(seed);
        this.races = races;
        this.models = model == null ? null : new SimModels(model, seed);
        if (model != null && (model.layers() != config.numLayers || !config.predictAll)) {
            throw new IllegalArgumentException(
                    "incremental predictions need the model's layers and every vertex predicted");
        }
        this.graph =
                new SimGraph(random.split(), vertices, extra, changesWhileTraining, model != null);
        this.graph.validationSalt = seed;
        // Without changes while training runs, training waits for the whole stream (its last
        // operation is an edge), so every batch is sampled from one graph.
        this.minEdges = changesWhileTraining ? config.minEdges : graph.edgeOps();
        this.partitioner = new HashPartitioner(config.scale.partitions());
        GraphStoreConfig store =
                new GraphStoreConfig(seed, SimGraph.DIM, 250, 1 << 12, 1 << 12, 4, 0)
                        .withAggregationAtOwner(model != null)
                        .withLayerRowCache(1 << 10);
        if (models != null) {
            ModelConfig m = models.config();
            int[] roots = new int[config.numLayers - 1];
            for (int j = 0; j < roots.length; j++) {
                roots[j] = m.roundRootWidth(j + 1, false);
            }
            store = store.withLayerRootWidths(roots).withIncremental(m, false, EVAL_FANOUT);
        } else {
            // Feature parts carry their rows' degrees, as for a GCN with --gcn-norm sym.
            store = store.withDegrees(-1);
        }
        this.storeConfig = store;
        int[] fanouts = new int[config.numLayers];
        Arrays.fill(fanouts, 2);
        this.assemblerConfig =
                new AssemblerConfig(fanouts, SimGraph.DIM, partitioner, 1, ASSEMBLER_TIMEOUT_MS, 16)
                        .withLayerWidths(widths(config.numLayers, models))
                        .withEvalFanout(models == null ? -1 : EVAL_FANOUT);
        List<Long> t = new ArrayList<>();
        List<Long> v = new ArrayList<>();
        List<Long> te = new ArrayList<>();
        for (long id = 0; id < vertices; id++) {
            (id % 5 == 3 ? v : id % 5 == 4 ? te : t).add(id);
        }
        this.train = t.stream().mapToLong(Long::longValue).toArray();
        this.val = v.stream().mapToLong(Long::longValue).toArray();
        this.test = te.stream().mapToLong(Long::longValue).toArray();
        this.trainers = config.scale.trainers();
        net.verbose = Boolean.getBoolean("sim.verbose");
        this.predictions =
                models == null
                        ? null
                        : new SimPredictions(
                                models,
                                graph,
                                config.maxSteps + (config.servingRound() ? 1 : 0),
                                trace,
                                net.verbose);
        start(null, 0);
    }

    long[] trainSeeds() {
        return train;
    }

    List<String> trace() {
        return trace;
    }

    /** The roles' state, for a failure's message. */
    String state() {
        StringBuilder b = new StringBuilder(SimChannels.describe(schedule.view()));
        b.append("\nlast-pass blocks scored per round: ");
        scored.forEach(
                (plan, seen) ->
                        b.append(plan.step())
                                .append(" (")
                                .append(plan.size())
                                .append(" blocks) ")
                                .append(seen.size())
                                .append('/')
                                .append(lastPassBlocks(plan))
                                .append(' ')
                                .append(seen)
                                .append("; "));
        b.append("settled ").append(settled);
        for (int r = 0; r < trainers; r++) {
            b.append(ranks[r].describe());
        }
        if (models != null) {
            IncrementalPredictions inc = store.incremental();
            b.append("\nincremental: pinned ")
                    .append(inc.pinnedStep())
                    .append(inc.paused() ? " (paused)" : "")
                    .append(", pending ")
                    .append(inc.pendingVertices())
                    .append(", stream at its end ")
                    .append(!store.hasInput(true));
        }
        return b.toString();
    }

    /** Runs until the run is complete or {@code maxEvents} events; false on a stall. */
    boolean run(
            int maxEvents,
            double checkpointRate,
            double failureRate,
            int maxFailures,
            int[] trainerCounts) {
        int quiet = 0;
        for (int n = 0; n < maxEvents; n++) {
            if (done()) {
                return true;
            }
            double r = random.nextDouble();
            if (!net.inProgress() && r < checkpointRate) {
                net.trigger();
                continue;
            }
            if (r >= checkpointRate && r < checkpointRate + failureRate && restores < maxFailures) {
                int t = trainerCounts[random.nextInt(trainerCounts.length)];
                restore(t);
                continue;
            }
            if (net.inProgress() && random.nextInt(4) == 0 && net.barrierFromHead(random)) {
                continue;
            }
            if (random.nextInt(3) == 0 && releaseOutputs()) {
                continue;
            }
            if (store.hasInput(schedule.steps() > 0)
                    && random.nextInt(store.nextIsChange() ? 4 : 3) == 0) {
                ingest();
                continue;
            }
            if (random.nextInt(200) == 0) {
                assemblerTimers(now / 1_000_000 + ASSEMBLER_TIMEOUT_MS);
                continue;
            }
            if (random.nextInt(20) == 0) {
                publishSizes();
                continue;
            }
            if (models != null && random.nextInt(8) == 0) {
                // The operator's timer: one block (a budget of 0) or everything marked, now and
                // then after a quiet time that resumes a run of the pinned round again.
                if (random.nextInt(16) == 0) {
                    now += QUIET_NANOS;
                }
                predict(random.nextBoolean() ? 0 : Long.MAX_VALUE);
                continue;
            }
            List<Channel> ready = net.ready();
            if (ready.isEmpty() && store.hasInput(schedule.steps() > 0)) {
                ingest();
                continue;
            }
            if (ready.isEmpty()) {
                if (++quiet > 12) {
                    return false;
                }
                timers();
                continue;
            }
            quiet = 0;
            deliver(pick(ready));
        }
        return done();
    }

    /**
     * A ready channel, drawn by the channels' speeds: a quarter of them, drawn afresh at every
     * start and restore, are eight times slower than the others.
     */
    private Channel pick(List<Channel> ready) {
        int total = 0;
        for (Channel c : ready) {
            total += speed(c);
        }
        int at = random.nextInt(total);
        for (Channel c : ready) {
            at -= speed(c);
            if (at < 0) {
                return c;
            }
        }
        throw new IllegalStateException();
    }

    private int speed(Channel c) {
        return speeds.computeIfAbsent(c.name, n -> random.nextInt(4) == 0 ? 1 : 8);
    }

    /**
     * Every rank applied the last step and every block of the final round was scored (with {@code
     * --select best-val}, every rank has decided the selection, and the serving round was scored);
     * with incremental predictions, also the stream is ingested, the final round pinned and every
     * mark recomputed.
     */
    boolean done() {
        for (SimRank rank : ranks) {
            if (rank.seq.progress().appliedStep < base.maxSteps
                    || rank.exchange.pending() != null) {
                return false;
            }
        }
        if (!roundScored(base.maxSteps)
                || base.servingRound() && !roundScored(base.maxSteps + 1)
                || base.bestVal()
                        && Arrays.stream(ranks).anyMatch(r -> !r.seq.progress().finished)) {
            return false;
        }
        if (models == null) {
            return true;
        }
        IncrementalPredictions inc = store.incremental();
        return !store.hasInput(true)
                && settled
                && inc.pinnedStep() == base.maxSteps + (base.servingRound() ? 1 : 0)
                && !inc.paused()
                && inc.pendingVertices() == 0;
    }

    /** Every block of the last pass of a plan of the round of {@code step} was scored. */
    private boolean roundScored(long step) {
        return scored.entrySet().stream()
                .anyMatch(
                        e ->
                                e.getKey().step() == step
                                        && e.getValue().size() == lastPassBlocks(e.getKey()));
    }

    private int lastPassBlocks(Plan plan) {
        return blocks(val.length)
                + blocks(test.length)
                + (base.predictAll ? roundOthers.getOrDefault(plan, 0) : 0);
    }

    List<SimRank> ranks() {
        return List.of(ranks);
    }

    List<RankModel> models() {
        return Arrays.stream(ranks).map(r -> r.model).toList();
    }

    int trainers() {
        return trainers;
    }

    /** See {@link SimPredictions#check}. */
    void checkPredictions() {
        predictions.check();
    }

    /** Sums of rows that rounds made for incremental predictions, over every start of the run. */
    long roundSums() {
        return roundSums + (models == null ? 0 : store.incremental().counters().summedByRound());
    }

    /** Incremental prediction batches emitted (0 without incremental predictions). */
    long incrementalBatches() {
        return predictions == null ? 0 : predictions.incrementalBatches;
    }

    /** Frees the models and the tombstone stage of a run with incremental predictions. */
    void close() {
        if (predictions != null) {
            predictions.close();
        }
    }

    // ---- roles --------------------------------------------------------------------------------

    private SchedulerConfig config(int t) {
        return new SchedulerConfig(
                        base.scale.withTrainers(t),
                        base.batchSize,
                        base.evalBatchSize,
                        base.maxSteps,
                        base.evalEvery,
                        base.prefetch,
                        base.minTrainSeeds,
                        base.seed,
                        base.minVertices,
                        minEdges,
                        base.numLayers,
                        base.predictEvery,
                        base.predictAll)
                .withSelection(base.bestVal(), base.servingRound());
    }

    private void start(Snap[] from, int restoredTrainers) {
        speeds.clear();
        net.wire(trainers);
        net.incarnation = restores + 1;
        SchedulerConfig cfg = config(trainers);
        highestIssued = new long[trainers];
        if (from != null) {
            long[] issued = ((SchedulerState) from[2].state).issuedSeqs;
            for (int r = 0; r < trainers; r++) {
                highestIssued[r] = r < issued.length ? issued[r] - 1 : -1;
            }
        } else {
            Arrays.fill(highestIssued, -1);
        }
        schedule =
                new Schedule(
                        cfg,
                        from == null ? null : copy((SchedulerState) from[2].state),
                        spec -> {
                            checkPrefetch(spec);
                            noteRound(spec);
                            send(2, "specs", copy(spec));
                        },
                        () -> now,
                        STALL_NANOS);
        reducer = new GradientSums(trainers, GradientReducer.DEFAULT_RETAINED_STEPS, 1, 0);
        SimRank.Wiring wiring =
                new SimRank.Wiring(
                        trainers,
                        params,
                        base.numLayers,
                        net,
                        this::scored,
                        graph,
                        races.staleParts(),
                        step -> roundVertices.getOrDefault(step, Set.of()),
                        models,
                        b -> predictions.roundPredictions(b),
                        (rank, step) -> predictions.pinSent(rank, step),
                        this::served,
                        base.maxSteps);
        if (from == null) {
            store =
                    new SimStore(
                            partitioner,
                            storeConfig,
                            graph,
                            races,
                            () -> ++inputs,
                            () -> now / 1_000_000);
            assembler = new SimAssembler(assemblerConfig);
            ranks = new SimRank[trainers];
            for (int r = 0; r < trainers; r++) {
                ranks[r] = SimRank.fresh(r, wiring);
            }
        } else {
            restoreRoles(from, restoredTrainers, wiring);
        }
        // Each start is an incarnation of the job (JobIncarnation: job id and attempt).
        store.start(restores + 1, net.completed());
        if (predictions != null) {
            predictions.start(trainers, store);
        }
        settled = false;
        schedule.start();
        for (SimRank rank : ranks) {
            rank.start();
        }
    }

    @SuppressWarnings("unchecked")
    private void restoreRoles(Snap[] from, int oldTrainers, SimRank.Wiring wiring) {
        store =
                new SimStore(
                        partitioner,
                        storeConfig,
                        graph,
                        races,
                        () -> ++inputs,
                        () -> now / 1_000_000,
                        (Object[]) from[0].state);
        assembler = SimAssembler.restore(assemblerConfig, (Object[]) from[1].state);
        List<ReducerEntry>[] red = (List<ReducerEntry>[]) from[3].state;
        reducer.restore(red[0], red[1]);
        List<Object[]> old = new ArrayList<>();
        for (int r = 0; r < oldTrainers; r++) {
            old.add((Object[]) from[4 + r].state);
        }
        ranks = SimRank.restore(old, wiring);
        net.replay(from);
    }

    /** A role's state for its snapshot (roles: 0 store, 1 assembler, 2 scheduler, 3 reducer). */
    private Object roleState(int role) {
        switch (role) {
            case 0 -> {
                try {
                    return store.snapshot();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            case 1 -> {
                return assembler.snapshot();
            }
            case 2 -> {
                return copy(schedule.snapshot());
            }
            case 3 -> {
                return new List<?>[] {reducer.sums(), reducer.contributions()};
            }
            default -> {
                return ranks[role - 4].snapshot();
            }
        }
    }

    private void deliver(Channel c) {
        Object p = net.take(c);
        int role = c.to;
        switch (role) {
            case 0 -> store(p);
            case 1 -> assembler(p);
            case 2 -> {
                if (p instanceof GraphEvent e) {
                    schedule.onGraphEvent(e);
                } else {
                    schedule.onCredit((Credit) p);
                }
            }
            case 3 -> {
                for (ReducedChunk sum : reducer.accept((GradientChunk) p)) {
                    for (int r = 0; r < trainers; r++) {
                        send(3, "sums-" + r, sum);
                    }
                }
            }
            default -> ranks[role - 4].accept(p);
        }
    }

    /**
     * The prefetch bound, checked as specs leave the scheduler: a spec of a new {@code seq} lies at
     * most {@code prefetch} above its rank's acknowledged progress. (Specs issued again after a
     * rewind or a stall may lie further above it: they were within the bound when first issued.)
     */
    private void checkPrefetch(BatchSpec spec) {
        if (spec.seq <= highestIssued[spec.trainer]) {
            return;
        }
        highestIssued[spec.trainer] = spec.seq;
        long acked = schedule.view().ackedSeqs[spec.trainer];
        if (spec.seq - acked > base.prefetch) {
            throw new AssertionError(
                    "rank "
                            + spec.trainer
                            + " was issued seq "
                            + spec.seq
                            + " with seq "
                            + acked
                            + " acknowledged; prefetch is "
                            + base.prefetch
                            + "\n"
                            + SimChannels.describe(schedule.view()));
        }
    }

    /** Notes the vertices of a round's plan as its first block leaves the scheduler. */
    private void noteRound(BatchSpec spec) {
        if (spec.layer == 1 && spec.roundIndex == 0) {
            SchedulerState s = schedule.view();
            Set<Long> all = new HashSet<>();
            for (long[] set : new long[][] {s.roundVal, s.roundTest, s.roundOthers}) {
                for (long v : set == null ? new long[0] : set) {
                    all.add(v);
                }
            }
            roundVertices.put(spec.step, all);
            roundOthers.put(
                    new Plan(spec.step, s.roundSize),
                    blocks(s.roundOthers == null ? 0 : s.roundOthers.length));
        }
    }

    /** The GraphStore takes a bundle of requests or a rank's layer outputs. */
    private void store(Object p) {
        try {
            if (p instanceof SampleRequest[] bundle) {
                store.requests(bundle);
            } else {
                LayerOutputs o = (LayerOutputs) p;
                store.outputs(o);
                if (net.verbose && o.isPin() && models != null) {
                    trace.add(
                            "  pin of step "
                                    + o.step
                                    + " from rank "
                                    + o.roundIndex
                                    + " of "
                                    + o.dim
                                    + " taken; pinned "
                                    + store.incremental().pinnedStep()
                                    + (store.incremental().paused() ? " (paused)" : ""));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sendStoreOutputs();
    }

    /**
     * What the GraphStore returned: responses, feature parts to their ranks, graph events; its
     * incremental predictions and deletions go to the sink.
     */
    private void sendStoreOutputs() {
        StoreOutputs out = store.out;
        if (predictions != null) {
            predictions.storeOutputs(out);
        }
        for (SampleResponse r : out.responses()) {
            send(0, "responses", r);
        }
        for (MiniBatchPart part : out.parts()) {
            if (part.trainer < trainers) {
                send(0, "parts-" + part.trainer, part);
            }
        }
        for (GraphEvent e : out.events()) {
            send(0, "events", e);
        }
        out.clear();
    }

    /** The assembler takes a spec or a sample response. */
    private void assembler(Object p) {
        long ms = now / 1_000_000;
        try {
            if (p instanceof BatchSpec spec) {
                assembler.spec(spec, ms);
            } else {
                assembler.response((SampleResponse) p, ms);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sendAssemblerOutputs();
    }

    /** The assembler's timers due at {@code ms}. */
    private void assemblerTimers(long ms) {
        try {
            assembler.fireTimers(ms);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sendAssemblerOutputs();
    }

    /** What the assembler decided: request bundles to the GraphStore, heads to their ranks. */
    private void sendAssemblerOutputs() {
        for (SampleRequest[] bundle : assembler.out.bundles()) {
            send(1, "requests", bundle);
        }
        for (MiniBatchPart head : assembler.out.heads()) {
            if (head.trainer < trainers) {
                send(1, "heads-" + head.trainer, head);
            }
        }
        assembler.out.clear();
    }

    /**
     * A block of the serving round was computed by rank {@code b.trainer} with the kept parameters
     * {@code kept} (output side effects, never rolled back).
     */
    private void served(MiniBatch b, float[] kept) {
        served.add(new Served(b.trainer, b.step, b.roundIndex, kept == null ? null : kept.clone()));
        if (net.verbose) {
            trace.add(
                    "  rank " + b.trainer + " serves block " + b.roundIndex + " of step " + b.step);
        }
    }

    /** A block of the serving round as a rank computed it. */
    record Served(int rank, long step, int roundIndex, float[] kept) {}

    /** A last-pass block of the plan of {@code b.roundSize} blocks was scored. */
    private void scored(MiniBatch b) {
        scored.computeIfAbsent(new Plan(b.step, b.roundSize), p -> new HashSet<>())
                .add(b.roundIndex);
    }

    private int blocks(int vertices) {
        return (vertices + base.evalBatchSize - 1) / base.evalBatchSize;
    }

    /** The stored row width of every hidden layer: the model's round rows, else two floats. */
    private static int[] widths(int layers, SimModels models) {
        int[] w = new int[Math.max(0, layers - 1)];
        for (int j = 0; j < w.length; j++) {
            w[j] = models == null ? SimGraph.ROW : models.config().roundRowWidth(j + 1, false);
        }
        return w;
    }

    /** A rank's output buffers free up: a rank holding layer outputs sends them. */
    private boolean releaseOutputs() {
        List<SimRank> holding = Arrays.stream(ranks).filter(SimRank::holds).toList();
        if (holding.isEmpty()) {
            return false;
        }
        holding.get(random.nextInt(holding.size())).release();
        return true;
    }

    private void timers() {
        while (releaseOutputs()) {
            // every held output goes before the timers fire
        }
        now += STALL_NANOS + 1;
        publishSizes();
        assemblerTimers(now / 1_000_000);
        if (models != null) {
            predict(Long.MAX_VALUE);
        }
        for (SimRank rank : ranks) {
            rank.timer();
        }
    }

    // ---- incremental predictions ------------------------------------------------------------

    /** The GraphStore's incremental-prediction timer. */
    private void predict(long budgetNanos) {
        try {
            store.predict(budgetNanos);
            settled = !store.incremental().hasWork();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sendStoreOutputs();
    }

    /** The GraphStore takes the next operation of its input. */
    private void ingest() {
        try {
            if (net.verbose) {
                trace.add("  ingest " + store.describeNext());
            }
            settled = false;
            store.ingest();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sendStoreOutputs();
    }

    /** The GraphStore's statistics timer. */
    private void publishSizes() {
        store.publishSizes();
        sendStoreOutputs();
    }

    // ---- failures ---------------------------------------------------------------------------

    private void restore(int newTrainers) {
        restores++;
        if (models != null) {
            roundSums += store.incremental().counters().summedByRound();
        }
        net.abort();
        int completed = net.completed();
        int from = completed == 0 ? trainers : net.completedTrainers();
        trace.add(
                "restore from checkpoint "
                        + completed
                        + " ("
                        + from
                        + " ranks) with "
                        + newTrainers
                        + " ranks");
        if (completed == 0) {
            trainers = newTrainers;
            start(null, 0);
            net.rewindTopic(0);
            return;
        }
        rescales += from != newTrainers ? 1 : 0;
        trainers = newTrainers;
        start(net.completedSnaps(), from);
    }

    private void send(int fromRole, String channel, Object payload) {
        net.send(fromRole, channel, payload);
    }
}
