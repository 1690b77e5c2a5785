package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Incremental predictions on the GraphStore core against a full round: after a round is stored and
 * pinned, a burst of changes of every kind (edges added and removed, node records of known and new
 * vertices, deletions) is applied with recomputation interleaved at random, across a restore from a
 * snapshot taken mid-burst; the predictions topic as it then reads (the round's predictions
 * overlaid by the incremental ones, deleted vertices gone) equals layer-wise inference with the
 * same model on the final graph, for every vertex.
 */
class IncrementalPredictionsTest {

    private static final int PARTITIONS = 8;
    private static final int F = 8;
    private static final int CLASSES = 4;
    private static final long STEP = 7;

    /** Readers a change reaches at once in the core; fewer make hubs of most vertices. */
    private int fanOutPiece = IncrementalPredictions.BLOCK_VERTICES;

    /** The most fan-outs on their way at once, and those at the restore. */
    private int fanOutsSeen;

    private int restoredFanOuts;

    /** The GraphStore's processing time (ms). */
    private long now;

    /** The step of the latest round {@link #round} ran. */
    private long step = STEP;

    /** Small enough that hubs sample: the graph's in-degrees are 5 on average. */
    private static final int FANOUT = 6;

    private final VertexPartitioner partitioner = new HashPartitioner(PARTITIONS);
    private MemoryStateStore state = new MemoryStateStore();
    private final StoreOutputs out = new StoreOutputs();
    private GraphStoreConfig config;

    /** The graph as the stream says: in-neighbours, features, presence. */
    private final Map<Long, Set<Long>> in = new HashMap<>();

    private final Map<Long, float[]> features = new HashMap<>();

    /** The predictions topic: vertex -> probabilities. */
    private final Map<Long, float[]> topic = new HashMap<>();

    @ParameterizedTest
    @CsvSource({
        "SAGE, 2, 11, 512, 0",
        "GCN, 2, 12, 512, 0",
        "SAGE, 3, 13, 512, 0",
        "GCN, 3, 14, 512, 0",
        "SAGE, 2, 15, 2, 0",
        "GCN, 3, 16, 2, 0",
        "SAGE, 2, 17, 512, 25",
        "GCN, 3, 16, 2, 25"
    })
    @Timeout(120)
    void aBurstOfChangesEndsWhereAFullRoundWould(
            ModelType type, int layers, long seed, int fanOutPiece, long coalesceMs)
            throws Exception {
        ModelConfig model =
                ModelConfig.builder()
                        .modelType(type)
                        .inFeatures(F)
                        .hidden(16)
                        .numClasses(CLASSES)
                        .numLayers(layers)
                        .seed(seed)
                        .build();
        int[] roots = new int[layers - 1];
        for (int j = 0; j < roots.length; j++) {
            roots[j] = model.roundRootWidth(j + 1, false);
        }
        config =
                new GraphStoreConfig(seed, F, 250, 1 << 20, 1 << 20, 64, 0)
                        .withLayerRowCache(1 << 20)
                        .withLayerRootWidths(roots)
                        .withIncremental(model, false, FANOUT)
                        .withIncrementalCoalesce(coalesceMs);
        Random r = new Random(seed);
        this.fanOutPiece = fanOutPiece;
        GraphStore store = start(false);
        int n = 200;
        long time = graph(store, n, r);
        GnnModel pinned = GnnModel.create(model);
        round(store, pinned, model);

        long next = n;
        List<Long> present = new ArrayList<>(features.keySet());
        for (int c = 0; c < 400; c++) {
            double kind = r.nextDouble();
            if (kind < 0.45) {
                edge(store, pick(present, r), pick(present, r), false, time++);
            } else if (kind < 0.9) {
                long dst = pick(present, r);
                Set<Long> nbrs = in.get(dst);
                long src = nbrs.isEmpty() ? pick(present, r) : pick(new ArrayList<>(nbrs), r);
                edge(store, src, dst, true, time++);
            } else if (kind < 0.99) {
                long v = r.nextDouble() < 0.3 ? next++ : pick(present, r);
                node(store, v, r, time++);
                if (!present.contains(v)) {
                    present.add(v);
                }
            } else {
                long v = pick(present, r);
                delete(store, v, time++);
                present.remove(v);
            }
            fanOutsSeen = Math.max(fanOutsSeen, store.incremental().fanOutsPending());
            now++;
            if (r.nextInt(10) == 0) {
                // A budget of 0 takes one block per call whatever the machine's speed, so that
                // work is still on its way at the restore.
                r.nextInt(3);
                store.predictIncrementally(0, out);
                collect();
            }
            if (c == 100) {
                store.snapshot(); // a checkpoint the restore does not come from
            }
            if (c == 200) {
                restoredFanOuts = store.incremental().fanOutsPending();
                store = restore(store);
            }
        }
        drain(store);
        assertEquals(0, store.incremental().pendingVertices());
        assertEquals(0, store.incremental().fanOutsPending());
        if (fanOutPiece < IncrementalPredictions.BLOCK_VERTICES) {
            assertTrue(fanOutsSeen > 1, "changes fanned out in pieces: " + fanOutsSeen);
            assertTrue(restoredFanOuts > 0, "fan-outs on their way at the restore");
        }
        assertTrue(
                store.incremental().counters().summedByDifference()
                        > store.incremental().counters().hubDifferences(),
                "edge changes below the fanout take differences");
        assertTrue(
                store.incremental().counters().hubDifferences() > 0,
                "edge changes of hubs above the fanout take differences");
        assertTrue(
                store.incremental().counters().hubSelectionsCached() > 0,
                "hubs' edge changes find their selections cached");
        compare(pinned, model);
    }

