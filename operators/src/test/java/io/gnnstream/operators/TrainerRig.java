package io.gnnstream.operators;

import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.ModelConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;

/**
 * Trainer ranks and reducers in Flink's harnesses, wired by hand: one-layer training batches over
 * an eight-vertex graph, and the moves of the all-reduce loop (gradients to the reducer, sums
 * back).
 */
final class TrainerRig {

    static final int MAX_PARALLELISM = 8;
    static final ModelConfig MODEL =
            ModelConfig.builder()
                    .inFeatures(3)
                    .hidden(5)
                    .numClasses(2)
                    .numLayers(1)
                    .dropout(0)
                    .learningRate(0.05)
                    .weightDecay(1e-3)
                    .seed(11)
                    .build();
    private static final float[][] FEATURES = {
        {1, 0, 2}, {0, 1, 1}, {2, 2, 0}, {0, 3, 1}, {1, 1, 1}, {3, 0, 0}, {0, 0, 2}, {1, 2, 3}
    };
    private static final int[] LABELS = {0, 1, 0, 1, 1, 0, 1, 0};

    private TrainerRig() {}

    static TrainerConfig config(int trainers) {
        return new TrainerConfig(
                MODEL, 1, 1, null, 60_000, true, 0, new JobScale(trainers, 1, trainers, 1));
    }

    /**
     * Rank {@code rank} of {@code ranks}, restored from {@code state} (repartitioned) unless null,
     * and open.
     */
    static TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> rank(
            int rank, int ranks, OperatorSubtaskState state) throws Exception {
        var h =
                new TwoInputStreamOperatorTestHarness<>(
                        new TrainerOperator(config(ranks)), MAX_PARALLELISM, ranks, rank);
        h.getExecutionConfig().getSerializerConfig().setGenericTypes(false);
        if (state != null) {
            h.initializeState(state);
        }
        h.open();
        return h;
    }

    /**
     * A reducer of {@code ranks} ranks (one subtask), restored from {@code state} unless null, and
     * open.
     */
    static OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> reducer(
            int ranks, OperatorSubtaskState state) throws Exception {
        var h =
                new OneInputStreamOperatorTestHarness<>(
                        new GradientReducer(JobScale.ranks(ranks)), MAX_PARALLELISM, 1, 0);
        h.getExecutionConfig().getSerializerConfig().setGenericTypes(false);
        if (state != null) {
            h.initializeState(state);
        }
        h.open();
        return h;
    }

    /** Moves the ranks' gradients through the reducer and the sums back to every rank. */
    @SafeVarargs
    static void exchange(
            OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> reducer,
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit>... ranks)
            throws Exception {
        List<GradientChunk> all = new ArrayList<>();
        for (var r : ranks) {
            all.addAll(gradients(r));
        }
        List<ReducedChunk> sums = reduce(reducer, all);
        for (var r : ranks) {
            deliver(r, sums);
        }
    }

