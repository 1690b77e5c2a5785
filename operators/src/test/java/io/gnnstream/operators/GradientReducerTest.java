package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.schedule.MixedDevicesException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gradient reducer through Flink's harness: rank-order sums, duplicates, staleness, restore.
 */
@Timeout(60)
class GradientReducerTest {

    private static final int RANKS = 3;
    private static final int MAX_PARALLELISM = 128;

    /** Values whose float sum depends on the order of addition: 1e8 + 1 == 1e8 in float. */
    private static final float[][] VALUES = {
        {1e8f, 1f, 0.1f, -3.5f},
        {1f, 1e8f, 0.2f, 1e-7f},
        {-1e8f, -1e8f, 0.3f, 7f},
    };

    private static final int[] SEEDS = {4, 5, 6};

    @Test
    void sumsInRankOrderBitExactlyWhateverTheArrivalOrder() throws Exception {
        float[] expected = VALUES[0].clone();
        for (int r = 1; r < RANKS; r++) {
            for (int i = 0; i < expected.length; i++) {
                expected[i] += VALUES[r][i];
            }
        }
        int[][] orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        float[] arrivalOrderSum = new float[expected.length];
        for (int r : orders[4]) {
            for (int i = 0; i < expected.length; i++) {
                arrivalOrderSum[i] += VALUES[r][i];
            }
        }
        assertNotEquals(
                bits(expected), bits(arrivalOrderSum), "the values must make the order matter");
        for (int[] order : orders) {
            try (Rig rig = new Rig(4, 2, 4)) {
                for (int r : order) {
                    rig.send(contribution(7, r, 2));
                }
                List<ReducedChunk> out = rig.sums();
                assertEquals(1, out.size());
                ReducedChunk sum = out.get(0);
                assertEquals(7, sum.step);
                assertEquals(2, sum.chunk);
                assertEquals(4, sum.numChunks);
                assertEquals(4 + 5 + 6, sum.seeds);
                assertEquals(
                        bits(expected),
                        bits(sum.values),
                        "arrival order " + List.of(order[0], order[1], order[2]));
                assertEquals(
                        0, rig.op.heldContributions(), "contributions are discarded once summed");
            }
        }
    }

    /**
     * A step's sums leave together once every chunk of the subtask's share (here chunks 0 and 2 of
     * 4, at subtask 0 of 2) has all ranks' contributions, in chunk order.
     */
    @Test
    void emitsAStepsSumsOnceItsWholeShareIsSummed() throws Exception {
        try (Rig rig = new Rig(2, 0, 4)) {
            for (int r = 0; r < RANKS - 1; r++) {
                rig.send(contribution(1, r, 0));
                rig.send(contribution(1, r, 2));
                rig.send(contribution(2, r, 0));
            }
            assertTrue(rig.sums().isEmpty(), "no sum before every rank contributed");
            rig.send(contribution(1, 2, 2));
            assertTrue(rig.sums().isEmpty(), "chunk 2 is summed, chunk 0 of the share is not");
            assertEquals(List.of(1L), rig.op.completedSteps(2));
            rig.send(contribution(1, 2, 0));
            assertEquals(
                    List.of("1/0", "1/2"),
                    rig.sums().stream().map(s -> s.step + "/" + s.chunk).toList());
            rig.h.getOutput().clear();
            rig.send(contribution(2, 2, 0));
            assertTrue(rig.sums().isEmpty(), "step 2's chunk 2 is still open");
            complete(rig, 2, 2);
            assertEquals(
                    List.of("2/0", "2/2"),
                    rig.sums().stream().map(s -> s.step + "/" + s.chunk).toList());
            assertEquals(List.of(1L, 2L), rig.op.completedSteps(0));
        }
    }