    @Test
    @Timeout(120)
    void aBurstAboveTheMarksBudgetWaitsForTheNextRound() throws Exception {
        ModelConfig model = twoLayerSage(5);
        config = config.withIncrementalMaxMarks(60);
        Random r = new Random(5);
        GraphStore store = start(false);
        int n = 200;
        long time = graph(store, n, r);
        GnnModel pinned = GnnModel.create(model);
        round(store, pinned, model);
        for (int c = 0; c < 60; c++) {
            node(store, r.nextInt(n), r, time++);
            edge(store, r.nextInt(n), r.nextInt(n), c % 2 == 0, time++);
        }
        assertEquals(
                1,
                store.incremental().counters().suspensions(),
                "a burst above the budget suspends");
        assertEquals(0, store.incremental().pendingVertices(), "its marks go");
        for (int c = 0; c < 20; c++) {
            node(store, r.nextInt(n), r, time++);
        }
        assertEquals(0, store.incremental().pendingVertices(), "nothing marked while suspended");
        step = STEP + 1;
        round(store, pinned, model);
        for (int c = 0; c < 2; c++) {
            edge(store, r.nextInt(n), r.nextInt(n), false, time++);
        }
        store.flushEdges();
        assertTrue(store.incremental().pendingVertices() > 0, "the next round marks again");
        drain(store);
        assertEquals(1, store.incremental().counters().suspensions());
        compare(pinned, model);
    }

    /**
     * The prediction timer writes a few buffered edges at once and leaves more to fill the buffer
     * until the oldest has waited {@link GraphStore#MAX_BUFFER_WAIT_MS}; the predictions then end
     * where a full round would.
     */
    @Test
    @Timeout(120)
    void theTimerLeavesManyBufferedEdgesToFillTheBuffer() throws Exception {
        ModelConfig model = twoLayerSage(23, 1 << 16);
        Random r = new Random(23);
        GraphStore store = start(false);
        long time = graph(store, 1000, r);
        GnnModel pinned = GnnModel.create(model);
        round(store, pinned, model);
        edge(store, 1, 2, false, time++);
        store.predictIncrementally(0, out);
        assertTrue(store.incremental().pendingVertices() > 0, "a few edges are written at once");
        drain(store);
        for (int e = 0; e <= GraphStore.PROMPT_FLUSH_EDGES; e++) {
            edge(store, r.nextInt(1000), r.nextInt(1000), false, time++);
        }
        store.predictIncrementally(0, out);
        assertEquals(0, store.incremental().pendingVertices(), "many wait for the buffer to fill");
        now += GraphStore.MAX_BUFFER_WAIT_MS;
        store.predictIncrementally(0, out);
        assertTrue(store.incremental().pendingVertices() > 0, "until the oldest waited enough");
        drain(store);
        compare(pinned, model);
    }

