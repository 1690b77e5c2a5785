package io.gnnstream.operators.assembly;

import static io.gnnstream.operators.assembly.LoopGraph.DIM;
import static io.gnnstream.operators.assembly.LoopGraph.TIMEOUT;
import static io.gnnstream.operators.assembly.LoopGraph.spec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The assembler role without Flink: a spec in, requests out, the GraphStore's answers in, and the
 * head plus the feature parts joined into the whole batch at the trainer; timeouts, restores and
 * re-issued specs.
 */
class AssemblerCoreTest {

    private static final int[] FANOUTS = {2, 2};

    private final LoopGraph graph = new LoopGraph(40, 4, 2);
    private final MemoryBatchState state = new MemoryBatchState();
    private final AssemblerOutput out = new AssemblerOutput();

    @Test
    void aSpecBecomesRequestsAndTheirAnswersTheWholeBatchAtTheTrainer() throws Exception {
        AssemblerCore core = state.core(graph.config(8), 0);
        core.onSpec(spec(7, 3, 5, 12, 30, 8, 21, 33, 38), 0, out);
        assertEquals(List.of(new AssemblerOutput.Timer(7, TIMEOUT)), out.timers());
        assertTrue(core.building(7));
        assertEquals(state.specs.keySet(), Set.of(7L), "the spec is keyed state");
        assertTrue(core.outstandingVertices() <= 8, "within the window");
        assertTrue(core.queued() > 0, "the rest waits for room");
        for (SampleRequest[] bundle : out.bundles()) {
            Set<Integer> routes = new HashSet<>();
            for (SampleRequest r : bundle) {
                routes.add(r.route);
                assertEquals(1, r.hop);
                assertEquals(0, r.attempt);
                for (long v : r.sampleVertices) {
                    assertEquals(r.route, graph.config(8).routeOf(graph.partitioner.partition(v)));
                }
            }
            assertEquals(1, routes.size(), "a bundle goes to one GraphStore subtask");
        }

        List<MiniBatchPart> toTrainer = graph.serve(core, out, 1);
        MiniBatchPart head = toTrainer.get(toTrainer.size() - 1);
        assertTrue(head.isHead(), "the head comes last");
        assertEquals(0, head.attempt);
        assertEquals(toTrainer.size() - 1, head.numParts, "one part per feature request");
        assertTrue(head.head.loopRequests >= head.numParts);
        assertEquals(0, core.inProgress());
        assertTrue(state.isEmpty(), "a finished batch leaves no keyed state");

        MiniBatch b = join(new PartialBatches(), toTrainer);
        assertArrayEquals(new long[] {3, 5, 12, 30, 8, 21, 33, 38}, Arrays.copyOf(b.nodeIds, 8));
        graph.check(b, FANOUTS, 0);
    }

    @Test
    void aStalledBatchSendsItsPendingRequestsAgain() throws Exception {
        AssemblerCore core = state.core(graph.config(1 << 10), 0);
        core.onSpec(spec(7, 3, 5), 0, out);
        List<SampleRequest> first = requests();
        out.clear();
        core.onTimer(7, TIMEOUT - 1, out);
        assertEquals(0, out.retries());
        assertTrue(out.bundles().isEmpty(), "not stalled yet");
        assertEquals(List.of(new AssemblerOutput.Timer(7, 2 * TIMEOUT - 1)), out.timers());
        out.clear();
        core.onTimer(7, TIMEOUT, out);
        assertEquals(1, out.retries());
        List<SampleRequest> again = requests();
        assertEquals(first.size(), again.size(), "the lost requests are sent again");
        for (int i = 0; i < first.size(); i++) {
            assertEquals(first.get(i).route, again.get(i).route);
            assertEquals(first.get(i).part, again.get(i).part);
        }
        List<MiniBatchPart> toTrainer = graph.serve(core, out, TIMEOUT);
        graph.check(join(new PartialBatches(), toTrainer), FANOUTS, 0);
        out.clear();
        core.onTimer(7, 2 * TIMEOUT, out);
        assertTrue(out.timers().isEmpty(), "a finished batch's timer ends");
    }

    /**
     * A restore keeps the spec and loses the partial batch: the timer samples it again from hop 1
     * as a new attempt, and a spec issued again in a newer generation does so at once.
     */
    @Test
    void aRestoredBatchIsSampledAgainAsANewAttempt() throws Exception {
        AssemblerCore core = state.core(graph.config(1 << 10), 0);
        core.onSpec(spec(7, 3, 5), 0, out);
        core.onSpec(spec(8, 4, 6), 0, out);
        out.clear();

        MemoryBatchState snapshot = state.copy();
        AssemblerCore restored = snapshot.core(graph.config(1 << 10), 0);
        assertEquals(0, restored.inProgress(), "no partial batches after a restore");
        restored.onTimer(7, TIMEOUT, out);
        assertEquals(1, out.retries());
        for (SampleRequest r : requests()) {
            assertEquals(1, r.hop, "from the first hop");
            assertEquals(1, r.attempt, "as the next attempt");
        }
        List<MiniBatchPart> toTrainer = graph.serve(restored, out, TIMEOUT);
        assertEquals(1, toTrainer.get(toTrainer.size() - 1).attempt);
        graph.check(join(new PartialBatches(), toTrainer), FANOUTS, 0);

        BatchSpec reissued = spec(8, 4, 6);
        reissued.generation = 1;
        restored.onSpec(reissued, TIMEOUT, out);
        assertEquals(1, out.retries(), "sampled again before its timer fires");
        List<SampleRequest> again = requests();
        assertTrue(again.stream().allMatch(r -> r.attempt > 1 << 16), "above generation 0's");
        out.clear();
        restored.onSpec(reissued, TIMEOUT, out);
        assertTrue(out.bundles().isEmpty() && out.retries() == 0, "the same generation: ignored");
    }

    @Test
    void aBatchWithoutSeedsIsFinishedAtOnce() throws Exception {
        AssemblerCore core = state.core(graph.config(8), 1);
        core.onSpec(spec(7), 0, out);
        assertEquals(1, out.heads().size());
        assertEquals(0, out.heads().get(0).numParts);
        assertTrue(state.isEmpty());
        assertNotNull(new PartialBatches().accept(out.heads().get(0), cache()));
    }

    /** The requests of the bundles in the output. */
    private List<SampleRequest> requests() {
        List<SampleRequest> all = new ArrayList<>();
        out.bundles().forEach(b -> all.addAll(List.of(b)));
        return all;
    }

    /** The trainer's join of {@code parts} in order: the batch they complete. */
    static MiniBatch join(PartialBatches partials, List<MiniBatchPart> parts) {
        TrainerFeatureCache cache = cache();
        MiniBatch whole = null;
        for (MiniBatchPart p : parts) {
            MiniBatch b = partials.accept(p, cache);
            whole = b != null ? b : whole;
        }
        assertNotNull(whole, "the batch never completed");
        return whole;
    }

    static TrainerFeatureCache cache() {
        return new TrainerFeatureCache(0, DIM);
    }
}