    @Test
    void dropsDuplicateContributionsAndResendsACompletedSum() throws Exception {
        try (Rig rig = new Rig(4, 1, 4)) {
            rig.send(contribution(3, 0, 1));
            GradientChunk again = contribution(3, 0, 1);
            again.values = new float[] {9f, 9f, 9f, 9f};
            rig.send(again);
            assertEquals(1, rig.op.duplicateContributions());
            assertEquals(1, rig.op.heldContributions());
            rig.send(contribution(3, 1, 1));
            rig.send(contribution(3, 2, 1));
            ReducedChunk first = rig.sums().get(0);
            assertEquals(
                    rankOrderBits(),
                    bits(first.values),
                    "the first copy of rank 0's values counts");
            rig.h.getOutput().clear();

            rig.send(contribution(3, 1, 1));
            List<ReducedChunk> out = rig.sums();
            assertEquals(1, out.size(), "a duplicate of a completed contribution re-sends the sum");
            assertEquals(bits(first.values), bits(out.get(0).values));
            assertEquals(first.seeds, out.get(0).seeds);
            assertEquals(first.step, out.get(0).step);
            assertEquals(1, rig.op.resentSums());
            assertEquals(0, rig.op.heldContributions());
        }
    }

    @Test
    void dropsStaleContributionsAndKeepsRetainedStepsSums() throws Exception {
        try (Rig rig = new Rig(4, 0, 2)) {
            rig.send(contribution(0, 0, 0));
            for (long step = 1; step <= 3; step++) {
                complete(rig, step, 0);
            }
            assertEquals(
                    List.of(2L, 3L),
                    rig.op.completedSteps(0),
                    "at most retainedSteps sums per chunk");
            assertEquals(
                    0, rig.op.heldContributions(), "the held step-0 contribution became stale");
            assertEquals(1, rig.op.staleContributions());
            rig.h.getOutput().clear();

            rig.send(contribution(1, 1, 0));
            assertTrue(rig.sums().isEmpty(), "step 1 is retainedSteps behind step 3");
            assertEquals(2, rig.op.staleContributions());
            assertEquals(0, rig.op.heldContributions());

            rig.send(contribution(2, 1, 0));
            assertEquals(1, rig.sums().size(), "step 2 is still retained");
            rig.send(contribution(1, 1, 1));
            assertEquals(1, rig.op.heldContributions(), "staleness is per chunk");
        }
    }