    /**
     * The input gets as long as a slice took while the marks are fresh, a quarter of that once a
     * vertex has waited more than {@link IncrementalPredictions#BEHIND_MS}, and at most twice what
     * it took of the last gap once a vertex has waited more than {@link
     * IncrementalPredictions#WAITING_MS} and the input ran dry in that gap.
     */
    @Test
    @Timeout(120)
    void theRecomputationTakesMoreOfTheThreadWhileBehind() throws Exception {
        ModelConfig model = twoLayerSage(19);
        Random r = new Random(19);
        GraphStore store = start(false);
        long time = graph(store, 100, r);
        round(store, GnnModel.create(model), model);
        IncrementalPredictions engine = store.incremental();
        long ms = 1_000_000;
        long busy = 8 * ms;
        long dry = 3 * ms;
        assertEquals(8, engine.sliceGapMs(8, 8 * ms, dry), "nothing waits");
        node(store, 3, r, time);
        store.flushEdges();
        assertTrue(engine.pendingVertices() > 0);
        assertEquals(8, engine.sliceGapMs(8, 8 * ms, dry), "fresh marks");
        now += IncrementalPredictions.WAITING_MS + 1;
        assertEquals(8, engine.sliceGapMs(8, 8 * ms, busy), "waiting, the input busy");
        assertEquals(8, engine.sliceGapMs(8, 8 * ms, 6 * ms), "waiting, the input busy 3/4");
        assertEquals(6, engine.sliceGapMs(8, 8 * ms, dry), "waiting, the input ran dry");
        assertEquals(1, engine.sliceGapMs(8, 8 * ms, 0), "waiting, no input");
        now = IncrementalPredictions.BEHIND_MS + now - IncrementalPredictions.WAITING_MS - 1;
        assertEquals(8, engine.sliceGapMs(8, 2 * ms, busy), "waiting, not yet behind");
        assertEquals(1, engine.sliceGapMs(0, 2 * ms, busy), "at least 1 ms");
        now++;
        assertEquals(2, engine.sliceGapMs(8, 2 * ms, busy), "behind");
        assertEquals(1, engine.sliceGapMs(8, 8 * ms, 0), "behind, no input");
        drain(store);
        assertEquals(8, engine.sliceGapMs(8, 8 * ms, 0), "caught up");
        compare(GnnModel.create(model), model);
    }

    /**
     * A deletion removes its vertex from the lists of its out-neighbours without building their
     * reverse indexes (a write per neighbour) where the lists are short enough to change in memory.
     */
    @Test
    @Timeout(120)
    void aDeletionLeavesItsOutNeighboursListsUnindexed() throws Exception {
        ModelConfig model = twoLayerSage(29);
        Random r = new Random(29);
        GraphStore store = start(false);
        long time = graph(store, 150, r);
        for (long u = 1; u < 150; u++) {
            if (!in.get(0L).contains(u)) {
                edge(store, u, 0, false, time++);
            }
        }
        round(store, GnnModel.create(model), model);
        assertTrue(in.get(0L).size() > 2 * 64, "a list of blocks");
        store.flushEdges();
        List<VertexKey> indexed = state.keys(InAdjacency.SLOTS.getName(), k -> true);
        assertTrue(!indexed.contains(partitioner.keyOf(0)), "vertex 0 has no index yet");
        delete(store, 1, time++);
        store.flushEdges();
        assertEquals(indexed, state.keys(InAdjacency.SLOTS.getName(), k -> true), "no index");
        drain(store);
        compare(GnnModel.create(model), model);
    }

