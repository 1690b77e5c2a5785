package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two trainer ranks and a reducer wired by hand: replicas stay bit-identical, a rank restored while
 * waiting for its reduced gradient sends it again and catches up, and two ranks of batch B train
 * like one trainer of batch 2B on the same seeds.
 */
@Timeout(60)
class AllReduceTrainerTest {

    private static final ModelConfig MODEL =
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

    private static TrainerConfig config(int trainers) {
        return new TrainerConfig(
                MODEL, 1, 1, null, 60_000, true, 0, new JobScale(trainers, 1, trainers, 1));
    }

    private static final float[][] FEATURES = {
        {1, 0, 2}, {0, 1, 1}, {2, 2, 0}, {0, 3, 1}, {1, 1, 1}, {3, 0, 0}, {0, 0, 2}, {1, 2, 3}
    };
    private static final int[] LABELS = {0, 1, 0, 1, 1, 0, 1, 0};

    @Test
    void ranksStayIdenticalAndMatchOneTrainerOfTheWholeBatch() throws Exception {
        try (var r0 = rank(0, 2);
                var r1 = rank(1, 2);
                var reducer = reducer();
                var single =
                        new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(config(1)))) {
            r0.open();
            r1.open();
            reducer.open();
            single.open();
            for (int step = 1; step <= 20; step++) {
                int base = (step * 2) % 4;
                int[] seeds0 = {base, base + 1};
                int[] seeds1 = {(base + 2) % 8, (base + 3) % 8};
                send(r0, batch(step - 1, step, seeds0));
                send(r1, batch(step - 1, step, seeds1));
                exchange(reducer, r0, r1);
                send(single, batch(step - 1, step, concat(seeds0, seeds1)));
                assertArrayEquals(params(r0), params(r1), "replicas differ after step " + step);
            }
            assertEquals(20, credits(r0).size());
            float[] a = params(r0);
            float[] b = params(single);
            // Float sums in a different order: the ranks add two half-batch sums, one trainer one
            // sum of four; Adam divides by sqrt(v) and amplifies relative differences only near
            // zero, so a few ulps of the parameters' scale per step is the bound.
            for (int i = 0; i < a.length; i++) {
                assertEquals(b[i], a[i], 1e-4f * Math.max(1f, Math.abs(b[i])), "parameter " + i);
            }
        }
    }

    @Test
    void aRankRestoredWhileWaitingSendsItsGradientAgainAndCatchesUp() throws Exception {
        OperatorSubtaskState waiting;
        try (var r0 = rank(0, 2);
                var r1 = rank(1, 2);
                var reducer = reducer()) {
            r0.open();
            r1.open();
            reducer.open();
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            exchange(reducer, r0, r1);
            send(r0, batch(1, 2, new int[] {4, 5}));
            send(r1, batch(1, 2, new int[] {6, 7}));
            List<GradientChunk> sent1 = gradients(r1);
            waiting = r1.snapshot(1, 1);
            // Rank 0's step 2 completes; rank 1's sums are lost with the failure.
            List<ReducedChunk> sums = reduce(reducer, concat(gradients(r0), sent1));
            deliver(r0, sums);
            assertEquals(List.of(0L, 1L), credits(r0));

            try (var restored = rank(1, 2)) {
                restored.initializeState(waiting);
                restored.open();
                List<GradientChunk> again = gradients(restored);
                assertEquals(sent1.size(), again.size(), "the pending gradient is sent again");
                for (int i = 0; i < again.size(); i++) {
                    assertArrayEquals(sent1.get(i).values, again.get(i).values);
                }
                deliver(restored, reduce(reducer, again));
                assertEquals(List.of(1L), credits(restored));
                assertArrayEquals(
                        params(r0), params(restored), "the restored rank catches up bit for bit");
            }
        }
    }

    @Test
    void aRankWhoseSumsAreLostSendsItsGradientAgainAfterAQuietPeriod() throws Exception {
        try (var r0 = rank(0, 2);
                var r1 = rank(1, 2);
                var reducer = reducer()) {
            r0.open();
            r1.open();
            reducer.open();
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            List<GradientChunk> sent1 = gradients(r1);
            List<ReducedChunk> sums = reduce(reducer, concat(gradients(r0), sent1));
            deliver(r0, sums); // rank 1's copies of the sums are lost on the feedback edge

            r1.setProcessingTime(TrainerOperator.ALL_REDUCE_RESEND_MS / 2);
            assertTrue(TrainerRig.gradients(r1).isEmpty(), "a short wait sends nothing again");
            r1.setProcessingTime(TrainerOperator.ALL_REDUCE_RESEND_MS);
            List<GradientChunk> again = TrainerRig.gradients(r1);
            assertEquals(sent1.size(), again.size(), "the pending gradient is sent again");
            List<ReducedChunk> resent = reduce(reducer, again);
            assertEquals(sums.size(), resent.size(), "the reducer answers with the stored sums");
            deliver(r1, resent);
            assertEquals(List.of(0L), credits(r1));
            assertArrayEquals(params(r0), params(r1), "the waiting rank catches up bit for bit");
            r1.setProcessingTime(3 * TrainerOperator.ALL_REDUCE_RESEND_MS);
            assertTrue(
                    TrainerRig.gradients(r1).isEmpty(),
                    "nothing is sent again once the step is applied");
        }
    }

    @Test
    void heartbeatsGoAroundTheLoopAndChangeNothing() throws Exception {
        try (var r0 = rank(0, 2);
                var reducer = reducer()) {
            r0.open();
            reducer.open();
            float[] before = params(r0);
            r0.setProcessingTime(TrainerOperator.HEARTBEAT_MS);
            List<GradientChunk> beats = gradients(r0);
            assertEquals(1, beats.size());
            assertTrue(beats.get(0).isHeartbeat());
            List<ReducedChunk> echo = reduce(reducer, beats);
            assertEquals(
                    1, echo.size(), "the reducer echoes a heartbeat at once and keeps nothing");
            deliver(r0, echo);
            assertArrayEquals(before, params(r0));
            assertTrue(credits(r0).isEmpty());
        }
    }

    @Test
    void reducedChunksOfOtherStepsAreIgnored() throws Exception {
        try (var r0 = rank(0, 2)) {
            r0.open();
            float[] before = params(r0);
            send(r0, batch(0, 1, new int[] {0, 1}));
            GradientChunk c = gradients(r0).get(0);
            r0.processElement2(
                    new StreamRecord<>(new ReducedChunk(7, c.chunk, c.numChunks, 4, c.values)));
            awaitSteps(r0);
            assertTrue(credits(r0).isEmpty());
            assertArrayEquals(before, params(r0));
            assertFalse(operator(r0).stepInFlight());
        }
    }

    private static TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> rank(
            int rank, int ranks) throws Exception {
        return new TwoInputStreamOperatorTestHarness<>(
                new TrainerOperator(config(ranks)), ranks, ranks, rank);
    }

    private static OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> reducer()
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new GradientReducer(JobScale.ranks(2)));
    }

    /** Moves both ranks' gradients through the reducer and the sums back to both ranks. */
    @SafeVarargs
    private static void exchange(
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

    private static List<ReducedChunk> reduce(
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

    private static void deliver(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h,
            List<ReducedChunk> sums)
            throws Exception {
        for (ReducedChunk s : sums) {
            h.processElement2(new StreamRecord<>(s));
        }
        awaitSteps(h);
    }

    private static List<GradientChunk> gradients(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        var queue = h.getSideOutput(TrainerOperator.GRADIENTS);
        List<GradientChunk> out = new ArrayList<>();
        if (queue != null) {
            queue.forEach(r -> out.add(r.getValue()));
            queue.clear();
        }
        return out;
    }

    private static List<Long> credits(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        List<Long> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r && r.getValue() instanceof Credit c) {
                out.add(c.processedSeq);
            }
        }
        return out;
    }

    private static float[] params(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        return operator(h).parameters();
    }

    private static TrainerOperator operator(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        return (TrainerOperator) h.getOperator();
    }

    /**
     * Hands {@code parts} to the rank of {@code h} (the parts name it) and waits for the steps they
     * start.
     */
    private static void send(
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

    private static void awaitSteps(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h)
            throws Exception {
        TaskMailbox mailbox = h.getTaskMailbox();
        while (operator(h).stepInFlight()) {
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
        }
    }

    /**
     * A one-layer training batch of {@code seeds}, each aggregating from the next vertex (mod 8).
     */
    private static List<MiniBatchPart> batch(long seq, long step, int[] seeds) {
        int n = seeds.length;
        MiniBatch b = new MiniBatch();
        b.batchId = seq * 100 + seeds[0];
        b.seq = seq;
        b.kind = MiniBatch.Kind.TRAIN;
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

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
