package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.internal.RankLine;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The merger of per-rank metrics lines through Flink's harness. */
@Timeout(60)
class MetricsMergerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double EPS = 1e-12;

    @Test
    void theNextMergedLineCarriesTheLatestFreshnessLine() throws Exception {
        try (var h = harness(new MetricsMerger(JobScale.ranks(1)))) {
            h.open();
            h.processElement(new StreamRecord<>(RankLine.freshness(40, 900, 7)));
            h.processElement(new StreamRecord<>(RankLine.freshness(30, 800, 5)));
            assertTrue(lines(h).isEmpty(), "a freshness line is no rank's line");
            send(h, train(0, 1, 1, 5, 0xabL));
            send(h, train(0, 1, 2, 5, 0xabL));
            List<JsonNode> out = lines(h);
            assertEquals(30, out.get(0).get("freshness_p50_ms").asLong());
            assertEquals(800, out.get(0).get("freshness_p99_ms").asLong());
            assertEquals(5, out.get(0).get("incremental_predictions").asLong());
            assertFalse(out.get(1).has("freshness_p50_ms"), "carried once");
        }
    }

    @Test
    void mergesTheTrainLinesOfAllRanksOnceAllAreThere() throws Exception {
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.open();
            send(
                    h,
                    RankLine.window(
                            RankLine.train(1, 2, 1, 3.5, 0xabL),
                            30,
                            12,
                            15.0,
                            2,
                            1.5,
                            2.0,
                            300,
                            1200,
                            40,
                            0.3));
            send(h, train(0, 2, 2, 5, 0xabL));
            assertTrue(lines(h).isEmpty(), "nothing until every rank has sent its line");
            send(h, train(1, 2, 2, 5, 0xabL));
            assertEquals(
                    List.of(2L),
                    lines(h).stream().map(l -> l.get("step").asLong()).toList(),
                    "keys are emitted in the order they complete");
            h.getOutput().clear();
            send(
                    h,
                    RankLine.window(
                            RankLine.train(0, 2, 1, 3.0, 0xabL),
                            10,
                            6,
                            5.0,
                            2,
                            0.5,
                            1.0,
                            100,
                            1000,
                            50,
                            0.1));
            List<JsonNode> out = lines(h);
            assertEquals(1, out.size());
            JsonNode m = out.get(0);
            assertEquals(1, m.get("step").asLong());
            assertEquals(3.5, m.get("elapsed_s").asDouble(), EPS);
            assertEquals(20.0 / 40, m.get("loss").asDouble(), EPS);
            assertEquals(18.0 / 40, m.get("train_acc").asDouble(), EPS);
            assertEquals(40 / 2.0, m.get("seeds_per_s").asDouble(), EPS);
            assertEquals(10 / 0.5 + 30 / 1.5, m.get("trainer_seeds_per_s").asDouble(), EPS);
            assertEquals((0.5 / 1.0 + 1.5 / 2.0) / 2, m.get("busy").asDouble(), EPS);
            assertEquals(4 / 2.0, m.get("batches_per_s").asDouble(), EPS);
            assertEquals(400 / 2.0, m.get("sampled_edges_per_s").asDouble(), EPS);
            assertEquals(1200, m.get("edges_ingested").asLong());
            assertEquals(50, m.get("vertices").asLong());
            assertEquals((0.1 + 0.3) / 2, m.get("allreduce_s").asDouble(), EPS);
            assertEquals("ab", m.get("checksum").asText());
            assertEquals("[\"ab\",\"ab\"]", m.get("checksums").toString());
            assertTrue(m.get("replicas_identical").asBoolean());
            assertEquals(2, m.get("ranks").asInt());
            assertFalse(m.has("val_acc"), "a train line has no evaluation fields");
            assertFalse(m.has("final"));
            assertEquals(0, ((MetricsMerger) h.getOperator()).pendingKeys());
        }
    }

    @Test
    void aRepeatedRankLineReplacesTheFirst() throws Exception {
        MetricsMerger merger = new MetricsMerger(JobScale.ranks(2));
        try (var h = harness(merger)) {
            h.open();
            send(h, train(0, 2, 5, 10, 1L));
            send(h, train(0, 2, 5, 20, 1L));
            assertTrue(lines(h).isEmpty(), "the same rank twice is not all ranks");
            assertEquals(1, merger.pendingKeys());
            send(h, train(1, 2, 5, 20, 1L));
            List<JsonNode> out = lines(h);
            assertEquals(1, out.size());
            assertEquals(
                    40.0,
                    out.get(0).get("seeds_per_s").asDouble(),
                    EPS,
                    "20 + 20 seeds in 1 s, not 10 + 20");
        }
    }

    @Test
    void mergesEvaluationRoundsAndTracksTheBestValidationAccuracy() throws Exception {
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.open();
            send(h, eval(0, 10, 3, 4, 1.0, 2, 5, 2.0, false, 7L));
            send(h, eval(1, 10, 1, 4, 3.0, 3, 5, 4.0, false, 7L));
            send(h, eval(0, 20, 4, 4, 0.5, 4, 5, 1.0, false, 7L));
            send(h, eval(1, 20, 2, 4, 1.5, 4, 5, 1.0, false, 7L));
            List<JsonNode> out = lines(h);
            assertEquals(2, out.size());
            JsonNode first = out.get(0);
            assertEquals(10, first.get("step").asLong());
            assertEquals(4 / 8.0, first.get("val_acc").asDouble(), EPS);
            assertEquals(5 / 10.0, first.get("test_acc").asDouble(), EPS);
            assertEquals(4.0 / 8, first.get("val_loss").asDouble(), EPS);
            assertEquals(6.0 / 10, first.get("test_loss").asDouble(), EPS);
            assertEquals(
                    20 / 40.0,
                    first.get("train_acc").asDouble(),
                    EPS,
                    "the training window is merged too");
            assertEquals(6 / 8.0, out.get(1).get("val_acc").asDouble(), EPS);
            h.getOutput().clear();
            // A worse final round: the best stays at step 20.
            send(h, eval(0, 30, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            send(h, eval(1, 30, 1, 4, 1.0, 2, 5, 1.0, true, 7L));
            out = lines(h);
            assertEquals(2, out.size(), "the merged round, then the final line");
            JsonNode last = out.get(1);
            assertTrue(last.get("final").asBoolean());
            assertEquals(30, last.get("step").asLong());
            assertEquals(2 / 8.0, last.get("val_acc").asDouble(), EPS);
            assertEquals(3 / 10.0, last.get("test_acc").asDouble(), EPS);
            assertEquals(6 / 8.0, last.get("best_val_acc").asDouble(), EPS);
            assertEquals(8 / 10.0, last.get("best_val_test_acc").asDouble(), EPS);
            assertEquals(20, last.get("best_val_step").asLong());
            assertTrue(last.get("replicas_identical").asBoolean());
        }
    }

    @Test
    void emitsTheFinalLineOnceWithTheChecksumsOfAllRanks() throws Exception {
        try (var h = harness(new MetricsMerger(JobScale.ranks(3)))) {
            h.open();
            for (int round = 0; round < 2; round++) {
                for (int rank = 0; rank < 3; rank++) {
                    send(
                            h,
                            RankLine.evalTotals(
                                    RankLine.eval(rank, 3, 8, 1.0, rank == 2 ? 0xdeadL : 0xbeefL),
                                    1,
                                    2,
                                    0.5,
                                    1,
                                    2,
                                    0.5,
                                    true,
                                    0.0,
                                    0.0));
                }
            }
            List<JsonNode> out = lines(h);
            assertEquals(
                    3,
                    out.size(),
                    "merged, final, merged again (a repeated round after a restore)");
            assertFalse(out.get(0).has("final"));
            assertFalse(out.get(2).has("final"));
            JsonNode last = out.get(1);
            assertTrue(last.get("final").asBoolean());
            assertEquals("beef", last.get("checksum").asText());
            assertEquals("[\"beef\",\"beef\",\"dead\"]", last.get("checksums").toString());
            assertFalse(last.get("replicas_identical").asBoolean());
            assertFalse(out.get(0).get("replicas_identical").asBoolean());
            assertEquals(8, last.get("best_val_step").asLong());
        }
    }

    @Test
    void aSingleRankPassesThrough() throws Exception {
        try (var h = harness(new MetricsMerger(JobScale.ranks(1)))) {
            h.open();
            ObjectNode line =
                    RankLine.window(
                            RankLine.train(0, 1, 4, 2.0, 0x1234L),
                            8,
                            6,
                            4.0,
                            1,
                            0.25,
                            0.5,
                            16,
                            100,
                            10,
                            0.0);
            RankLine.placement(line, 5, 25);
            RankLine.traffic(line, 2, 6, 40, 3000, 1000, 4, 800);
            send(h, line);
            List<JsonNode> out = lines(h);
            assertEquals(1, out.size());
            JsonNode m = out.get(0);
            assertEquals(4, m.get("step").asLong());
            assertEquals(
                    5 / 10.0,
                    m.get("replication_factor").asDouble(),
                    EPS,
                    "replicas over vertices");
            assertEquals(
                    25 / 100.0, m.get("edge_cut").asDouble(), EPS, "cut edges over ingested edges");
            assertEquals(800 / 2.0, m.get("remote_bytes_per_batch").asDouble(), EPS);
            assertEquals(4 / 2.0, m.get("remote_requests_per_batch").asDouble(), EPS);
            assertEquals(1000 / 2.0, m.get("feature_bytes_per_batch").asDouble(), EPS);
            assertEquals(0.5, m.get("loss").asDouble(), EPS);
            assertEquals(0.75, m.get("train_acc").asDouble(), EPS);
            assertEquals(16.0, m.get("seeds_per_s").asDouble(), EPS);
            assertEquals(32.0, m.get("trainer_seeds_per_s").asDouble(), EPS);
            assertEquals(0.5, m.get("busy").asDouble(), EPS);
            assertEquals("1234", m.get("checksum").asText());
            assertTrue(m.get("replicas_identical").asBoolean());
            assertEquals(1, m.get("ranks").asInt());
        }
    }

    @Test
    void dropsAndCountsMalformedLines() throws Exception {
        MetricsMerger merger = new MetricsMerger(JobScale.ranks(2));
        try (var h = harness(merger)) {
            h.open();
            List<String> bad =
                    List.of(
                            "not json",
                            "",
                            "[1,2]",
                            "{}",
                            "{\"rank\":0,\"type\":\"train\"}",
                            "{\"rank\":\"0\",\"type\":\"train\",\"step\":1}",
                            "{\"rank\":0,\"type\":\"other\",\"step\":1}",
                            "{\"rank\":2,\"type\":\"train\",\"step\":1}",
                            "{\"rank\":-1,\"type\":\"eval\",\"step\":1}",
                            "{\"rank\":4294967296,\"type\":\"eval\",\"step\":1}",
                            "{\"rank\":0,\"ranks\":3,\"type\":\"train\",\"step\":1}");
            for (String line : bad) {
                h.processElement(new StreamRecord<>(line));
            }
            assertEquals(bad.size(), merger.malformedRankLines());
            assertEquals(0, merger.pendingKeys());
            assertTrue(lines(h).isEmpty());
            send(h, train(0, 2, 1, 1, 1L));
            send(h, train(1, 2, 1, 1, 1L));
            assertEquals(1, lines(h).size(), "the merger goes on");
        }
    }

    @Test
    void dropsTheOldestStepBeyondThePendingBound() throws Exception {
        MetricsMerger merger = new MetricsMerger(JobScale.ranks(2), 3);
        try (var h = harness(merger)) {
            h.open();
            for (long step : new long[] {5, 1, 3, 4}) {
                send(h, train(0, 2, step, 1, 1L));
            }
            assertEquals(3, merger.pendingKeys());
            send(h, train(1, 2, 1, 1, 1L));
            assertTrue(lines(h).isEmpty(), "step 1 was dropped and starts over");
            send(h, train(1, 2, 5, 1, 1L));
            assertEquals(List.of(5L), lines(h).stream().map(l -> l.get("step").asLong()).toList());
        }
    }

    @Test
    void keepsPendingLinesAndTheBestValidationAcrossARestore() throws Exception {
        assertInstanceOf(PojoTypeInfo.class, TypeInformation.of(MetricsMerger.State.class));
        OperatorSubtaskState snapshot;
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.open();
            send(h, eval(0, 10, 4, 4, 1.0, 3, 5, 1.0, false, 7L));
            send(h, eval(1, 10, 3, 4, 1.0, 4, 5, 1.0, false, 7L));
            send(h, train(0, 2, 12, 10, 7L));
            assertEquals(1, lines(h).size());
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.initializeState(snapshot);
            h.open();
            send(h, train(1, 2, 12, 30, 7L));
            List<JsonNode> out = lines(h);
            assertEquals(1, out.size(), "rank 0's line of step 12 was restored");
            assertEquals(40.0, out.get(0).get("seeds_per_s").asDouble(), EPS);
            h.getOutput().clear();
            send(h, eval(0, 20, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            send(h, eval(1, 20, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            JsonNode last = lines(h).get(1);
            assertTrue(last.get("final").asBoolean());
            assertEquals(7 / 8.0, last.get("best_val_acc").asDouble(), EPS);
            assertEquals(7 / 10.0, last.get("best_val_test_acc").asDouble(), EPS);
            assertEquals(10, last.get("best_val_step").asLong());
            snapshot = h.snapshot(2, 2);
        }
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.initializeState(snapshot);
            h.open();
            send(h, eval(0, 20, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            send(h, eval(1, 20, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            assertEquals(1, lines(h).size(), "the finished flag is state: no second final line");
        }
    }

    /**
     * After a restore at another trainer count: the pending lines of the old ranks are dropped, and
     * rank 0's line of the round it runs again, flagged alone, is merged on its own (final line
     * too).
     */
    @Test
    void dropsTheOldRanksLinesAndMergesALineThatStandsAlone() throws Exception {
        OperatorSubtaskState twoRanks;
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.open();
            send(h, eval(1, 20, 1, 4, 1.0, 1, 5, 1.0, true, 7L));
            send(h, train(0, 2, 19, 10, 7L));
            twoRanks = h.snapshot(1, 1);
        }
        MetricsMerger three = new MetricsMerger(JobScale.ranks(3));
        try (var h = harness(three)) {
            h.initializeState(twoRanks);
            h.open();
            assertEquals(0, three.pendingKeys(), "the old ranks' lines are dropped");
            ObjectNode alone = eval(0, 20, 3, 4, 1.0, 4, 5, 1.0, true, 7L);
            alone.put(RankLine.RANKS, 3).put(RankLine.ALONE, true);
            send(h, alone);
            List<JsonNode> out = lines(h);
            assertEquals(2, out.size(), "the round's line and the final line");
            assertEquals(20, out.get(0).get("step").asLong());
            assertEquals(1, out.get(0).get("ranks").asInt());
            assertEquals(3 / 4.0, out.get(0).get("val_acc").asDouble(), EPS);
            assertTrue(out.get(0).get("replicas_identical").asBoolean());
            assertTrue(out.get(1).get("final").asBoolean());
            assertEquals(0, three.malformedRankLines());
        }
    }

    /**
     * A serving round follows the final one: the final line waits for rank 0's line of it, also
     * across a restore, and then names the step whose model serves.
     */
    @Test
    void holdsTheFinalLineUntilTheServingRound() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.open();
            send(h, eval(0, 10, 4, 4, 1.0, 3, 5, 1.0, false, 7L).put(RankLine.SELECT, "best-val"));
            send(h, eval(1, 10, 3, 4, 1.0, 4, 5, 1.0, false, 7L).put(RankLine.SELECT, "best-val"));
            for (int r = 0; r < 2; r++) {
                send(
                        h,
                        eval(r, 20, 1, 4, 1.0, 1, 5, 1.0, true, 9L)
                                .put(RankLine.SELECT, "best-val")
                                .put(RankLine.SERVING_FOLLOWS, true));
            }
            List<JsonNode> out = lines(h);
            assertEquals(2, out.size(), "the two rounds; the final line is held");
            assertTrue(out.stream().noneMatch(l -> l.has("final")));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness(new MetricsMerger(JobScale.ranks(2)))) {
            h.initializeState(snapshot);
            h.open();
            ObjectNode served = eval(0, 21, 7, 8, 1.0, 7, 10, 1.0, false, 7L);
            served.put(RankLine.ALONE, true)
                    .put(RankLine.SERVED_STEP, 10)
                    .put(RankLine.SELECT, "best-val");
            send(h, served);
            List<JsonNode> out = lines(h);
            assertEquals(
                    1, out.size(), "only the final line: the serving round is no round of its own");
            JsonNode last = out.get(0);
            assertTrue(last.get("final").asBoolean());
            assertEquals(20, last.get("step").asLong(), "the final round's");
            assertEquals(2 / 8.0, last.get("val_acc").asDouble(), EPS);
            assertEquals(10, last.get("selected_step").asLong());
            assertEquals(10, last.get("served_step").asLong());
            assertEquals(Long.toHexString(7L), last.get("served_checksum").asText());
            h.getOutput().clear();
            send(h, served);
            assertEquals(0, lines(h).size(), "one final line");
        }
    }

    private static OneInputStreamOperatorTestHarness<String, String> harness(MetricsMerger merger)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(merger);
    }

    /**
     * A train line with {@code seeds} seeds (half correct, loss 1 each), 1 step, busy 0.5 s in 1 s.
     */
    private static ObjectNode train(int rank, int ranks, long step, long seeds, long checksum) {
        return RankLine.window(
                RankLine.train(rank, ranks, step, 1.0, checksum),
                seeds,
                seeds / 2,
                seeds,
                1,
                0.5,
                1.0,
                0,
                0,
                0,
                0.0);
    }

    /**
     * An evaluation line of rank {@code rank} of 2, with a training window of 20 seeds, 10 correct.
     */
    private static ObjectNode eval(
            int rank,
            long step,
            long valCorrect,
            long valTotal,
            double valLoss,
            long testCorrect,
            long testTotal,
            double testLoss,
            boolean finalRound,
            long checksum) {
        ObjectNode line =
                RankLine.window(
                        RankLine.eval(rank, 2, step, 1.0, checksum),
                        20,
                        10,
                        20.0,
                        1,
                        0.5,
                        1.0,
                        0,
                        0,
                        0,
                        0.0);
        return RankLine.evalTotals(
                line,
                valCorrect,
                valTotal,
                valLoss,
                testCorrect,
                testTotal,
                testLoss,
                finalRound,
                0.0,
                0.0);
    }

    private static void send(OneInputStreamOperatorTestHarness<String, String> h, ObjectNode line)
            throws Exception {
        h.processElement(new StreamRecord<>(line.toString()));
    }

    private static List<JsonNode> lines(OneInputStreamOperatorTestHarness<String, String> h)
            throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                out.add(JSON.readTree((String) ((StreamRecord<?>) o).getValue()));
            }
        }
        return out;
    }
}