    /**
     * A recomputed vertex's record is read once at layer 0 (features and label, through the record
     * cache) and not at all at a later layer, whose row of the pinned round carries the label.
     */
    @Test
    @Timeout(120)
    void recomputedVerticesReadTheirRecordOnlyForTheirFeatures() throws Exception {
        ModelConfig model = twoLayerSage(23);
        Random r = new Random(23);
        GraphStore store = start(false);
        long time = graph(store, 100, r);
        round(store, GnnModel.create(model), model);
        long v = 0;
        while (store.incremental().pendingVertices() == 0) {
            edge(store, newSource(v), v, false, time++);
            store.flushEdges();
            v++;
        }
        long before = state.reads(GraphStore.ATTRIBUTES.getName());
        drain(store);
        long reads = state.reads(GraphStore.ATTRIBUTES.getName()) - before;
        long recomputed = store.incremental().counters().recomputed();
        long predicted = store.incremental().counters().predicted();
        assertTrue(predicted > recomputed - predicted, "later layers reach more vertices");
        assertTrue(
                reads <= recomputed - predicted,
                reads + " record reads for " + (recomputed - predicted) + " vertices at layer 0");
        compare(GnnModel.create(model), model);
    }

    /**
     * Additions and removals into one hub that meet in the edge buffer reach its sums as batches of
     * one kind each, kept by differences: none is cleared, and the predictions end where a round's
     * would.
     */
    @Test
    @Timeout(120)
    void mixedChangesIntoAHubAreKeptByDifferences() throws Exception {
        ModelConfig model = twoLayerSage(9);
        Random r = new Random(9);
        GraphStore store = start(false);
        int n = 100;
        long time = graph(store, n, r);
        long hub = 0;
        for (long u = 1; u <= 4 * FANOUT; u++) {
            edge(store, u, hub, false, time++);
        }
        GnnModel pinned = GnnModel.create(model);
        round(store, pinned, model);
        // Warm sums of the hub at every layer, then a burst that alternates additions and removals.
        store.flushEdges();
        edge(store, 1, hub, true, time++);
        while (store.predictIncrementally(Long.MAX_VALUE, out)) {
            collect();
        }
        long clearedBefore = store.incremental().counters().cleared();
        long hubDifferences = store.incremental().counters().hubDifferences();
        for (int c = 0; c < 20; c++) {
            long u = 60 + r.nextInt(40);
            edge(store, u, hub, in.get(hub).contains(u), time++);
        }
        store.flushEdges();
        drain(store);
        assertEquals(
                clearedBefore,
                store.incremental().counters().cleared(),
                "no sum of the hub cleared");
        assertTrue(store.incremental().counters().hubDifferences() > hubDifferences);
        compare(pinned, model);
    }

    /**
     * A round's features' sums (made from its first pass's reads) are kept, but for the vertices a
     * change reached after those reads (their sums have the change, the round's do not) and those a
     * change's difference has yet to reach in pieces (the round's read has it already).
     */
    @Test
    @Timeout(120)
    void aRoundsFeatureSumsGiveWayToChangesAfterItsReads() throws Exception {
        ModelConfig model = twoLayerSage(10);
        Random r = new Random(10);
        fanOutPiece = 2; // a node change reaches its readers in pieces, after the round's sums
        GraphStore store = start(false);
        int n = 100;
        long time = graph(store, n, r);
        round(store, GnnModel.create(model), model);
        long byRound = store.incremental().counters().featureSumsByRound();
        assertEquals(n, byRound, "the first round's sums of every vertex");

        // The next round reads the graph (its sums and rows), then changes come before its sums.
        step += 10;
        GnnModel next = nextModel(11);
        store.flushEdges();
        Dense g = dense();
        LayerwiseInference.Outputs outputs = LayerwiseInference.run(next, g.graph, 64, FANOUT);
        writeRows(store, next, model, outputs, g.ids);
        predicted(g, outputs);
        long changed = 3;
        node(store, changed, r, time++);
        // The sums are read after the node change, whose difference is still on its way in pieces.
        LayerOutputs sums = featureSums();
        edge(store, changed, 4, false, time++);
        long gone = 5;
        delete(store, gone, time++);
        store.flushEdges();
        // The same sums of another incarnation (read again after a restore) are not kept.
        sums.incarnation = 99;
        store.write(sums, out);
        assertEquals(byRound, store.incremental().counters().featureSumsByRound());
        sums.incarnation = 0;
        store.write(sums, out);
        pin(store, next);
        long kept = store.incremental().counters().featureSumsByRound() - byRound;
        assertTrue(kept > 0 && kept < n, "sums kept from the round: " + kept);
        // The deleted vertex comes back with other in-neighbours: its sums start from none.
        node(store, gone, r, time++);
        edge(store, 6, gone, false, time++);
        edge(store, 7, gone, false, time++);
        drain(store);
        compare(next, model);
    }

