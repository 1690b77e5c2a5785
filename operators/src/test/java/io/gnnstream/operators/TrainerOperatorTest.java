package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.operators.messages.Credit;
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
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The trainer through Flink's harness: ordering, credits, evaluation rounds, restore. */
@Timeout(120)
class TrainerOperatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TrainerConfig CONFIG =
            new TrainerConfig(
                    ModelConfig.builder()
                            .inFeatures(2)
                            .hidden(4)
                            .numClasses(2)
                            .numLayers(1)
                            .dropout(0)
                            .learningRate(0.05)
                            .weightDecay(0)
                            .seed(3)
                            .build(),
                    1,
                    1,
                    null,
                    60_000);

    @Test
    void consumesBatchesInSequenceOrderAndCreditsEachOne() throws Exception {
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            send(h, whole(train(1, 2)));
            assertTrue(credits(h).isEmpty(), "seq 1 must wait for seq 0");
            send(h, whole(train(0, 1)));
            assertEquals(List.of(0L, 1L), credits(h), "a credit per batch, absolute progress");
            assertEquals(2, metrics(h).size(), "a line per step with log-every 1");
        }
    }

    @Test
    void reportsAnEvaluationRoundAsARankLine() throws Exception {
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            MiniBatch step = train(0, 1);
            step.roundSize = 2;
            step.roundShare = 2;
            step.finalRound = true;
            send(h, whole(step));
            MiniBatch val = eval(1, MiniBatch.Kind.EVAL_VAL, 0);
            MiniBatch test = eval(2, MiniBatch.Kind.EVAL_TEST, 1);
            val.finalRound = true;
            test.finalRound = true;
            send(h, whole(val));
            assertTrue(metrics(h).isEmpty(), "the step line waits for its evaluation round");
            send(h, whole(test));
            List<JsonNode> lines = metrics(h);
            assertEquals(1, lines.size());
            assertEquals("eval", lines.get(0).path("type").asText());
            assertEquals(
                    4,
                    lines.get(0).path("val_total").asLong()
                            + lines.get(0).path("test_total").asLong());
            assertTrue(lines.get(0).path("final_round").asBoolean());
            assertEquals(1, lines.get(0).path("step").asLong());
        }
    }

    @Test
    void restoresModelAndProgress() throws Exception {
        OperatorSubtaskState snapshot;
        String checksumAfterTwo;
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            send(h, whole(train(0, 1)));
            send(h, whole(train(2, 3)));
            snapshot = h.snapshot(1, 1);
            send(h, whole(train(1, 2)));
            checksumAfterTwo = finalChecksum(h, 3);
        }
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.initializeState(snapshot);
            h.open();
            send(h, whole(train(1, 2)));
            assertEquals(
                    List.of(1L, 2L),
                    credits(h),
                    "the buffered batch 2 was restored and consumed after 1");
            assertEquals(
                    checksumAfterTwo, finalChecksum(h, 3), "same model as without the restore");
        }
    }

    /** A checkpoint can fall between the parts of a batch: the parts before it are state. */
    @Test
    void restoresTheReceivedPartsOfABatch() throws Exception {
        OperatorSubtaskState snapshot;
        String checksumUninterrupted;
        List<MiniBatchPart> parts = parts(train(0, 1), 1);
        assertEquals(5, parts.size(), "four feature parts of one row, then the head");
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            h.processElement1(new StreamRecord<>(parts.get(4)));
            h.processElement1(new StreamRecord<>(parts.get(0)));
            snapshot = h.snapshot(1, 1);
            h.processElement1(new StreamRecord<>(parts.get(1)));
            h.processElement1(new StreamRecord<>(parts.get(2)));
            h.processElement1(new StreamRecord<>(parts.get(3)));
            awaitSteps(h);
            assertEquals(List.of(0L), credits(h));
            checksumUninterrupted = finalChecksum(h, 1);
        }
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.initializeState(snapshot);
            h.open();
            h.processElement1(new StreamRecord<>(parts.get(3)));
            h.processElement1(new StreamRecord<>(parts.get(2)));
            assertTrue(credits(h).isEmpty(), "part 1 is still missing");
            h.processElement1(new StreamRecord<>(parts.get(1)));
            awaitSteps(h);
            assertEquals(
                    List.of(0L), credits(h), "the restored head and part 0 completed the batch");
            h.processElement1(new StreamRecord<>(parts.get(4)));
            awaitSteps(h);
            assertTrue(credits(h).isEmpty(), "a part of a consumed batch is ignored");
            assertEquals(
                    checksumUninterrupted,
                    finalChecksum(h, 1),
                    "same model as without the restore");
        }
    }

    /**
     * A part naming cache slots the trainer does not hold (sent before a restore) is dropped and
     * counted; the batch sampled again as a later attempt, whose parts arrive before its head while
     * the earlier attempt's head is pending, trains as the same batch sent without the cache.
     */
    @Test
    void dropsPartsItCannotResolveAndTrainsTheBatchSampledAgain() throws Exception {
        String reference;
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            send(h, whole(train(0, 1)));
            reference = finalChecksum(h, 1);
        }
        TrainerConfig withCache = new TrainerConfig(CONFIG.model, 1, 1, null, 60_000, true, 8);
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(withCache))) {
            h.open();
            List<MiniBatchPart> first = parts(train(0, 1), 2);
            MiniBatchPart fillsRows01 =
                    first.get(0).withCacheSlots(5L, new int[] {0, 1}, new int[0], new int[0]);
            MiniBatchPart namesLostSlots = cachedOnly(0, 1, new int[] {2, 3}, new int[] {6, 7});
            receive(h, List.of(first.get(2), fillsRows01, namesLostSlots));
            awaitSteps(h);
            assertTrue(credits(h).isEmpty());
            assertEquals(1, operator(h).unresolvedFeatureParts());

            int later = 1 << 16;
            List<MiniBatchPart> again = parts(train(0, 1), 2);
            again.forEach(p -> p.attempt = later);
            MiniBatchPart namesRows01 = cachedOnly(later, 0, new int[] {0, 1}, new int[] {0, 1});
            MiniBatchPart fillsRows23 =
                    again.get(1).withCacheSlots(5L, new int[] {2, 3}, new int[0], new int[0]);
            receive(h, List.of(namesRows01, fillsRows23, again.get(2)));
            awaitSteps(h);
            assertEquals(List.of(0L), credits(h));
            assertEquals(1, operator(h).unresolvedFeatureParts());
            assertEquals(
                    reference,
                    finalChecksum(h, 1),
                    "same model as the batch sent without the cache");
        }
    }

    /**
     * Feature part {@code part} of batch 0 whose rows all come from the trainer's cache (epoch 5).
     */
    private static MiniBatchPart cachedOnly(int attempt, int part, int[] rows, int[] slots) {
        return MiniBatchPart.features(0, 0, 0, attempt, part, new int[0], new int[0], new byte[0])
                .withCacheSlots(5L, new int[0], rows, slots);
    }

    /**
     * A barrier during a model step: the step finishes before the barrier (its credit with it), no
     * step starts until the snapshot, and the snapshot holds the model after the step and the batch
     * that arrived meanwhile.
     */
    @Test
    void checkpointDuringAStepHoldsTheModelAfterIt() throws Exception {
        OperatorSubtaskState snapshot;
        String checksumUninterrupted;
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.open();
            receive(h, whole(train(0, 1)));
            h.prepareSnapshotPreBarrier(1);
            assertEquals(List.of(0L), credits(h), "the step in flight finished before the barrier");
            receive(h, whole(train(1, 2)));
            assertFalse(operator(h).stepInFlight(), "no step between the barrier and the snapshot");
            snapshot = h.snapshot(1, 1);
            awaitSteps(h);
            assertEquals(List.of(1L), credits(h), "steps resume after the snapshot");
            checksumUninterrupted = finalChecksum(h, 2);
        }
        try (var h = new TwoInputStreamOperatorTestHarness<>(new TrainerOperator(CONFIG))) {
            h.initializeState(snapshot);
            h.open();
            awaitSteps(h);
            assertEquals(
                    List.of(1L),
                    credits(h),
                    "the buffered batch 1 is trained on after the restore");
            send(h, whole(train(0, 1)));
            assertTrue(
                    credits(h).isEmpty(), "step 0 is in the restored model: its batch is a repeat");
            assertEquals(
                    checksumUninterrupted,
                    finalChecksum(h, 2),
                    "same model as without the restore");
        }
    }

    /** Runs a final evaluation round at {@code seq} and returns the reported parameter checksum. */
    private static String finalChecksum(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h, long seq)
            throws Exception {
        MiniBatch e = eval(seq, MiniBatch.Kind.EVAL_TEST, 0);
        e.roundSize = 1;
        e.finalRound = true;
        send(h, whole(e));
        List<JsonNode> lines = metrics(h);
        return lines.get(lines.size() - 1).path("checksum").asText();
    }

    /** Two seeds with one neighbour each; the label is the index of the larger feature. */
    private static MiniBatch batch(long seq, MiniBatch.Kind kind, long step) {
        MiniBatch b = new MiniBatch();
        b.batchId = seq;
        b.seq = seq;
        b.kind = kind;
        b.step = step;
        b.numLayers = 1;
        b.nodeCounts = new int[] {2, 4};
        b.nodeIds = new long[] {0, 1, 2, 3};
        b.indptr = new int[] {0, 1, 2};
        b.indptrOffsets = new int[] {0};
        b.indices = new int[] {2, 3};
        b.indicesOffsets = new int[] {0};
        b.featureDim = 2;
        b.features = new float[] {1, 0, 0, 1, 1, 0, 0, 1};
        b.labels = new int[] {0, 1};
        return b;
    }

    /**
     * {@code b} as the trainer receives it: feature parts of {@code rows} rows each (as the
     * GraphStore sends them), then the head (from the assembler).
     */
    private static List<MiniBatchPart> parts(MiniBatch b, int rows) {
        float[] features = b.features;
        int[] labels = b.labels;
        b.features = null;
        b.labels = null;
        List<MiniBatchPart> out = new ArrayList<>();
        int numParts = (b.numNodes() + rows - 1) / rows;
        for (int part = 0; part < numParts; part++) {
            int first = part * rows;
            int last = Math.min(b.numNodes(), first + rows);
            int[] partRows = IntStream.range(first, last).toArray();
            int[] partLabels =
                    IntStream.range(first, last)
                            .map(r -> r < labels.length ? labels[r] : -1)
                            .toArray();
            out.add(
                    MiniBatchPart.features(
                            b.batchId,
                            b.seq,
                            0,
                            0,
                            part,
                            partRows,
                            partLabels,
                            bytes(
                                    Arrays.copyOfRange(
                                            features, first * b.featureDim, last * b.featureDim))));
        }
        out.add(MiniBatchPart.head(b, 0, numParts));
        return out;
    }

    private static byte[] bytes(float[] values) {
        ByteBuffer b =
                ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return b.array();
    }

    private static List<MiniBatchPart> whole(MiniBatch b) {
        return parts(b, b.numNodes());
    }

    private static void send(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h,
            List<MiniBatchPart> parts)
            throws Exception {
        receive(h, parts);
        awaitSteps(h);
    }

    /** Hands {@code parts} to the operator without waiting for the steps they start. */
    private static void receive(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h,
            List<MiniBatchPart> parts)
            throws Exception {
        for (MiniBatchPart p : parts) {
            h.processElement1(new StreamRecord<>(p));
        }
    }

    private static TrainerOperator operator(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        return (TrainerOperator) h.getOperator();
    }

    /** Runs the task's mailbox until the model steps started so far have been delivered. */
    private static void awaitSteps(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h)
            throws Exception {
        TaskMailbox mailbox = h.getTaskMailbox();
        while (operator(h).stepInFlight()) {
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
        }
    }

    private static MiniBatch train(long seq, long step) {
        return batch(seq, MiniBatch.Kind.TRAIN, step);
    }

    private static MiniBatch eval(long seq, MiniBatch.Kind kind, int index) {
        MiniBatch b = batch(seq, kind, 1);
        b.roundIndex = index;
        b.roundSize = 2;
        return b;
    }

    private static List<Long> credits(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h) {
        List<Long> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                out.add(((Credit) ((StreamRecord<?>) o).getValue()).processedSeq);
            }
        }
        h.getOutput().clear();
        return out;
    }

    private static List<JsonNode> metrics(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> h)
            throws Exception {
        List<JsonNode> out = new ArrayList<>();
        if (h.getSideOutput(TrainerOperator.METRICS) == null) {
            return out;
        }
        for (StreamRecord<String> r : h.getSideOutput(TrainerOperator.METRICS)) {
            out.add(JSON.readTree(r.getValue()));
        }
        return out;
    }
}