    @Test
    void restoresHeldContributionsAndSumsAtAnyParallelism() throws Exception {
        assertInstanceOf(PojoTypeInfo.class, TypeInformation.of(GradientReducer.Entry.class));
        OperatorSubtaskState snapshot;
        List<ReducedChunk> firstSums;
        try (Rig rig = new Rig(1, 0, 4)) {
            for (int chunk = 0; chunk < 4; chunk++) {
                complete(rig, 1, chunk);
                rig.send(contribution(2, 0, chunk));
                rig.send(contribution(2, 1, chunk));
            }
            firstSums = rig.sums();
            snapshot = rig.h.snapshot(0, 0);
        }
        try (Rig rig =
                new Rig(1, 0, 4, AbstractStreamOperatorTestHarness.repackageState(snapshot))) {
            assertEquals(8, rig.op.heldContributions());
            rig.send(contribution(1, 1, 2));
            assertEquals(1, rig.op.resentSums());
            assertEquals(bits(firstSums.get(2).values), bits(rig.sums().get(0).values));
            rig.h.getOutput().clear();
            for (int chunk = 0; chunk < 3; chunk++) {
                rig.send(contribution(2, 2, chunk));
            }
            assertTrue(rig.sums().isEmpty(), "step 2's chunk 3 is still open");
            rig.send(contribution(2, 2, 3));
            assertEquals(4, rig.sums().size(), "the whole step at once");
            ReducedChunk sum = rig.sums().get(3);
            assertEquals(2, sum.step);
            assertEquals(3, sum.chunk);
            assertEquals(rankOrderBits(), bits(sum.values));
        }

        OperatorSubtaskState[] halves = new OperatorSubtaskState[2];
        for (int index = 0; index < 2; index++) {
            OperatorSubtaskState part =
                    AbstractStreamOperatorTestHarness.repartitionOperatorState(
                            snapshot, MAX_PARALLELISM, 1, 2, index);
            try (Rig rig = new Rig(2, index, 4, part)) {
                assertEquals(
                        4, rig.op.heldContributions(), "2 chunks x 2 ranks at subtask " + index);
                for (int chunk = 0; chunk < 4; chunk++) {
                    boolean mine = chunk % 2 == index;
                    assertEquals(
                            mine ? List.of(1L) : List.of(),
                            rig.op.completedSteps(chunk),
                            "chunk " + chunk);
                }
                rig.send(contribution(2, 2, index));
                assertEquals(List.of(1L, 2L), rig.op.completedSteps(index));
                assertTrue(
                        rig.sums().isEmpty(),
                        "chunk " + (index + 2) + " of the share is still open");
                rig.send(contribution(1, 0, index + 2));
                assertEquals(1, rig.sums().size(), "step 1, complete when restored, is sent again");
                assertEquals(rankOrderBits(), bits(rig.sums().get(0).values));
                halves[index] = rig.h.snapshot(1, 1);
            }
        }
        OperatorSubtaskState both = AbstractStreamOperatorTestHarness.repackageState(halves);
        try (Rig rig =
                new Rig(
                        1,
                        0,
                        4,
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                both, MAX_PARALLELISM, 2, 1, 0))) {
            assertEquals(4, rig.op.heldContributions(), "chunks 2 and 3 still wait on rank 2");
            for (int chunk = 0; chunk < 4; chunk++) {
                assertEquals(
                        chunk < 2 ? List.of(1L, 2L) : List.of(1L), rig.op.completedSteps(chunk));
            }
        }
    }

    /**
     * A contribution of a rank beyond the reducer's count (a rank of the layout before a restore at
     * fewer ranks) is dropped and counted; a negative rank or a length that disagrees is an error.
     */
    @Test
    void dropsRanksBeyondItsCountAndRejectsInvalidOnes() throws Exception {
        try (Rig rig = new Rig(1, 0, 4)) {
            rig.send(contribution(1, 3, 0));
            assertEquals(1, rig.op.foreignContributions());
            assertEquals(0, rig.op.heldContributions());
            assertThrows(IllegalStateException.class, () -> rig.send(contribution(1, -1, 0)));
            rig.send(contribution(1, 0, 0));
            GradientChunk shorter = contribution(1, 1, 0);
            shorter.values = new float[] {1f};
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> rig.send(shorter));
            assertTrue(e.getMessage().contains("1 values"), e.getMessage());
        }
        assertThrows(
                IllegalArgumentException.class, () -> new GradientReducer(JobScale.ranks(0), 1));
    }

    /**
     * Contributions to one sum from ranks of different device kinds fail the job without restarts,
     * naming the ranks (in rank order) and their kinds, whatever the arrival order.
     */
    @Test
    void refusesRanksOfDifferentDeviceKinds() throws Exception {
        String gpu = "cuda NVIDIA H200 sm_90 cuBLAS 130101";
        String expected =
                "trainer ranks run on different kinds of device: rank 0 on cpu, rank 2 on "
                        + gpu
                        + "; replicas of different kinds round differently and cannot stay"
                        + " bit-identical: give every rank the same --device and GPU model";
        for (int[] order : new int[][] {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}) {
            try (Rig rig = new Rig(1, 0, 4)) {
                String[] kinds = {"cpu", null, gpu};
                SuppressRestartsException e =
                        assertThrows(
                                SuppressRestartsException.class,
                                () -> {
                                    for (int r : order) {
                                        rig.send(contribution(1, r, 0, kinds[r]));
                                    }
                                });
                assertInstanceOf(MixedDevicesException.class, e.getCause());
                assertEquals(expected, e.getCause().getMessage());
                assertTrue(rig.sums().isEmpty());
            }
        }
    }

    /** Equal kinds are summed as always; an unknown (null) kind is never compared. */
    @Test
    void sumsRanksOfOneKindAndOfUnknownKinds() throws Exception {
        String gpu = "cuda NVIDIA H200 sm_90 cuBLAS 130101";
        String[][] cases = {
            {"cpu", "cpu", "cpu"},
            {gpu, gpu, gpu},
            {null, gpu, gpu},
            {gpu, null, null},
            {null, null, null}
        };
        for (String[] kinds : cases) {
            try (Rig rig = new Rig(1, 0, 4)) {
                for (int chunk = 0; chunk < 4; chunk++) {
                    for (int r = 0; r < RANKS; r++) {
                        rig.send(contribution(1, r, chunk, kinds[r]));
                    }
                }
                assertEquals(4, rig.sums().size(), java.util.Arrays.toString(kinds));
                assertEquals(rankOrderBits(), bits(rig.sums().get(0).values));
            }
        }
    }

    /**
     * Held contributions restore without a kind (the checkpointed entries carry none): a restored
     * rank's contribution of a known kind is summed with them.
     */
    @Test
    void restoredContributionsHaveNoKind() throws Exception {
        OperatorSubtaskState snapshot;
        try (Rig rig = new Rig(1, 0, 4)) {
            for (int chunk = 0; chunk < 4; chunk++) {
                rig.send(contribution(1, 0, chunk, "cpu"));
                rig.send(contribution(1, 1, chunk, "cpu"));
            }
            snapshot = rig.h.snapshot(0, 0);
        }
        try (Rig rig = new Rig(1, 0, 4, snapshot)) {
            for (int chunk = 0; chunk < 4; chunk++) {
                rig.send(contribution(1, 2, chunk, "cuda NVIDIA H200 sm_90 cuBLAS 130101"));
            }
            assertEquals(
                    4, rig.sums().size(), "the unknown kinds of rank 0 and 1 are not compared");
        }
    }

    private static GradientChunk contribution(long step, int rank, int chunk, String device) {
        GradientChunk g = contribution(step, rank, chunk);
        g.device = device;
        return g;
    }

    private static void complete(Rig rig, long step, int chunk) throws Exception {
        for (int r = 0; r < RANKS; r++) {
            rig.send(contribution(step, r, chunk));
        }
    }

    private static GradientChunk contribution(long step, int rank, int chunk) {
        int r = Math.floorMod(rank, RANKS);
        return new GradientChunk(step, rank, chunk, 4, SEEDS[r], VALUES[r].clone());
    }

    private static List<Integer> rankOrderBits() {
        float[] sum = VALUES[0].clone();
        for (int r = 1; r < RANKS; r++) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += VALUES[r][i];
            }
        }
        return bits(sum);
    }

    private static List<Integer> bits(float[] values) {
        List<Integer> out = new ArrayList<>();
        for (float v : values) {
            out.add(Float.floatToRawIntBits(v));
        }
        return out;
    }

    /** A reducer of {@link #RANKS} ranks in a harness at the given parallelism and subtask. */
    private static final class Rig implements AutoCloseable {
        final GradientReducer op;
        final OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> h;

        /**
         * Opens a fresh reducer, or restores {@code state} (already repartitioned) when not null.
         */
        Rig(int parallelism, int index, int retainedSteps, OperatorSubtaskState state)
                throws Exception {
            op = new GradientReducer(JobScale.ranks(RANKS), retainedSteps);
            h = new OneInputStreamOperatorTestHarness<>(op, MAX_PARALLELISM, parallelism, index);
            h.getExecutionConfig().getSerializerConfig().setGenericTypes(false);
            if (state != null) {
                h.initializeState(state);
            }
            h.open();
        }

        Rig(int parallelism, int index, int retainedSteps) throws Exception {
            this(parallelism, index, retainedSteps, null);
        }

        void send(GradientChunk g) throws Exception {
            h.processElement(new StreamRecord<>(g));
        }

        List<ReducedChunk> sums() {
            List<ReducedChunk> out = new ArrayList<>();
            for (Object o : h.getOutput()) {
                if (o instanceof StreamRecord) {
                    out.add((ReducedChunk) ((StreamRecord<?>) o).getValue());
                }
            }
            return out;
        }

        @Override
        public void close() throws Exception {
            h.close();
        }
    }
}