    @Test
    @Timeout(120)
    void aBlockWrittenAgainAfterTheNextLayerReadItsRowsMarksItsReaders() throws Exception {
        ModelConfig model = twoLayerSage(12);
        Random r = new Random(12);
        GraphStore store = start(false);
        int n = 100;
        long time = graph(store, n, r);
        round(store, GnnModel.create(model), model);
        // A restore before the next round: its blocks may be in flight and issued again.
        store = restore(store);

        step += 10;
        GnnModel next = nextModel(13);
        store.flushEdges();
        Dense before = dense();
        LayerwiseInference.Outputs first = LayerwiseInference.run(next, before.graph, 64, FANOUT);
        store.write(featureSums(), out);
        writeRows(store, next, model, first, before.ids);
        // The last pass reads every neighbourhood's rows and predicts from them.
        int[] counts = new int[before.ids.length];
        List<Long> hoods = new ArrayList<>();
        for (int i = 0; i < before.ids.length; i++) {
            long[] all = in.get(before.ids[i]).stream().mapToLong(Long::longValue).toArray();
            for (long u : EvalNeighbourhood.neighbours(before.ids[i], all, FANOUT)) {
                hoods.add(u);
                counts[i]++;
            }
        }
        store.incremental()
                .roundReadRows(
                        1,
                        step,
                        before.ids,
                        counts,
                        hoods.stream().mapToLong(Long::longValue).toArray());
        predicted(before, first);
        // A change, then the first layer's block again (issued again after the restore), which
        // reads the graph with the change: the change's own recomputation finds its row unchanged.
        node(store, 3, r, time++);
        Dense after = dense();
        writeRows(
                store,
                next,
                model,
                LayerwiseInference.run(next, after.graph, 64, FANOUT),
                after.ids);
        assertTrue(
                store.incremental().counters().roundRowsRewritten() > 0, "rows the block changed");
        pin(store, next);
        drain(store);
        compare(next, model);
    }

    /**
     * Restored before its first round, the GraphStore takes again the vertices that came after the
     * snapshot; the restored scheduler had frozen the round's vertices before them, so the round
     * leaves them out. Its pin marks them, and they are predicted.
     */
    @Test
    @Timeout(60)
    void verticesAfterARestoreThatTheFirstRoundLeftOutArePredictedAfterItsPin() throws Exception {
        ModelConfig model = twoLayerSage(15);
        Random r = new Random(15);
        GraphStore store = start(false);
        int n = 100;
        long time = graph(store, n, r);
        store = restore(store);
        node(store, n, r, time++); // in the round
        node(store, n + 1, r, time++); // not in it
        GnnModel pinned = GnnModel.create(model);
        round(store, pinned, model, Set.of((long) n + 1));
        assertTrue(!topic.containsKey((long) n + 1), "the round left the vertex out");
        drain(store);
        compare(pinned, model);
    }

