package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.messages.Prediction;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PredictionTombstonesTest {

    @Test
    void aDeletionIsATombstoneAndOutlivesTheRoundsInFlight() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = new TwoInputStreamOperatorTestHarness<>(new PredictionTombstones())) {
            h.open();
            h.processElement1(prediction(1, 10));
            h.processElement2(new StreamRecord<>(Tuple2.of(2L, 10L)));
            h.processElement1(prediction(2, 10));
            h.processElement1(prediction(3, 10));
            assertEquals(List.of("1@10", "2 deleted", "3@10"), lines(h));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = new TwoInputStreamOperatorTestHarness<>(new PredictionTombstones())) {
            h.initializeState(snapshot);
            h.open();
            h.processElement1(prediction(2, 9));
            h.processElement1(prediction(2, 11));
            assertEquals(
                    List.of("2@11"),
                    lines(h),
                    "a restored operator still drops a stale prediction; a later round's passes");
            assertEquals(1, ((PredictionTombstones) h.getOperator()).remembered());
            h.processElement1(prediction(5, 12));
            assertEquals(
                    0,
                    ((PredictionTombstones) h.getOperator()).remembered(),
                    "forgotten once two later rounds have predicted");
        }
    }

    @Test
    void everySecondWithIncrementalPredictionsAFreshnessLine() throws Exception {
        try (var h = new TwoInputStreamOperatorTestHarness<>(new PredictionTombstones())) {
            h.setProcessingTime(10_000);
            h.open();
            for (int i = 1; i <= 100; i++) {
                StreamRecord<Prediction> p = prediction(i, 10);
                p.getValue().changedAt = 10_000 - i;
                h.processElement1(p);
            }
            h.processElement1(prediction(200, 10));
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

    private static StreamRecord<Prediction> prediction(long vertex, long step) {
        return new StreamRecord<>(new Prediction(vertex, step, 0, new float[] {1f}, null));
    }

    private static List<String> lines(TwoInputStreamOperatorTestHarness<?, ?, Prediction> h) {
        List<String> out =
                h.extractOutputValues().stream()
                        .map(p -> p.isTombstone() ? p.vertex + " deleted" : p.vertex + "@" + p.step)
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return out;
    }
}