    static List<ReducedChunk> reduce(
            OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> reducer,
            List<GradientChunk> chunks)
            throws Exception {
        reducer.getOutput().clear();
        for (GradientChunk c : chunks) {
            reducer.processElement(new StreamRecord<>(c));
        }
        List<ReducedChunk> out = new ArrayList<>();
        for (Object o : reducer.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                out.add((ReducedChunk) r.getValue());
            }
        }
        return out;
    }

    static void deliver(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h,
            List<ReducedChunk> sums)
            throws Exception {
        for (ReducedChunk s : sums) {
            h.processElement2(new StreamRecord<>(s));
        }
        awaitSteps(h);
    }

    /** The gradient chunks (no heartbeats) the rank sent since the last call. */
    static List<GradientChunk> gradients(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        var queue = h.getSideOutput(TrainerOperator.GRADIENTS);
        List<GradientChunk> out = new ArrayList<>();
        if (queue != null) {
            queue.forEach(
                    r -> {
                        if (!r.getValue().isHeartbeat()) {
                            out.add(r.getValue());
                        }
                    });
            queue.clear();
        }
        return out;
    }

    /** The credits (processed sequence numbers) the rank sent since the last call. */
    static List<Long> credits(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        List<Long> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r && r.getValue() instanceof Credit c) {
                out.add(c.processedSeq);
            }
        }
        h.getOutput().clear();
        return out;
    }

    static float[] params(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        return operator(h).parameters();
    }

    static TrainerOperator operator(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        return (TrainerOperator) h.getOperator();
    }

    /**
     * Hands {@code parts} to the rank of {@code h} (the parts name it) and waits for the steps they
     * start.
     */
    static void send(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h,
            List<MiniBatchPart> parts)
            throws Exception {
        int rank = operator(h).getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        for (MiniBatchPart p : parts) {
            p.trainer = rank;
            h.processElement1(new StreamRecord<>(p));
        }
        awaitSteps(h);
    }

    static void awaitSteps(TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h)
            throws Exception {
        TaskMailbox mailbox = h.getTaskMailbox();
        while (operator(h).stepInFlight()) {
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
        }
    }

    /**
     * A one-layer training batch of {@code seeds}, each aggregating from the next vertex (mod 8).
     */
    static List<MiniBatchPart> batch(long seq, long step, int[] seeds) {
        return batch(seq, MiniBatch.Kind.TRAIN, step, seeds);
    }

    static List<MiniBatchPart> batch(long seq, MiniBatch.Kind kind, long step, int[] seeds) {
        return batch(seq, kind, step, seeds, 0, false);
    }

    /**
     * A batch whose step starts a round ({@code roundShare > 0}: a training batch names the round's
     * size and this rank's share; an evaluation batch is one block of that share) or none.
     */
    static List<MiniBatchPart> batch(
            long seq,
            MiniBatch.Kind kind,
            long step,
            int[] seeds,
            int roundShare,
            boolean finalRound) {
        return batch(seq, kind, step, seeds, roundShare, finalRound, 0);
    }

    /**
     * As above; {@code layer} 1: a block of a layer-wise inference round's (only) pass, whose
     * destinations get predictions.
     */
    static List<MiniBatchPart> batch(
            long seq,
            MiniBatch.Kind kind,
            long step,
            int[] seeds,
            int roundShare,
            boolean finalRound,
            int layer) {
        int n = seeds.length;
        MiniBatch b = new MiniBatch();
        b.layer = layer;
        b.batchId = seq * 100 + seeds[0];
        b.seq = seq;
        b.kind = kind;
        b.step = step;
        b.numLayers = 1;
        b.nodeCounts = new int[] {n, 2 * n};
        b.nodeIds = new long[2 * n];
        float[] features = new float[2 * n * 3];
        int[] labels = new int[2 * n];
        Arrays.fill(labels, -1);
        for (int i = 0; i < n; i++) {
            int neighbour = (seeds[i] + 1) % 8;
            b.nodeIds[i] = seeds[i];
            b.nodeIds[n + i] = 100 + neighbour;
            System.arraycopy(FEATURES[seeds[i]], 0, features, 3 * i, 3);
            System.arraycopy(FEATURES[neighbour], 0, features, 3 * (n + i), 3);
            labels[i] = LABELS[seeds[i]];
        }
        b.indptr = IntStream.rangeClosed(0, n).toArray();
        b.indptrOffsets = new int[] {0};
        b.indices = IntStream.range(n, 2 * n).toArray();
        b.indicesOffsets = new int[] {0};
        b.featureDim = 3;
        b.roundSize = roundShare;
        b.roundShare = roundShare;
        b.finalRound = finalRound;
        ByteBuffer bytes =
                ByteBuffer.allocate(features.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(features);
        List<MiniBatchPart> parts = new ArrayList<>();
        parts.add(
                MiniBatchPart.features(
                        b.batchId,
                        b.seq,
                        0,
                        0,
                        0,
                        IntStream.range(0, 2 * n).toArray(),
                        labels,
                        bytes.array()));
        parts.add(MiniBatchPart.head(b, 0, 1));
        return parts;
    }

    static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