    /**
     * A vertex deleted and created again while a round runs, whose blocks read it after that: the
     * round's prediction of it is dropped by the tombstone stage (the deletion named the round), so
     * the engine predicts it after the round's pin, though the round's rows of it are current.
     */
    @Test
    @Timeout(60)
    void aVertexCreatedAgainDuringARoundIsPredictedAfterItsPin() throws Exception {
        ModelConfig model = twoLayerSage(16);
        Random r = new Random(16);
        GraphStore store = start(false);
        int n = 100;
        long time = graph(store, n, r);
        round(store, GnnModel.create(model), model);
        step += 10;
        GnnModel next = nextModel(17);
        store.write(featureSums(), out); // the next round begins
        long again = 7;
        delete(store, again, time++);
        node(store, again, r, time++); // no edge: an edge would mark it at every layer
        round(store, next, model);
        topic.remove(again); // the tombstone stage drops the round's prediction
        drain(store);
        compare(next, model);
    }

    @Test
    @Timeout(60)
    void anEdgeChangeIsTimedFromItsOwnArrivalAfterTheBufferWasWritten() throws Exception {
        ModelConfig model = twoLayerSage(14);
        Random r = new Random(14);
        GraphStore store = start(false);
        long time = graph(store, 100, r);
        round(store, GnnModel.create(model), model);
        long first = time + 1_000;
        long a = newSource(2);
        edge(store, a, 2, false, first);
        store.inNeighbours(2); // a read writes the buffered edge
        long second = first + 1_000;
        edge(store, newSource(4), 4, false, second);
        Map<Long, Long> changedAt = new HashMap<>();
        boolean more;
        do {
            more = store.predictIncrementally(Long.MAX_VALUE, out);
            for (PredictionBatch b : out.predictions()) {
                for (int i = 0; i < b.vertices.length; i++) {
                    changedAt.merge(b.vertices[i], b.changedAt[i], Math::min);
                }
            }
            out.clear();
        } while (more);
        assertEquals(second, changedAt.get(4L), "the second edge's destination");
        assertEquals(first, changedAt.get(2L), "the first edge's destination");
    }

    /** A vertex that is not yet an in-neighbour of {@code v}, nor {@code v}. */
    private long newSource(long v) {
        long u = 0;
        while (u == v || in.get(v).contains(u)) {
            u++;
        }
        return u;
    }

    /** A two-layer SAGE model of {@code seed}, and {@link #config} with incremental predictions. */
    private ModelConfig twoLayerSage(long seed) {
        return twoLayerSage(seed, 64);
    }

    /** {@link #twoLayerSage}, with an edge buffer of {@code edgeBuffer} edges. */
    private ModelConfig twoLayerSage(long seed, int edgeBuffer) {
        ModelConfig model =
                ModelConfig.builder()
                        .inFeatures(F)
                        .hidden(16)
                        .numClasses(CLASSES)
                        .seed(seed)
                        .build();
        config =
                new GraphStoreConfig(seed, F, 250, 1 << 20, 1 << 20, edgeBuffer, 0)
                        .withLayerRowCache(1 << 20)
                        .withLayerRootWidths(new int[] {model.roundRootWidth(1, false)})
                        .withIncremental(model, false, FANOUT);
        return model;
    }

    /** {@code n} vertices and {@code 5n} random edges; returns the next change time. */
    private long graph(GraphStore store, int n, Random r) throws Exception {
        long time = 1;
        for (long v = 0; v < n; v++) {
            node(store, v, r, time++);
        }
        for (int e = 0; e < 5 * n; e++) {
            edge(store, r.nextInt(n), r.nextInt(n), false, time++);
        }
        return time;
    }

    private GraphStore start(boolean restored) throws Exception {
        GraphStore store =
                new GraphStore(
                        partitioner,
                        config,
                        GraphStoreOperator.siteOf(PARTITIONS, PARTITIONS, 1, 0),
                        state,
                        state::setCurrentKey,
                        state::keys,
                        null,
                        restored,
                        null);
        store.withClock(() -> now);
        store.incremental().fanOutPiece(fanOutPiece);
        return store;
    }

