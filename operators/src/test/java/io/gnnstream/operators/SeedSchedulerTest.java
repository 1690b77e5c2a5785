package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SeedSchedulerTest {

    private static final SchedulerConfig CONFIG =
            new SchedulerConfig(new JobScale(4, 1, 1, 1), 2, 2, 5, 2, 3, 5, 7L);

    @Test
    void issuesAtMostPrefetchBatchesUntilCredited() throws Exception {
        try (var h = harness()) {
            h.open();
            announce(h);
            assertEquals(3, specs(h).size());
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            assertEquals(4, specs(h).size());
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            assertEquals(4, specs(h).size(), "a repeated credit must not grant more batches");
        }
    }

    /**
     * A deleted vertex leaves every split, and a vertex that moves to another split leaves its old
     * one: steps and rounds cut after the events take neither where it was.
     */
    @Test
    void deletedAndMovedVerticesLeaveTheirSplits() throws Exception {
        try (var h = harness()) {
            h.open();
            announce(h);
            for (long id = 15; id < 20; id++) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
            }
            List<BatchSpec> before = specs(h);
            long lastBefore = before.get(before.size() - 1).seq;
            h.processElement1(new StreamRecord<>(GraphEvent.deleted(0, 10)));
            h.processElement1(new StreamRecord<>(GraphEvent.deleted(0, 21)));
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 13, Split.VAL)));
            List<BatchSpec> after =
                    drain(h, lastBefore).stream()
                            .filter(spec -> spec.seq > lastBefore)
                            .collect(Collectors.toList());
            Set<Long> trained = new HashSet<>();
            Set<Long> validated = new HashSet<>();
            for (BatchSpec spec : after) {
                for (long seed : spec.seeds) {
                    (spec.kind == MiniBatch.Kind.TRAIN ? trained : validated).add(seed);
                }
            }
            assertFalse(trained.contains(10L), "a deleted vertex is no seed");
            assertFalse(trained.contains(13L), "a vertex moved to val is no training seed");
            assertFalse(trained.isEmpty());
            assertTrue(validated.contains(13L), "the moved vertex is validated");
            assertFalse(validated.contains(21L), "a deleted vertex is not evaluated");
        }
    }

    /**
     * {@code --min-vertices} holds training until the graph is loaded, not afterwards: deletions
     * that shrink the graph below it leave training running.
     */
    @Test
    void deletionsBelowMinVerticesDoNotStopTraining() throws Exception {
        SchedulerConfig holding =
                new SchedulerConfig(new JobScale(4, 1, 1, 1), 2, 2, 0, 0, 1, 1, 7L, 9, 0);
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(holding))) {
            h.open();
            for (long id = 10; id < 19; id++) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
            }
            assertEquals(0, specs(h).size(), "no vertex counts yet: training waits");
            h.processElement1(new StreamRecord<>(GraphEvent.stats(0, 9, 0, 0)));
            assertEquals(1, specs(h).size(), "9 vertices: training starts");
            h.processElement1(new StreamRecord<>(GraphEvent.deleted(0, 10)));
            h.processElement1(new StreamRecord<>(GraphEvent.stats(0, 8, 0, 0)));
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            List<BatchSpec> issued = specs(h);
            assertEquals(2, issued.size(), "8 vertices after a deletion: training goes on");
            assertFalse(
                    java.util.Arrays.stream(issued.get(1).seeds).anyMatch(v -> v == 10),
                    "without the deleted vertex");
        }
    }

    @Test
    void interleavesShuffledEpochsWithEvaluationRounds() throws Exception {
        List<BatchSpec> all;
        try (var h = harness()) {
            h.open();
            announce(h);
            all = drain(h, -1);
        }
        // 5 training steps; rounds after steps 2, 4 and 5: 2 val chunks + 1 test chunk each.
        assertEquals(5 + 3 * 3, all.size());
        MiniBatch.Kind[] kinds = all.stream().map(s -> s.kind).toArray(MiniBatch.Kind[]::new);
        MiniBatch.Kind t = MiniBatch.Kind.TRAIN;
        MiniBatch.Kind v = MiniBatch.Kind.EVAL_VAL;
        MiniBatch.Kind x = MiniBatch.Kind.EVAL_TEST;
        assertArrayEquals(new MiniBatch.Kind[] {t, t, v, v, x, t, t, v, v, x, t, v, v, x}, kinds);
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i).seq);
        }
        assertTrue(all.get(all.size() - 1).finalRound);
        assertFalse(all.get(2).finalRound);
        // The first epoch (steps 1..3) visits each of the 5 training vertices exactly once.
        Set<Long> epoch = new HashSet<>();
        int seen = 0;
        for (BatchSpec s : all) {
            if (s.kind == MiniBatch.Kind.TRAIN && s.step <= 3) {
                for (long seed : s.seeds) {
                    epoch.add(seed);
                    seen++;
                }
            }
        }
        assertEquals(Set.of(10L, 11L, 12L, 13L, 14L), epoch);
        assertEquals(5, seen);
    }

    @Test
    void scheduleDoesNotDependOnArrivalOrderAndSurvivesRestore() throws Exception {
        List<BatchSpec> reference;
        try (var h = harness()) {
            h.open();
            announce(h);
            reference = drain(h, -1);
        }
        OperatorSubtaskState snapshot;
        List<BatchSpec> first;
        try (var h = harness()) {
            h.open();
            for (long id : new long[] {30, 23, 22, 21}) {
                h.processElement1(
                        new StreamRecord<>(
                                GraphEvent.seed(0, id, id == 30 ? Split.TEST : Split.VAL)));
            }
            for (long id = 14; id >= 10; id--) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
            }
            first = specs(h);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            assertEquals(
                    first.stream().map(b -> b.seq).toList(),
                    specs(h).stream().map(b -> b.seq).toList(),
                    "nothing was acknowledged: all issued again");
            h.getOutput().clear();
            List<BatchSpec> rest = drain(h, first.get(first.size() - 1).seq);
            List<BatchSpec> combined = new ArrayList<>(first);
            combined.addAll(rest);
            assertEquals(reference.size(), combined.size());
            for (int i = 0; i < reference.size(); i++) {
                assertEquals(reference.get(i).kind, combined.get(i).kind);
                assertArrayEquals(reference.get(i).seeds, combined.get(i).seeds, "spec " + i);
            }
        }
    }

    /**
     * A restored scheduler first issues again, as a new generation, every spec the trainer had not
     * acknowledged at the snapshot; then it goes on where it stood.
     */
    @Test
    void issuesTheUnacknowledgedSpecsAgainAfterARestore() throws Exception {
        OperatorSubtaskState snapshot;
        List<BatchSpec> before;
        try (var h = harness()) {
            h.open();
            announce(h);
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            before = specs(h);
            assertEquals(List.of(0L, 1L, 2L, 3L), before.stream().map(b -> b.seq).toList());
            assertTrue(before.stream().allMatch(b -> b.generation == 0));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            List<BatchSpec> again = specs(h);
            assertEquals(
                    List.of(1L, 2L, 3L),
                    again.stream().map(b -> b.seq).toList(),
                    "seq 0 was acknowledged");
            for (BatchSpec spec : again) {
                BatchSpec first = before.get((int) spec.seq);
                assertEquals(1, spec.generation);
                assertEquals(first.batchId, spec.batchId);
                assertArrayEquals(first.seeds, spec.seeds);
            }
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, 2)));
            List<BatchSpec> next = specs(h);
            assertEquals(List.of(4L, 5L), next.stream().map(b -> b.seq).toList());
            assertTrue(next.stream().allMatch(b -> b.generation == 1));
            snapshot = h.snapshot(2, 2);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            List<BatchSpec> again = specs(h);
            assertEquals(List.of(3L, 4L, 5L), again.stream().map(b -> b.seq).toList());
            assertTrue(again.stream().allMatch(b -> b.generation == 2));
        }
    }

    /**
     * A two-layer round: a pass of layer 1 over every vertex with attributes (train, val, test and
     * vertices without a split, ascending), then layer 2 over val, test and the rest, all to rank
     * 0.
     */
    @Test
    void roundsAreLayerWisePassesSpreadOverTheRanksEachAfterThePassBeforeIsStored()
            throws Exception {
        SchedulerConfig two =
                new SchedulerConfig(
                        new JobScale(4, 1, 2, 2), 1, 4, 1, 0, 8, 5, 7L, 0, 0, 2, 0, true);
        List<BatchSpec> round = new ArrayList<>();
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(two))) {
            h.open();
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 40, Split.NONE)));
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 41, Split.NONE)));
            announce(h);
            List<BatchSpec> first = specs(h);
            BatchSpec[] step =
                    first.stream()
                            .filter(s -> s.kind == MiniBatch.Kind.TRAIN)
                            .toArray(BatchSpec[]::new);
            assertEquals(2, step.length);
            assertArrayEquals(
                    new int[] {2, 2},
                    Arrays.stream(step).mapToInt(s -> s.roundShare).toArray(),
                    "each rank scores two of the last pass's four blocks");
            first.stream().filter(s -> s.kind != MiniBatch.Kind.TRAIN).forEach(round::add);
            // 11 vertices: layer 1 in 3 chunks of 4, to the ranks in turn; layer 2 waits for their
            // outputs.
            assertEquals(3, round.size());
            assertArrayEquals(
                    new int[] {0, 1, 0}, round.stream().mapToInt(s -> s.trainer).toArray());
            h.getOutput().clear();
            written(h, 1, 0, 0, 1);
            written(h, 1, 1, 0, 2);
            written(h, 1, 2, 0, 1);
            written(h, 1, 1, 0, 2);
            assertEquals(List.of(), specs(h), "block 1 has one of its two parts stored");
            written(h, 2, 1, 1, 2);
            assertEquals(
                    List.of(),
                    specs(h),
                    "an acknowledgement of another round's write counts for nothing");
            // A rank holds at most two blocks of a round: the ranks acknowledge theirs first.
            for (int r = 0; r < 2; r++) {
                int rank = r;
                long last =
                        first.stream()
                                .filter(x -> x.trainer == rank)
                                .mapToLong(x -> x.seq)
                                .max()
                                .orElseThrow();
                h.processElement2(new StreamRecord<>(new Credit(rank, last)));
            }
            assertEquals(List.of(), specs(h), "the last pass waits for block 1's second part");
            written(h, 1, 1, 1, 2);
            round.addAll(specs(h));
        }
        round.sort((a, b) -> Integer.compare(a.roundIndex, b.roundIndex));
        // layer 2: val (3) 1 chunk, test 1, the rest (7) 2.
        assertEquals(3 + 1 + 1 + 2, round.size());
        assertArrayEquals(
                new int[] {1, 1, 1, 2, 2, 2, 2}, round.stream().mapToInt(s -> s.layer).toArray());
        assertArrayEquals(
                new int[] {0, 1, 0, 0, 1, 0, 1}, round.stream().mapToInt(s -> s.trainer).toArray());
        assertArrayEquals(new long[] {10, 11, 12, 13}, round.get(0).seeds);
        assertArrayEquals(new long[] {30, 40, 41}, round.get(2).seeds);
        MiniBatch.Kind i = MiniBatch.Kind.INFER;
        assertArrayEquals(
                new MiniBatch.Kind[] {
                    i, i, i, MiniBatch.Kind.EVAL_VAL, MiniBatch.Kind.EVAL_TEST, i, i
                },
                round.stream().map(s -> s.kind).toArray(MiniBatch.Kind[]::new));
        assertArrayEquals(new long[] {10, 11, 12, 13}, round.get(5).seeds);
        assertArrayEquals(new long[] {14, 40, 41}, round.get(6).seeds);
        for (BatchSpec s : round) {
            assertEquals(7, s.roundSize);
            assertTrue(s.finalRound);
            assertEquals(s.layer == 2 ? 2 : 0, s.roundShare);
        }
    }

    /**
     * A restored scheduler issues again, with new sequence numbers, the blocks of the current pass
     * that their ranks acknowledged but whose outputs the GraphStore did not acknowledge storing
     * (they were on the feedback edge at the failure); blocks already stored are not computed
     * again.
     */
    @Test
    void aRestoreIssuesAgainTheBlocksWhoseOutputsWereNotStored() throws Exception {
        SchedulerConfig two =
                new SchedulerConfig(
                        new JobScale(4, 1, 2, 2), 1, 4, 1, 0, 8, 5, 7L, 0, 0, 2, 0, true);
        OperatorSubtaskState snapshot;
        long[] issued = new long[2];
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(two))) {
            h.open();
            announce(h);
            for (BatchSpec spec : specs(h)) {
                issued[spec.trainer] = Math.max(issued[spec.trainer], spec.seq);
            }
            h.processElement2(new StreamRecord<>(new Credit(0, issued[0])));
            h.processElement2(new StreamRecord<>(new Credit(1, issued[1])));
            written(h, 1, 0, 0, 1);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(two))) {
            h.initializeState(snapshot);
            h.open();
            List<BatchSpec> again = specs(h);
            assertEquals(
                    List.of(1, 2),
                    again.stream().map(s -> s.roundIndex).sorted().toList(),
                    "blocks 1 and 2");
            for (BatchSpec spec : again) {
                assertEquals(1, spec.layer);
                assertTrue(spec.seq > issued[spec.trainer], "a new sequence number: " + spec);
                assertEquals(spec.roundIndex % 2, spec.trainer);
            }
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, issued[0] + 1)));
            h.processElement2(new StreamRecord<>(new Credit(1, issued[1] + 1)));
            written(h, 1, 1, 0, 1);
            assertEquals(List.of(), specs(h));
            written(h, 1, 2, 0, 1);
            assertEquals(
                    4,
                    specs(h).stream().filter(s -> s.layer == 2).count(),
                    "the last pass follows");
        }
    }

    private static void written(
            TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h,
            long step,
            int block,
            int part,
            int parts)
            throws Exception {
        LayerOutputs o = new LayerOutputs();
        o.step = step;
        o.layer = 1;
        o.roundIndex = block;
        o.part = part;
        o.parts = parts;
        h.processElement1(new StreamRecord<>(GraphEvent.layerWritten(o)));
    }

    /**
     * Local batches: each step takes the same seeds as with equal slices, cut by the rank owning
     * them, and every training batch goes to the assembler subtask of its rank's index.
     */
    @Test
    void localBatchesCutEachStepByOwner() throws Exception {
        JobScale scale = new JobScale(4, 2, 2, 2);
        RankSites sites = new RankSites(new HashPartitioner(4), scale);
        SchedulerConfig equal = new SchedulerConfig(scale, 3, 4, 3, 0, 8, 5, 7L, 0, 0, 1, 0, false);
        SchedulerConfig local =
                new SchedulerConfig(scale, 3, 4, 3, 0, 8, 5, 7L, 0, 0, 1, 0, false)
                        .withLocalBatches(sites);
        List<BatchSpec> reference = trainSpecs(equal);
        List<BatchSpec> cut = trainSpecs(local);
        assertEquals(reference.size(), cut.size());
        for (long step = 1; step <= 3; step++) {
            long k = step;
            Set<Long> expected = new HashSet<>();
            reference.stream()
                    .filter(s -> s.step == k)
                    .forEach(s -> Arrays.stream(s.seeds).forEach(expected::add));
            Set<Long> got = new HashSet<>();
            for (BatchSpec s : cut.stream().filter(s -> s.step == k).toList()) {
                assertTrue(s.seeds.length > 0, "every rank gets a batch");
                Arrays.stream(s.seeds).forEach(got::add);
                assertEquals(
                        s.trainer,
                        KeyGroupRangeAssignment.assignKeyToParallelOperator(s.batchId, 4, 2),
                        "batch " + s.batchId + " of rank " + s.trainer);
                long own = Arrays.stream(s.seeds).filter(v -> sites.rankOf(v) == s.trainer).count();
                assertTrue(
                        own >= s.seeds.length - 1,
                        "at most one seed moved to a rank without own seeds: " + s);
            }
            assertEquals(expected, got, "step " + step + " trains on the same seeds");
        }
        assertEquals(
                cut.stream().map(s -> s.batchId).distinct().count(),
                cut.size(),
                "batch ids stay unique");
    }

    private static List<BatchSpec> trainSpecs(SchedulerConfig config) throws Exception {
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(config))) {
            h.open();
            for (long id = 10; id < 30; id++) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
            }
            return specs(h).stream().filter(s -> s.kind == MiniBatch.Kind.TRAIN).toList();
        }
    }

    /**
     * Credits ride a feedback edge, so a checkpoint can hold acknowledgements the rank's own
     * snapshot does not: a restored rank that reports less progress gets the batches in between
     * again (the last {@code prefetch} acknowledged are kept), as the same specs of the restore's
     * generation, before anything new.
     */
    @Test
    void issuesAgainWhatARestoredRankHadNotTrained() throws Exception {
        OperatorSubtaskState snapshot;
        List<BatchSpec> before;
        try (var h = harness()) {
            h.open();
            announce(h);
            for (long ack = 0; ack <= 4; ack++) {
                h.processElement2(new StreamRecord<>(new Credit(0, ack)));
            }
            before = specs(h);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            List<BatchSpec> unacked = specs(h);
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, 1)));
            List<BatchSpec> again = specs(h);
            assertEquals(
                    List.of(2L, 3L, 4L),
                    again.stream().map(b -> b.seq).toList(),
                    "seqs 2 to 4 were acknowledged, the rank restored after seq 1; then "
                            + unacked);
            for (BatchSpec spec : again) {
                BatchSpec first =
                        before.stream().filter(b -> b.seq == spec.seq).findFirst().orElseThrow();
                assertEquals(1, spec.generation);
                assertEquals(first.batchId, spec.batchId);
                assertArrayEquals(first.seeds, spec.seeds);
            }
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, 1)));
            assertTrue(specs(h).isEmpty(), "a repeated credit issues nothing more");
            h.processElement2(new StreamRecord<>(new Credit(0, 4)));
            assertTrue(specs(h).isEmpty(), "seqs 5 to 7 are issued already");
            h.processElement2(new StreamRecord<>(new Credit(0, 5)));
            assertEquals(List.of(8L), specs(h).stream().map(b -> b.seq).toList());
        }
    }

    /**
     * A rank that repeats its credit without progress past the stall limit gets its specs again.
     */
    @Test
    void reissuesTheSpecsOfARankThatStalls() throws Exception {
        try (var h =
                new TwoInputStreamOperatorTestHarness<>(
                        new SeedScheduler(CONFIG).withStallReissue(0))) {
            h.open();
            announce(h);
            List<BatchSpec> first = specs(h);
            assertEquals(3, first.size(), "prefetch 3");
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            assertEquals(1, specs(h).size(), "progress: one more spec, nothing again");
            h.getOutput().clear();
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            List<BatchSpec> again = specs(h);
            assertEquals(List.of(1L, 2L, 3L), again.stream().map(s -> s.seq).toList());
            assertTrue(again.stream().allMatch(s -> s.generation == 1), "a new generation");
        }
    }

    private static TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> harness()
            throws Exception {
        return new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(CONFIG));
    }

    private static void announce(TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h)
            throws Exception {
        for (long id : new long[] {21, 22, 23}) {
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.VAL)));
        }
        h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 30, Split.TEST)));
        for (long id = 10; id < 15; id++) {
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
        }
    }

    /**
     * Acknowledges batches one by one until everything issued is acknowledged; returns what was
     * issued.
     */
    private static List<BatchSpec> drain(
            TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h,
            long highestIssuedBefore)
            throws Exception {
        long highest = highestIssuedBefore;
        for (long ack = 0; ; ack++) {
            h.processElement2(new StreamRecord<>(new Credit(0, ack)));
            List<BatchSpec> issued = specs(h);
            if (!issued.isEmpty()) {
                highest = Math.max(highest, issued.get(issued.size() - 1).seq);
            }
            if (ack >= highest) {
                return issued;
            }
        }
    }

    private static List<BatchSpec> specs(
            TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h) {
        List<BatchSpec> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                out.add((BatchSpec) ((StreamRecord<?>) o).getValue());
            }
        }
        out.sort((a, b) -> Long.compare(a.seq, b.seq));
        return out;
    }
}
