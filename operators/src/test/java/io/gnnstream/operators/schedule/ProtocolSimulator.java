package io.gnnstream.operators.schedule;

import io.gnnstream.operators.GradientReducer;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.TrainerReplica;
import io.gnnstream.operators.internal.PartitionSizes;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.records.Split;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

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
 * <p>Checkpoints follow Flink's unaligned checkpoints: a role snapshots when the first barrier
 * reaches it (from the source, from an iteration head at any time, or before it takes a record sent
 * after its sender's snapshot), and records its sender sent before the barrier but it takes after
 * its snapshot are the checkpoint's channel state. A restore resets every role to the last
 * completed checkpoint, replays channel state on ordinary edges, drops every record in flight on
 * feedback edges (credits, requests, reduced sums), and may change the trainer count. Timers fire
 * when nothing else can happen: idle ranks send their credit again, ranks waiting for sums send
 * their gradient again, and the clock moves past the scheduler's stall limit.
 */
final class ProtocolSimulator {

    static final long STALL_NANOS = 30_000_000_000L;

    /**
     * A record on a channel: its payload, its sender's checkpoint count when sent, and the last
     * checkpoint whose channel state holds it.
     */
    private static final class Msg {
        final Object payload;
        final int epoch;
        int recorded = -1;

        Msg(Object payload, int epoch) {
            this.payload = payload;
            this.epoch = epoch;
        }
    }

    private static final class Channel {
        final String name;
        final boolean feedback;
        final int to; // role index
        final ArrayDeque<Msg> queue = new ArrayDeque<>();

        Channel(String name, boolean feedback, int to) {
            this.name = name;
            this.feedback = feedback;
            this.to = to;
        }
    }

    /** What a rank holds besides its protocol classes: a model made of what it applied. */
    static final class RankModel {
        /** Per applied step, in order: the step, then how often each vertex was a seed of it. */
        final List<float[]> log = new ArrayList<>();

        long hash = 0x243F6A8885A308D3L;
    }

    private final class Rank {
        final TrainerRank seq;
        final GradientExchange exchange;
        final RankModel model;

        Rank(TrainerRank seq, GradientExchange exchange, RankModel model) {
            this.seq = seq;
            this.exchange = exchange;
            this.model = model;
        }
    }

    /** One role's part of a checkpoint. */
    private static final class Snap {
        Object state;
        final List<Object[]> channelState = new ArrayList<>(); // {channel name, payload}
    }

    private final SchedulerConfig base;
    private final SplittableRandom random;
    private final long[] train;
    private final long[] val;
    private final long[] test;
    private final List<String> trace = new ArrayList<>();

    private static final int PARTITIONS = 4;

    private int trainers;
    private long now;
    private int ingested;
    private MemoryValueStore stored;
    private PartitionSizes sizes;
    private Schedule schedule;
    private Rank[] ranks;
    private GradientSums reducer;
    private final Map<String, Channel> channels = new HashMap<>();

    /** Roles: 0 store, 1 assembler, 2 scheduler, 3 reducer, 4.. ranks. */
    private int[] epochs;

    private int checkpoint; // the checkpoint in progress, or the last one
    private boolean inProgress;
    private Snap[] snaps;
    private int completed; // last completed checkpoint, 0: none
    private Snap[] completedSnaps;
    private int completedTrainers;

    /** Last-pass blocks processed per round step (output side effects, never rolled back). */
    final Map<Long, Set<Integer>> scored = new HashMap<>();

    final Map<Long, Integer> lastPassBlocks = new HashMap<>();
    int restores;
    int rescales;

    private final int params;
    private final int vertices;

    ProtocolSimulator(SchedulerConfig config, long seed, int vertices) {
        this.params = vertices;
        this.vertices = vertices;
        this.base = config;
        this.random = new SplittableRandom(seed);
        List<Long> t = new ArrayList<>();
        List<Long> v = new ArrayList<>();
        List<Long> te = new ArrayList<>();
        for (long id = 0; id < vertices; id++) {
            (id % 5 == 3 ? v : id % 5 == 4 ? te : t).add(id);
        }
        this.train = t.stream().mapToLong(Long::longValue).toArray();
        this.val = v.stream().mapToLong(Long::longValue).toArray();
        this.test = te.stream().mapToLong(Long::longValue).toArray();
        this.trainers = config.trainers;
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
        StringBuilder b = new StringBuilder();
        SchedulerState s = schedule.view();
        b.append("scheduler: steps ")
                .append(s.trainSteps)
                .append(", layout ")
                .append(s.layout)
                .append(s.awaitingRestoredStep ? " (awaiting)" : "")
                .append(", issued ")
                .append(Arrays.toString(s.issuedSeqs))
                .append(", acked ")
                .append(Arrays.toString(s.ackedSeqs))
                .append(", round of step ")
                .append(s.roundStep)
                .append(" at ")
                .append(s.roundNext)
                .append('/')
                .append(s.roundSize)
                .append(", unacked ");
        for (BatchSpec spec : s.unacked) {
            b.append(spec.trainer).append(':').append(spec.seq).append('/').append(spec.step);
            b.append(spec.layer > 0 ? "L" + spec.layer + "#" + spec.roundIndex : "").append(' ');
        }
        for (int r = 0; r < trainers; r++) {
            TrainerProgress p = ranks[r].seq.progress();
            b.append("\nrank ")
                    .append(r)
                    .append(": next seq ")
                    .append(p.nextSeq)
                    .append(", applied ")
                    .append(p.appliedStep)
                    .append(", layout ")
                    .append(p.layout)
                    .append(", waiting ")
                    .append(ranks[r].seq.waiting().stream().map(m -> m.seq).toList())
                    .append(", pending ")
                    .append(
                            ranks[r].exchange.pending() == null
                                    ? "-"
                                    : ranks[r].exchange.pending().step);
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
            if (!inProgress && r < checkpointRate) {
                trigger();
                continue;
            }
            if (r < checkpointRate + failureRate && restores < maxFailures) {
                int t = trainerCounts[random.nextInt(trainerCounts.length)];
                restore(t);
                continue;
            }
            if (inProgress && random.nextInt(4) == 0 && barrierFromHead()) {
                continue;
            }
            if (ingested < vertices && random.nextInt(3) == 0) {
                ingest();
                continue;
            }
            if (random.nextInt(20) == 0) {
                publishSizes();
                continue;
            }
            List<Channel> ready = new ArrayList<>();
            for (Channel c : channels.values()) {
                if (!c.queue.isEmpty()) {
                    ready.add(c);
                }
            }
            if (ready.isEmpty() && ingested < vertices) {
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
            ready.sort((a, b) -> a.name.compareTo(b.name));
            deliver(ready.get(random.nextInt(ready.size())));
        }
        return done();
    }

    /** Every rank applied the last step and every block of the final round was scored. */
    boolean done() {
        for (Rank rank : ranks) {
            if (rank.seq.progress().appliedStep < base.maxSteps) {
                return false;
            }
        }
        Integer blocks = lastPassBlocks.get(base.maxSteps);
        Set<Integer> seen = scored.get(base.maxSteps);
        return blocks != null && seen != null && seen.size() == blocks;
    }

    List<RankModel> models() {
        return Arrays.stream(ranks).map(r -> r.model).toList();
    }

    int trainers() {
        return trainers;
    }

    // ---- roles --------------------------------------------------------------------------------

    private SchedulerConfig config(int t) {
        return new SchedulerConfig(
                base.numPartitions,
                base.batchSize,
                base.evalBatchSize,
                base.maxSteps,
                base.evalEvery,
                base.prefetch,
                base.minTrainSeeds,
                base.seed,
                t,
                base.minVertices,
                base.minEdges,
                base.numLayers,
                base.predictEvery,
                base.predictAll);
    }

    private void start(Snap[] from, int restoredTrainers) {
        channels.clear();
        epochs = new int[4 + trainers];
        Arrays.fill(epochs, completed);
        channel("events", false, 2);
        channel("specs", false, 1);
        channel("requests", true, 0);
        channel("credits", true, 2);
        channel("gradients", false, 3);
        channel("outputs", false, 0);
        for (int r = 0; r < trainers; r++) {
            channel("batches-" + r, false, 4 + r);
            channel("sums-" + r, true, 4 + r);
        }
        SchedulerConfig cfg = config(trainers);
        schedule =
                new Schedule(
                        cfg,
                        from == null ? null : copy((SchedulerState) from[2].state),
                        spec -> send(2, "specs", copySpec(spec)),
                        () -> now,
                        STALL_NANOS);
        reducer = new GradientSums(trainers, GradientReducer.DEFAULT_RETAINED_STEPS, 1, 0);
        ranks = new Rank[trainers];
        if (from == null) {
            ingested = 0;
            stored = new MemoryValueStore(new HashMap<>());
            sizes = new PartitionSizes(stored, stored::key, PARTITIONS, 0L);
            for (int r = 0; r < trainers; r++) {
                ranks[r] =
                        new Rank(
                                new TrainerRank(r, new TrainerProgress(), List.of(), false),
                                new GradientExchange(r, params, 1, 0),
                                new RankModel());
            }
        } else {
            restoreRoles(from, restoredTrainers);
        }
        schedule.start();
        for (int r = 0; r < trainers; r++) {
            Rank rank = ranks[r];
            for (GradientChunk c : rank.exchange.chunks()) {
                send(4 + r, "gradients", c);
            }
            Credit announce = rank.seq.startCredit();
            if (announce != null) {
                send(4 + r, "credits", announce);
            }
            next(r);
        }
    }

    @SuppressWarnings("unchecked")
    private void restoreRoles(Snap[] from, int oldTrainers) {
        Object[] store = (Object[]) from[0].state;
        ingested = (Integer) store[0];
        @SuppressWarnings("unchecked")
        Map<VertexKey, long[]> values = (Map<VertexKey, long[]>) store[1];
        stored = new MemoryValueStore(new HashMap<>(values));
        sizes = new PartitionSizes(stored, stored::key, PARTITIONS, 0L);
        boolean[] owned = new boolean[PARTITIONS];
        Arrays.fill(owned, true);
        try {
            sizes.loadStored(owned);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        List<GradientReducer.Entry>[] red = (List<GradientReducer.Entry>[]) from[3].state;
        reducer.restore(red[0], red[1]);
        List<TrainerReplica> replicas = new ArrayList<>();
        Map<Integer, Object[]> own = new HashMap<>();
        for (int r = 0; r < oldTrainers; r++) {
            Object[] s = (Object[]) from[4 + r].state;
            replicas.add((TrainerReplica) s[0]);
            own.put(r, s);
        }
        boolean same = oldTrainers == trainers;
        TrainerReplica furthest = TrainerReplica.furthest(replicas);
        for (int r = 0; r < trainers; r++) {
            if (same) {
                Object[] s = own.get(r);
                TrainerReplica rep = (TrainerReplica) s[0];
                @SuppressWarnings("unchecked")
                List<MiniBatch> buffered = (List<MiniBatch>) s[1];
                TrainerProgress progress = copy(rep.progress);
                GradientExchange ex = new GradientExchange(r, params, 1, progress.layout);
                if (s[2] != null) {
                    ex.restore(copy((PendingStep) s[2]));
                }
                ranks[r] =
                        new Rank(
                                new TrainerRank(r, progress, buffered, false),
                                ex,
                                copyModel((RankModel) s[3]));
            } else {
                TrainerProgress progress = TrainerReplica.restoredAt(replicas);
                ranks[r] =
                        new Rank(
                                new TrainerRank(r, progress, List.of(), true),
                                new GradientExchange(r, params, 1, progress.layout),
                                copyModel((RankModel) ((Object[]) own.get(furthest.rank))[3]));
            }
        }
        // Channel state: replayed on ordinary edges; a rank's goes to the rank of its index.
        for (int role = 0; role < from.length; role++) {
            for (Object[] cs : from[role].channelState) {
                Channel c = channels.get((String) cs[0]);
                if (c != null) {
                    c.queue.add(new Msg(cs[1], completed - 1));
                }
            }
        }
    }

    boolean verbose;

    private void deliver(Channel c) {
        Msg m = c.queue.peek();
        if (verbose) {
            trace.add("  " + c.name + " <- " + describe(m.payload) + " (epoch " + m.epoch + ")");
        }
        int role = c.to;
        if (inProgress && !c.feedback && m.epoch >= checkpoint && epochs[role] < checkpoint) {
            snapshot(role); // the barrier precedes this record
        }
        c.queue.poll();
        if (inProgress
                && !c.feedback
                && m.epoch < checkpoint
                && epochs[role] == checkpoint
                && m.recorded != checkpoint) {
            snaps[role].channelState.add(new Object[] {c.name, m.payload});
        }
        Object p = m.payload;
        switch (role) {
            case 0 -> store(p);
            case 1 -> assembler((BatchSpec) p);
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
            default -> rank(role - 4, p);
        }
    }

    /** The GraphStore: a request becomes the whole batch at its rank; outputs are stored. */
    private void store(Object p) {
        if (p instanceof BatchSpec spec) {
            MiniBatch b = new MiniBatch();
            b.seq = spec.seq;
            b.trainer = spec.trainer;
            b.step = spec.step;
            b.kind = spec.kind;
            b.layer = spec.layer;
            b.roundIndex = spec.roundIndex;
            b.roundSize = spec.roundSize;
            b.roundShare = spec.roundShare;
            b.finalRound = spec.finalRound;
            b.nodeIds = spec.seeds;
            if (spec.trainer < trainers) {
                send(0, "batches-" + spec.trainer, b);
            }
        } else {
            MiniBatch block = (MiniBatch) p;
            GraphEvent written = new GraphEvent();
            written.kind = GraphEvent.Kind.LAYER_WRITTEN;
            written.step = block.step;
            written.layer = block.layer;
            written.roundIndex = block.roundIndex;
            written.part = 0;
            written.parts = 1;
            send(0, "events", written);
        }
    }

    private void assembler(BatchSpec spec) {
        if (spec.layer == base.numLayers) {
            lastPassBlocks.merge(spec.step, 0, (a, b) -> a);
        }
        send(1, "requests", spec);
    }

    private void rank(int r, Object p) {
        Rank rank = ranks[r];
        if (p instanceof MiniBatch b) {
            if (b.trainer != r || rank.seq.alreadyHave(b.seq, rank.exchange.pending() != null)) {
                return;
            }
            rank.seq.buffer(b);
            next(r);
        } else {
            float[] mean = rank.exchange.accept((ReducedChunk) p);
            if (mean != null) {
                PendingStep step = rank.exchange.pending();
                apply(rank, step.step, mean);
                rank.exchange.complete();
                send(4 + r, "credits", rank.seq.finish(step.seq));
                next(r);
            }
        }
    }

    /** Starts the next batch in sequence while no step waits for its sums. */
    private void next(int r) {
        Rank rank = ranks[r];
        while (rank.exchange.pending() == null) {
            MiniBatch b = rank.seq.takeNext();
            if (b == null) {
                return;
            }
            if (b.isTraining() && trainers > 1) {
                PendingStep p = new PendingStep();
                p.step = b.step;
                p.seq = b.seq;
                p.seeds = b.nodeIds.length;
                p.grad = gradient(b.nodeIds);
                p.roundSize = b.roundSize;
                for (GradientChunk c : rank.exchange.begin(p)) {
                    send(4 + r, "gradients", c);
                }
                return;
            }
            if (b.isTraining()) {
                apply(rank, b.step, gradient(b.nodeIds));
            } else if (b.layer < base.numLayers) {
                send(4 + r, "outputs", b);
            } else {
                scored.computeIfAbsent(b.step, s -> new HashSet<>()).add(b.roundIndex);
                lastPassBlocks.put(b.step, b.roundSize - (base.numLayers - 1) * perPass());
            }
            send(4 + r, "credits", rank.seq.finish(b.seq));
        }
    }

    private int perPass() {
        int vertices = train.length + val.length + test.length;
        return (vertices + base.evalBatchSize - 1) / base.evalBatchSize;
    }

    private void apply(Rank rank, long step, float[] mean) {
        if (step != rank.seq.progress().appliedStep + 1) {
            throw new AssertionError(
                    "rank "
                            + rank.seq.rank()
                            + " applies step "
                            + step
                            + " after "
                            + rank.seq.progress().appliedStep);
        }
        float[] entry = new float[mean.length + 1];
        entry[0] = step;
        System.arraycopy(mean, 0, entry, 1, mean.length);
        rank.model.log.add(entry);
        for (float f : mean) {
            rank.model.hash = rank.model.hash * 31 + Float.floatToRawIntBits(f) + step;
        }
        rank.seq.applied(step);
    }

    /** One count per vertex: summed over the ranks, the step's seeds. */
    private float[] gradient(long[] seeds) {
        float[] g = new float[params];
        for (long s : seeds) {
            g[(int) s]++;
        }
        return g;
    }

    private void timers() {
        now += STALL_NANOS + 1;
        publishSizes();
        for (int r = 0; r < trainers; r++) {
            Rank rank = ranks[r];
            send(4 + r, "credits", rank.seq.current());
            if (rank.exchange.waiting()) {
                for (GradientChunk c : rank.exchange.chunks()) {
                    send(4 + r, "gradients", c);
                }
            }
        }
    }

    private static String describe(Object p) {
        if (p instanceof BatchSpec b) {
            return "spec seq "
                    + b.seq
                    + " step "
                    + b.step
                    + " L"
                    + b.layer
                    + "#"
                    + b.roundIndex
                    + " g"
                    + b.generation;
        }
        if (p instanceof MiniBatch b) {
            return "batch seq " + b.seq + " step " + b.step + " L" + b.layer;
        }
        if (p instanceof Credit c) {
            return "credit " + c.trainer + ":" + c.processedSeq;
        }
        if (p instanceof GraphEvent e) {
            return "event "
                    + e.kind
                    + (e.kind == GraphEvent.Kind.LAYER_WRITTEN ? " #" + e.roundIndex : "");
        }
        return p.getClass().getSimpleName();
    }

    /** The GraphStore takes the next vertex of its input and announces it. */
    private void ingest() {
        long v = ingested++;
        int partition = (int) (v % PARTITIONS);
        try {
            sizes.of(new VertexKey(partition, v))[PartitionSizes.VERTICES]++;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sizes.touched(partition);
        Split split = v % 5 == 3 ? Split.VAL : v % 5 == 4 ? Split.TEST : Split.TRAIN;
        send(0, "events", GraphEvent.seed(partition, v, split));
    }

    /** The GraphStore's statistics timer. */
    private void publishSizes() {
        sizes.publish(e -> send(0, "events", e));
    }

    // ---- checkpoints --------------------------------------------------------------------------

    private void trigger() {
        checkpoint = Math.max(checkpoint, completed) + 1;
        inProgress = true;
        snaps = new Snap[4 + trainers];
        snapshot(0); // the source
        trace.add("checkpoint " + checkpoint + " triggered");
    }

    /** A barrier from an iteration head reaches a role that has not snapshotted yet. */
    private boolean barrierFromHead() {
        List<Integer> open = new ArrayList<>();
        for (int role = 0; role < epochs.length; role++) {
            if (epochs[role] < checkpoint) {
                open.add(role);
            }
        }
        if (open.isEmpty()) {
            return false;
        }
        snapshot(open.get(random.nextInt(open.size())));
        return true;
    }

    private void snapshot(int role) {
        if (verbose) {
            trace.add("  snapshot of role " + role + " for checkpoint " + checkpoint);
        }
        Snap snap = new Snap();
        snaps[role] = snap;
        epochs[role] = checkpoint;
        switch (role) {
            case 0 -> {
                try {
                    sizes.flush();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                snap.state = new Object[] {ingested, stored.copy()};
            }
            case 1 -> snap.state = null;
            case 2 -> snap.state = copy(schedule.snapshot());
            case 3 -> snap.state = new List<?>[] {reducer.sums(), reducer.contributions()};
            default -> {
                int r = role - 4;
                Rank rank = ranks[r];
                ModelState model = new ModelState();
                model.step = rank.seq.progress().appliedStep;
                snap.state =
                        new Object[] {
                            new TrainerReplica(r, trainers, model, copy(rank.seq.progress())),
                            rank.seq.waiting(),
                            rank.exchange.pending() == null ? null : copy(rank.exchange.pending()),
                            copyModel(rank.model)
                        };
            }
        }
        // Records sent before their sender's barrier, still queued: channel state.
        for (Channel c : channels.values()) {
            if (c.to == role && !c.feedback) {
                for (Msg m : c.queue) {
                    if (m.epoch < checkpoint) {
                        // Pre-barrier records still to come are added when taken (see deliver).
                        snap.channelState.add(new Object[] {c.name, m.payload});
                        m.recorded = checkpoint;
                    }
                }
            }
        }
        boolean all = true;
        for (int e : epochs) {
            all &= e >= checkpoint;
        }
        if (all) {
            completed = checkpoint;
            completedSnaps = snaps;
            completedTrainers = trainers;
            inProgress = false;
            trace.add("checkpoint " + checkpoint + " completed");
        }
    }

    private void restore(int newTrainers) {
        restores++;
        inProgress = false;
        int from = completed == 0 ? trainers : completedTrainers;
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
            return;
        }
        rescales += from != newTrainers ? 1 : 0;
        trainers = newTrainers;
        start(completedSnaps, from);
    }

    private void send(int fromRole, String channel, Object payload) {
        Channel c = channels.get(channel);
        c.queue.add(new Msg(payload, epochs[fromRole]));
    }

    private void channel(String name, boolean feedback, int to) {
        channels.put(name, new Channel(name, feedback, to));
    }

    // ---- copies -------------------------------------------------------------------------------

    private static final ExecutionConfig EXECUTION = new ExecutionConfig();

    @SuppressWarnings("unchecked")
    private static <T> T copy(T value) {
        TypeSerializer<T> s =
                (TypeSerializer<T>)
                        TypeInformation.of(value.getClass())
                                .createSerializer(EXECUTION.getSerializerConfig());
        return s.copy(value);
    }

    private static BatchSpec copySpec(BatchSpec spec) {
        return copy(spec);
    }

    private static RankModel copyModel(RankModel m) {
        RankModel c = new RankModel();
        c.log.addAll(m.log);
        c.hash = m.hash;
        return c;
    }
}