    /** A snapshot, a failure, and a restore from the snapshot. */
    private GraphStore restore(GraphStore store) throws Exception {
        store.snapshot();
        byte[] engine = store.incremental().state().encode();
        state = state.copy();
        GraphStore restored = start(true);
        restored.incremental().restore(List.of(IncrementalState.decode(engine)), v -> true);
        return restored;
    }

    private static long pick(List<Long> from, Random r) {
        return from.get(r.nextInt(from.size()));
    }

    private void node(GraphStore store, long v, Random r, long time) throws Exception {
        float[] x = new float[F];
        for (int f = 0; f < F; f++) {
            x[f] = (float) r.nextGaussian();
        }
        features.put(v, x);
        in.computeIfAbsent(v, k -> new LinkedHashSet<>());
        store.inputTime(time);
        store.applyUpdate(
                partitioner.keyOf(v),
                GraphUpdate.of(new NodeUpdate(v, x, (int) (v % CLASSES), Split.TRAIN)),
                out);
        collect();
    }

    private void edge(GraphStore store, long src, long dst, boolean remove, long time)
            throws Exception {
        if (remove) {
            in.get(dst).remove(src);
        } else {
            in.get(dst).add(src);
        }
        store.inputTime(time);
        store.applyUpdate(
                partitioner.keyOf(dst),
                GraphUpdate.of(new EdgeUpdate(src, dst, remove, time)),
                out);
    }

    private void delete(GraphStore store, long v, long time) throws Exception {
        features.remove(v);
        in.remove(v);
        for (Set<Long> nbrs : in.values()) {
            nbrs.remove(v);
        }
        store.inputTime(time);
        store.applyDeletion(v, out);
        collect();
        topic.remove(v);
    }

    /**
     * A round with {@code model}: its features' sums and every hidden layer's rows stored,
     * predictions, the pin.
     */
    private void round(GraphStore store, GnnModel model, ModelConfig config) throws Exception {
        round(store, model, config, Set.of());
    }

    /** {@link #round}, whose plan leaves out the vertices {@code left} (they have no edges). */
    private void round(GraphStore store, GnnModel model, ModelConfig config, Set<Long> left)
            throws Exception {
        store.flushEdges();
        Map<Long, float[]> all = new HashMap<>(features);
        features.keySet().removeAll(left);
        Dense g = dense();
        LayerOutputs sums = featureSums();
        features.putAll(all);
        LayerwiseInference.Outputs outputs = LayerwiseInference.run(model, g.graph, 64, FANOUT);
        store.write(sums, out);
        writeRows(store, model, config, outputs, g.ids);
        predicted(g, outputs);
        pin(store, model);
        assertEquals(step, store.incremental().pinnedStep());
    }

    /**
     * Recomputes until nothing is marked or on its way, into {@link #topic}, letting the clock run
     * on while marks wait out their coalescing window.
     */
    private void drain(GraphStore store) throws Exception {
        do {
            while (store.predictIncrementally(Long.MAX_VALUE, out)) {
                collect();
            }
            collect();
        } while (store.incremental().hasWork() && now++ >= 0);
    }

    /** A two-layer model of {@code seed} for a round after the first. */
    private static GnnModel nextModel(long seed) {
        return GnnModel.create(
                ModelConfig.builder()
                        .inFeatures(F)
                        .hidden(16)
                        .numClasses(CLASSES)
                        .seed(seed)
                        .build());
    }

    /** The round's predictions of {@code g}'s vertices, as its ranks send them. */
    private void predicted(Dense g, LayerwiseInference.Outputs outputs) {
        for (int i = 0; i < g.ids.length; i++) {
            topic.put(g.ids[i], ClassProbabilities.softmax(outputs.logits(), i, CLASSES));
        }
    }

