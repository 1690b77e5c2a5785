package io.gnnstream.operators.assembly;

import static io.gnnstream.operators.assembly.AssemblerCoreTest.join;
import static io.gnnstream.operators.assembly.LoopGraph.TIMEOUT;
import static io.gnnstream.operators.assembly.LoopGraph.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * A part of an earlier attempt reaching the trainer while it joins the current one: dropped, unless
 * {@link PartialBatches#acceptingStaleParts()} re-introduces the race, when it corrupts the batch.
 *
 * <p>Attempt 0 of a batch sends the feature parts of its first two hops; the assembler is restored
 * before the last one, the graph changes, and the restored assembler samples the batch again as
 * attempt 1. At the trainer, a part of attempt 0 arrives after attempt 1's first part and before
 * the rest of attempt 1, among them the part of the same number.
 */
class StalePartsTest {

    private static final int[] FANOUTS = {2, 2};

    private final LoopGraph graph = new LoopGraph(40, 4, 2);

    @Test
    void aStalePartIsDropped() throws Exception {
        for (IntPredicate rows : List.<IntPredicate>of(row -> row < 4, row -> row >= 4)) {
            MiniBatch b = join(new PartialBatches(), arrivals(rows));
            graph.check(b, FANOUTS, 1);
        }
    }

    /** A stale part of seed rows: the batch completes with the seeds' features of the old graph. */
    @Test
    void aStalePartAcceptedCorruptsTheBatch() throws Exception {
        MiniBatch b = join(PartialBatches.acceptingStaleParts(), arrivals(row -> row < 4));
        AssertionError wrong = assertThrows(AssertionError.class, () -> graph.check(b, FANOUTS, 1));
        assertTrue(wrong.getMessage().endsWith("holds [5.0, 0.0, 0.0]"), wrong.getMessage());
    }

    /**
     * A stale part of rows of the first hop, which attempt 1 numbers otherwise: its rows are taken,
     * and a part of attempt 1 fills one of them again (the trainer fails).
     */
    @Test
    void aStalePartAcceptedTakesRowsOfTheCurrentAttempt() throws Exception {
        List<MiniBatchPart> arrivals = arrivals(row -> row >= 4);
        IllegalArgumentException twice =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> join(PartialBatches.acceptingStaleParts(), arrivals));
        assertTrue(twice.getMessage().endsWith(" again"), twice.getMessage());
    }

    /**
     * What reaches the trainer: attempt 1's first part, then a part of attempt 0 of another number
     * whose rows all pass {@code staleRows}, then the rest of attempt 1 with its head.
     */
    private List<MiniBatchPart> arrivals(IntPredicate staleRows) throws Exception {
        MemoryBatchState state = new MemoryBatchState();
        AssemblerOutput out = new AssemblerOutput();
        AssemblerCore core = state.core(graph.config(8), 0);
        core.onSpec(spec(7, 3, 5, 12, 30), 0, out);
        List<MiniBatchPart> attempt0 = new ArrayList<>();
        Deque<SampleRequest> queue = new ArrayDeque<>();
        do {
            out.bundles().forEach(bundle -> queue.addAll(List.of(bundle)));
            out.clear();
            SampleRequest r = queue.poll();
            if (r.hop <= 2) {
                if (graph.part(r) != null) {
                    attempt0.add(graph.part(r));
                }
                core.onResponse(graph.answer(r), 0, out);
            }
        } while (!queue.isEmpty() || !out.bundles().isEmpty());
        assertTrue(out.heads().isEmpty() && core.building(7), "the last hop was not answered");

        graph.version = 1;
        AssemblerCore restored = state.copy().core(graph.config(8), 0);
        out.clear();
        restored.onTimer(7, TIMEOUT, out);
        List<MiniBatchPart> attempt1 = graph.serve(restored, out, TIMEOUT);
        graph.version = 0;
        assertEquals(1, attempt1.get(attempt1.size() - 1).attempt);

        MiniBatchPart first = attempt1.get(0);
        MiniBatchPart stale =
                attempt0.stream()
                        .filter(p -> p.part != first.part && p.rows.length > 0)
                        .filter(p -> Arrays.stream(p.rows).allMatch(staleRows::test))
                        .findFirst()
                        .orElseThrow();
        assertNotEquals(first.attempt, stale.attempt);
        assertTrue(
                attempt1.stream().anyMatch(p -> !p.isHead() && p.part == stale.part),
                "attempt 1 has a part of the stale one's number");
        List<MiniBatchPart> arrivals = new ArrayList<>(attempt1);
        arrivals.add(1, stale);
        return arrivals;
    }
}
