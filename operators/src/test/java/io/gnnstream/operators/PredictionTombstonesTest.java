package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.messages.Prediction;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PredictionTombstonesTest {

    @Test
    void aDeletionIsATombstoneAndOutlivesTheRoundsInFlight() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(round(1, 10));
            h.processElement(deletion(2, 10));
            h.processElement(round(2, 10));
            h.processElement(round(3, 10));
            assertEquals(List.of("1@10", "2 deleted", "3@10"), lines(h));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(round(2, 9));
            h.processElement(round(2, 11));
            assertEquals(
                    List.of("2@11"),
                    lines(h),
                    "a restored operator still drops a stale prediction; a later round's passes");
            assertEquals(1, h.numKeyedStateEntries());
            h.processElement(round(5, 12));
            assertEquals(0, h.numKeyedStateEntries(), "forgotten once two later rounds came");
        }
    }

    @Test
    void aDeletedVertexNeverPredictedAgainIsForgottenAtTheSecondLaterRound() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(round(1, 10));
            h.processElement(deletion(7, 10));
            h.processElement(deletion(8, -1));
            assertEquals(1, h.numKeyedStateEntries(), "a deletion before any round needs nothing");
            h.processElement(round(1, 20));
            assertEquals(1, h.numKeyedStateEntries(), "round 10's predictions may still come");
            h.processElement(round(1, 30));
            assertEquals(0, h.numKeyedStateEntries());
            assertEquals(List.of("1@10", "7 deleted", "8 deleted", "1@20", "1@30"), lines(h));
        }
    }

    @Test
    void aVertexCreatedAgainAfterItsDeletionIsPredictedIncrementally() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(round(1, 10));
            h.processElement(incremental(2, 10, 5));
            h.processElement(deletion(2, 10));
            h.processElement(incremental(2, 10, 6));
            h.processElement(round(2, 10));
            assertEquals(
                    List.of("1@10", "2@10", "2 deleted", "2@10"),
                    lines(h),
                    "the incremental prediction after the deletion (its channel is the deletion's)"
                            + " is of the vertex created again; the round's asked before");
        }
    }

    @Test
    void anIncrementalStepWrittenBeforeADeletionIsWrittenAgainAfterIt() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(round(1, 10));
            h.processElement(round(1, 20));
            h.processElement(incremental(2, 20, 5));
            // Older than the previous round: no round prediction of it is on its way.
            h.processElement(deletion(2, 5));
            // Vertex 2 created again under the same pin: its step must be in the state again.
            h.processElement(incremental(2, 20, 6));
            h.processElement(round(2, 20));
            assertEquals(
                    List.of("1@10", "1@20", "2@20", "2 deleted", "2@20"),
                    lines(h),
                    "the round of step 20 is not newer than the incremental prediction after the"
                            + " deletion");
        }
    }

    @Test
    void aRoundPredictionOlderThanAnIncrementalOneIsDropped() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(round(1, 10));
            h.processElement(incremental(2, 10, 5));
            h.processElement(round(2, 10));
            h.processElement(incremental(3, 10, 5));
            h.processElement(round(3, 20));
            h.processElement(incremental(3, 10, 6));
            h.processElement(round(2, 20));
            assertEquals(List.of("1@10", "2@10", "3@10", "3@20", "2@20"), lines(h));
            assertEquals(2, h.numKeyedStateEntries());
            h.processElement(round(2, 30));
            h.processElement(round(3, 30));
            assertEquals(0, h.numKeyedStateEntries(), "cleared as their vertices came again");
        }
    }

    @Test
    void everySecondWithIncrementalPredictionsAFreshnessLine() throws Exception {
        try (var h = harness()) {
            h.setProcessingTime(10_000);
            h.open();
            for (int i = 1; i <= 100; i++) {
                h.processElement(incremental(i, 10, 10_000 - i));
            }
            h.processElement(round(200, 10));
            h.setProcessingTime(10_999);
            assertEquals(null, h.getSideOutput(PredictionTombstones.FRESHNESS));
            h.setProcessingTime(11_000);
            var lines = h.getSideOutput(PredictionTombstones.FRESHNESS);
            assertEquals(1, lines.size());
            var line =
                    new com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(lines.poll().getValue());
            assertEquals("freshness", line.get("type").asText());
            assertEquals(51, line.get("freshness_p50_ms").asLong());
            assertEquals(100, line.get("freshness_p99_ms").asLong());
            assertEquals(
                    100, line.get("incremental_predictions").asLong(), "round ones not counted");
            h.setProcessingTime(12_000);
            assertEquals(0, h.getSideOutput(PredictionTombstones.FRESHNESS).size(), "none without");
        }
    }

    @Test
    void aSavepointOfTheHeapLayoutIsMovedIntoTheKeyedState() throws Exception {
        OperatorSubtaskState legacy;
        try (var h = new OneInputStreamOperatorTestHarness<>(new HeapLayout())) {
            h.open();
            legacy = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(legacy);
            h.open();
            assertEquals(2, h.numKeyedStateEntries(), "a deletion and an incremental step");
            h.processElement(round(2, 10));
            h.processElement(round(3, 10));
            h.processElement(incremental(4, 9, 5));
            h.processElement(round(5, 10));
            assertEquals(
                    List.of("5@10"),
                    lines(h),
                    "the deleted vertex's and the incremental one's round predictions are stale,"
                            + " and so is an incremental prediction older than the latest round");
        }
    }

    /** The operator state of the stage before it was keyed: vertex 2 deleted up to round 10. */
    private static final class HeapLayout extends AbstractStreamOperator<Prediction>
            implements OneInputStreamOperator<Prediction, Prediction> {

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            var store = context.getOperatorStateStore();
            store.getListState(PredictionTombstones.LEGACY_DELETIONS).add(Tuple2.of(2L, 10L));
            store.getListState(PredictionTombstones.LEGACY_INCREMENTAL).add(Tuple2.of(3L, 10L));
            store.getListState(PredictionTombstones.LEGACY_ROUNDS).update(List.of(10L, 5L));
        }

        @Override
        public void processElement(StreamRecord<Prediction> element) {}
    }

    private static KeyedOneInputStreamOperatorTestHarness<Long, Prediction, Prediction> harness()
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new PredictionTombstones(), p -> p.vertex, Types.LONG);
    }

    private static StreamRecord<Prediction> round(long vertex, long step) {
        return new StreamRecord<>(new Prediction(vertex, step, 0, new float[] {1f}, null));
    }

    private static StreamRecord<Prediction> incremental(long vertex, long step, long changedAt) {
        StreamRecord<Prediction> p = round(vertex, step);
        p.getValue().changedAt = changedAt;
        return p;
    }

    private static StreamRecord<Prediction> deletion(long vertex, long step) {
        return new StreamRecord<>(Prediction.deletion(vertex, step));
    }

    private static List<String> lines(KeyedOneInputStreamOperatorTestHarness<?, ?, Prediction> h) {
        List<String> out =
                h.extractOutputValues().stream()
                        .map(p -> p.isTombstone() ? p.vertex + " deleted" : p.vertex + "@" + p.step)
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return out;
    }
}