    /** The pin records of the round of {@link #step} with {@code model}, from its one rank. */
    private void pin(GraphStore store, GnnModel model) throws Exception {
        for (LayerOutputs pin :
                LayerOutputs.pins(step, 0, 1, model.parameterVector(), new int[] {0})) {
            store.write(pin, out);
        }
        out.clear();
    }

    /** The round's first-pass sums of every vertex's neighbours' features, as a rank sends them. */
    private LayerOutputs featureSums() {
        long[] ids = features.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        LayerOutputs o = new LayerOutputs();
        o.step = step;
        o.layer = LayerOutputs.FEATURE_SUMS;
        o.vertices = ids;
        o.dim = F + 1;
        o.values = new float[ids.length * (F + 1)];
        o.parts = 1;
        for (int i = 0; i < ids.length; i++) {
            long[] all = in.get(ids[i]).stream().mapToLong(Long::longValue).toArray();
            long[] hood = EvalNeighbourhood.neighbours(ids[i], all, FANOUT);
            for (long u : hood) {
                float[] x = features.get(u);
                for (int c = 0; c < F; c++) {
                    o.values[i * (F + 1) + c] += x[c];
                }
            }
            o.values[i * (F + 1) + F] = hood.length;
        }
        return o;
    }

    /** The round's rows of every hidden layer of {@code outputs}. */
    private void writeRows(
            GraphStore store,
            GnnModel model,
            ModelConfig config,
            LayerwiseInference.Outputs outputs,
            long[] ids)
            throws Exception {
        for (int j = 1; j < config.numLayers(); j++) {
            float[] hidden = outputs.layers()[j - 1];
            float[] rows =
                    config.projectsRoundInput(j, false)
                            ? model.project(j, hidden, ids.length)
                            : hidden;
            LayerOutputs o = new LayerOutputs();
            o.step = step;
            o.layer = j;
            o.vertices = ids;
            o.dim = config.roundRowWidth(j, false);
            o.values = rows;
            o.parts = 1;
            store.write(o, out);
        }
    }

    private void collect() {
        for (PredictionBatch b : out.predictions()) {
            if (b.isDeletion()) {
                topic.remove(b.vertices[0]);
                continue;
            }
            assertEquals(step, b.step);
            for (int i = 0; i < b.vertices.length; i++) {
                assertTrue(b.changedAt[i] > 0);
                topic.put(
                        b.vertices[i],
                        java.util.Arrays.copyOfRange(b.probs, i * b.classes, (i + 1) * b.classes));
            }
        }
        out.clear();
    }

    private void compare(GnnModel model, ModelConfig config) {
        Dense g = dense();
        float[] logits = LayerwiseInference.run(model, g.graph, 64, FANOUT).logits();
        assertEquals(features.size(), topic.size(), "one prediction per vertex with attributes");
        for (int i = 0; i < g.ids.length; i++) {
            float[] want = ClassProbabilities.softmax(logits, i, CLASSES);
            float[] got = topic.get(g.ids[i]);
            for (int c = 0; c < CLASSES; c++) {
                assertEquals(want[c], got[c], 1e-4, "vertex " + g.ids[i] + " class " + c);
            }
        }
    }

    private record Dense(long[] ids, LayerwiseInference.Graph graph) {}

    /** The stream's graph over its present vertices, in index order of their ids. */
    private Dense dense() {
        long[] ids = features.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        Map<Long, Integer> index = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
        }
        int[] offsets = new int[ids.length + 1];
        List<Integer> nbrs = new ArrayList<>();
        float[] x = new float[ids.length * F];
        for (int i = 0; i < ids.length; i++) {
            for (long u : in.get(ids[i])) {
                nbrs.add(index.get(u));
            }
            offsets[i + 1] = nbrs.size();
            System.arraycopy(features.get(ids[i]), 0, x, i * F, F);
        }
        return new Dense(
                ids,
                new LayerwiseInference.Graph(
                        ids.length,
                        offsets,
                        nbrs.stream().mapToInt(Integer::intValue).toArray(),
                        x,
                        F,
                        ids));
    }
}
