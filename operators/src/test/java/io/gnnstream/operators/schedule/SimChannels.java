package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The FIFO channels of a {@link ProtocolSimulator} run, the records they carry, and the cut of its
 * checkpoints across them, as Flink's unaligned checkpoints make it: a role snapshots when the
 * first barrier reaches it (from the source, from an iteration head at any time, or before it takes
 * a record sent after its sender's snapshot), and records its sender sent before the barrier but it
 * takes after its snapshot are the checkpoint's channel state; feedback channels carry none. A
 * checkpoint completes once every role has snapshotted and every such record has been taken, as
 * Flink's completes once each input channel's barrier has arrived behind the records before it.
 * Roles: 0 store, 1 assembler, 2 scheduler, 3 reducer, 4.. ranks.
 *
 * <p>The ranks' layer outputs go through a Kafka topic at least once ({@link #TOPIC}), as in the
 * job: a log that outlives failures, which the GraphStore reads from the offset of its snapshot
 * (from the start after a restart without a checkpoint, as a fresh job's source reads from the
 * earliest offsets). After a restore it reads again what the failed run sent after that offset,
 * also what its ranks sent after their own snapshots, which its lineage drops ({@code
 * store.Lineage}; records are stamped as the trainer stamps them). With {@code
 * -Dsim.kafkaOutputs=false} they travel on a checkpointed channel like the others.
 */
final class SimChannels {

    /**
     * A record on a channel: its payload, its sender's checkpoint count when sent, and the last
     * checkpoint whose channel state holds it.
     */
    static final class Msg {
        final Object payload;
        final int epoch;
        int recorded = -1;

        Msg(Object payload, int epoch) {
            this.payload = payload;
            this.epoch = epoch;
        }
    }

    static final class Channel {
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

    /** One role's part of a checkpoint. */
    static final class Snap {
        Object state;

        /** The store's: the records of {@link #TOPIC} it had read. */
        int topicOffset;

        final List<Object[]> channelState = new ArrayList<>(); // {channel name, payload}
    }

    private final List<String> trace;

    /** A role's state for its snapshot, taken when the barrier reaches it. */
    private final IntFunction<Object> roleState;

    private final Map<String, Channel> channels = new HashMap<>();

    /** The channel of the ranks' layer outputs, a Kafka topic with {@link #KAFKA_OUTPUTS}. */
    static final String TOPIC = "outputs";

    static final boolean KAFKA_OUTPUTS =
            Boolean.parseBoolean(System.getProperty("sim.kafkaOutputs", "true"));

    /**
     * A rank's layer outputs wait for its output buffers for a while, as {@code LayerOutputSender}
     * holds them; {@code -Dsim.heldOutputs=false} sends them at once.
     */
    static final boolean HELD_OUTPUTS =
            Boolean.parseBoolean(System.getProperty("sim.heldOutputs", "true"));

    /** Every record sent on {@link #TOPIC}, across failures, and how many the store has read. */
    private final List<Object> topic = new ArrayList<>();

    /** Per record of {@link #TOPIC}: the start (incarnation) of the run that sent it. */
    private final List<Integer> topicSenders = new ArrayList<>();

    /** The start of the run now, 1 for the first. */
    int incarnation = 1;

    private int topicRead;

    /** Records of {@link #TOPIC} the store read again after restores. */
    long topicReread;

    private int trainers;

    /** Per role: the checkpoints it has snapshotted. */
    private int[] epochs;

    private int checkpoint; // the checkpoint in progress, or the last one
    private boolean inProgress;
    private Snap[] snaps;
    private int completed; // last completed checkpoint, 0: none
    private Snap[] completedSnaps;
    private int completedTrainers;

    boolean verbose;

    SimChannels(List<String> trace, IntFunction<Object> roleState) {
        this.trace = trace;
        this.roleState = roleState;
    }

    /** New, empty channels between the roles of a run with {@code trainers} ranks. */
    void wire(int trainers) {
        this.trainers = trainers;
        channels.clear();
        epochs = new int[4 + trainers];
        Arrays.fill(epochs, completed);
        channel("events", false, 2);
        channel("specs", false, 1);
        channel("requests", true, 0);
        channel("credits", true, 2);
        channel("gradients", false, 3);
        channel("outputs", false, 0);
        channel("responses", false, 1);
        for (int r = 0; r < trainers; r++) {
            channel("heads-" + r, false, 4 + r);
            channel("parts-" + r, false, 4 + r);
            channel("sums-" + r, true, 4 + r);
        }
    }

    private void channel(String name, boolean feedback, int to) {
        channels.put(name, new Channel(name, feedback, to));
    }

    /**
     * Stamps a layer output as the trainer does when it makes it (store.Lineage): the incarnation
     * and the last checkpoint its sender snapshotted.
     */
    void stamp(int fromRole, io.gnnstream.operators.messages.LayerOutputs o) {
        o.incarnation = incarnation;
        o.checkpoint = epochs[fromRole];
    }

    void send(int fromRole, String channel, Object payload) {
        Channel c = channels.get(channel);
        if (payload instanceof io.gnnstream.operators.messages.LayerOutputs o
                && o.incarnation == 0) {
            stamp(fromRole, o);
        }
        Object p = wire(payload);
        if (durable(c)) {
            topic.add(p);
            topicSenders.add(incarnation);
        }
        c.queue.add(new Msg(p, epochs[fromRole]));
    }

    /**
     * A record as its receiver reads it off the network: feature parts and sample responses through
     * their serializers (a part's features leave the GraphStore as stored bytes and arrive as
     * floats).
     */
    private static Object wire(Object payload) {
        try {
            if (payload instanceof MiniBatchPart part) {
                return roundTrip(MiniBatchPartSerializer.INSTANCE, part);
            }
            if (payload instanceof SampleResponse response) {
                return roundTrip(SampleResponseSerializer.INSTANCE, response);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return payload;
    }

    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(value, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    /** The channels with records, in name order. */
    List<Channel> ready() {
        List<Channel> ready = new ArrayList<>();
        for (Channel c : channels.values()) {
            if (!c.queue.isEmpty()) {
                ready.add(c);
            }
        }
        ready.sort((a, b) -> a.name.compareTo(b.name));
        return ready;
    }

    /**
     * The next record of {@code c}, taken by its role: which snapshots first if the record was sent
     * after its sender's barrier, and records it as channel state if it was sent before.
     */
    Object take(Channel c) {
        Msg m = c.queue.peek();
        if (verbose) {
            trace.add("  " + c.name + " <- " + describe(m.payload) + " (epoch " + m.epoch + ")");
        }
        int role = c.to;
        if (durable(c)) {
            // A source's offsets, no barrier: the store's snapshot holds how far it read.
            if (verbose) {
                trace.add("    (sent by start " + topicSenders.get(topicRead) + ")");
            }
            c.queue.poll();
            topicRead++;
            return m.payload;
        }
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
            m.recorded = checkpoint;
            complete();
        }
        return m.payload;
    }

    boolean inProgress() {
        return inProgress;
    }

    int completed() {
        return completed;
    }

    Snap[] completedSnaps() {
        return completedSnaps;
    }

    int completedTrainers() {
        return completedTrainers;
    }

    /** The source snapshots for a new checkpoint. */
    void trigger() {
        checkpoint = Math.max(checkpoint, completed) + 1;
        inProgress = true;
        snaps = new Snap[4 + trainers];
        snapshot(0); // the source
        trace.add("checkpoint " + checkpoint + " triggered");
    }

    /** A barrier from an iteration head reaches a role that has not snapshotted yet. */
    boolean barrierFromHead(SplittableRandom random) {
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
        snap.state = roleState.apply(role);
        snap.topicOffset = topicRead;
        // Records sent before their sender's barrier, still queued: channel state.
        for (Channel c : channels.values()) {
            if (c.to == role && !c.feedback && !durable(c)) {
                for (Msg m : c.queue) {
                    if (m.epoch < checkpoint) {
                        // Pre-barrier records still to come are added when taken (see take).
                        snap.channelState.add(new Object[] {c.name, m.payload});
                        m.recorded = checkpoint;
                    }
                }
            }
        }
        complete();
    }

    /**
     * Completes the checkpoint in progress once every role has snapshotted and no record sent
     * before its sender's barrier is still on its way to a role that snapshotted before taking it
     * (it is channel state still to be recorded).
     */
    private void complete() {
        for (int e : epochs) {
            if (e < checkpoint) {
                return;
            }
        }
        for (Channel c : channels.values()) {
            if (c.feedback || durable(c)) {
                continue;
            }
            for (Msg m : c.queue) {
                if (m.epoch < checkpoint && m.recorded != checkpoint) {
                    return;
                }
            }
        }
        completed = checkpoint;
        completedSnaps = snaps;
        completedTrainers = trainers;
        inProgress = false;
        trace.add("checkpoint " + checkpoint + " completed");
    }

    /** A failure: the checkpoint in progress, if any, is abandoned. */
    void abort() {
        inProgress = false;
    }

    /**
     * The store reads {@link #TOPIC} again from {@code offset}: what it had read at its snapshot, 0
     * without one.
     */
    void rewindTopic(int offset) {
        Channel c = channels.get(TOPIC);
        if (!durable(c)) {
            return;
        }
        topicReread += Math.max(0, topicRead - offset);
        c.queue.clear();
        for (int i = offset; i < topic.size(); i++) {
            c.queue.add(new Msg(topic.get(i), completed));
        }
        topicRead = offset;
    }

    private static boolean durable(Channel c) {
        return KAFKA_OUTPUTS && c.name.equals(TOPIC);
    }

    /** Channel state: replayed on ordinary edges; a rank's goes to the rank of its index. */
    void replay(Snap[] from) {
        rewindTopic(from[0].topicOffset);
        for (int role = 0; role < from.length; role++) {
            for (Object[] cs : from[role].channelState) {
                Channel c = channels.get((String) cs[0]);
                if (c != null) {
                    c.queue.add(new Msg(cs[1], completed - 1));
                }
            }
        }
    }

    /** The scheduler's state, for a failure's message. */
    static String describe(SchedulerState s) {
        StringBuilder b = new StringBuilder();
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
        return b.toString();
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
        if (p instanceof io.gnnstream.operators.messages.LayerOutputs o) {
            return o.isPin()
                    ? "pin of step " + o.step + " from rank " + o.roundIndex
                    : "rows of step " + o.step + " L" + o.layer + " #" + o.roundIndex;
        }
        if (p instanceof GraphEvent e) {
            return "event "
                    + e.kind
                    + (e.kind == GraphEvent.Kind.LAYER_WRITTEN ? " #" + e.roundIndex : "");
        }
        return p.getClass().getSimpleName();
    }

    private static final ExecutionConfig EXECUTION = new ExecutionConfig();

    /** A deep copy by the value's Flink serializer, as a channel or a snapshot makes it. */
    @SuppressWarnings("unchecked")
    static <T> T copy(T value) {
        TypeSerializer<T> s =
                (TypeSerializer<T>)
                        TypeInformation.of(value.getClass())
                                .createSerializer(EXECUTION.getSerializerConfig());
        return s.copy(value);
    }
}
