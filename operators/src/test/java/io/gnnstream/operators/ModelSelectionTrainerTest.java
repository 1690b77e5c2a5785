package io.gnnstream.operators;

import static io.gnnstream.operators.TrainerRig.MAX_PARALLELISM;
import static io.gnnstream.operators.TrainerRig.MODEL;
import static io.gnnstream.operators.TrainerRig.awaitSteps;
import static io.gnnstream.operators.TrainerRig.batch;
import static io.gnnstream.operators.TrainerRig.exchange;
import static io.gnnstream.operators.TrainerRig.reducer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelExports;
import io.gnnstream.operators.schedule.ModelSelection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --select best-val} on two ranks and a reducer wired by hand: the ranks agree on every
 * round's validation accuracy through the all-reduce, keep the same best round's parameters, and
 * rank 0 exports them (step and checksum of the best round, ties to the earlier); a restore in the
 * middle keeps them; one rank decides alone; {@code last} exports the last step.
 */
@Timeout(120)
class ModelSelectionTrainerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STEPS = 8;

    /** Rounds after every other step; the last one is the final round. */
    private static boolean roundAfter(long step) {
        return step % 2 == 0;
    }

    /**
     * Balanced seeds first, then seeds of class 0 only: the model drifts towards class 0, so
     * validation accuracy over all eight vertices falls and an early round is the best.
     */
    private static int[] seeds(int rank, long step) {
        if (step <= 3) {
            return rank == 0 ? new int[] {0, 1, 2, 3} : new int[] {4, 5, 6, 7};
        }
        return rank == 0 ? new int[] {0, 2} : new int[] {5, 7};
    }

    private static final int[][] VAL = {{0, 1, 2, 3}, {4, 5, 6, 7}};

    @Test
    void bestValRanksExportTheBestRoundAcrossARestore(@TempDir Path dir) throws Exception {
        Run plain = new Run(2, ModelSelection.Mode.BEST_VAL, dir.resolve("plain"));
        plain.steps(1, STEPS);
        plain.close();
        long best = plain.bestRound();
        assertTrue(best < STEPS, "the rounds' accuracies fall: an early round is the best");
        JsonNode manifest = manifest(dir.resolve("plain"));
        assertEquals(best, manifest.path("step").asLong(), "the export is the best round's");
        assertEquals(
                plain.checksums.get(best),
                Long.toHexString(manifest.path("checksum").asLong()),
                "the export holds the parameters the best round evaluated");
        assertEquals("best-val", manifest.path("extra").path("select").asText());
        assertEquals(STEPS, manifest.path("extra").path("last_step").asLong());
        assertArrayEquals(plain.kept(0), plain.kept(1), "both ranks keep the same parameters");
        try (GnnModel exported = ModelExports.load(dir.resolve("plain"))) {
            assertArrayEquals(plain.kept(0), exported.parameterVector());
        }

        // Restored from a checkpoint after step 5 (round 4 decided), on to the end.
        Run first = new Run(2, ModelSelection.Mode.BEST_VAL, dir.resolve("restored"));
        first.steps(1, 5);
        List<OperatorSubtaskState> states = first.snapshot();
        first.close();
        Run resumed = new Run(2, ModelSelection.Mode.BEST_VAL, dir.resolve("restored"), states);
        resumed.seq = first.seq;
        resumed.steps(6, STEPS);
        resumed.close();
        JsonNode again = manifest(dir.resolve("restored"));
        assertEquals(best, again.path("step").asLong());
        assertEquals(manifest.path("checksum").asLong(), again.path("checksum").asLong());
        assertArrayEquals(plain.kept(0), resumed.kept(1));
    }

    @Test
    void oneRankDecidesAloneAndLastExportsTheLastStep(@TempDir Path dir) throws Exception {
        Run alone = new Run(1, ModelSelection.Mode.BEST_VAL, dir.resolve("alone"));
        alone.steps(1, STEPS);
        alone.close();
        JsonNode manifest = manifest(dir.resolve("alone"));
        assertEquals(alone.bestRound(), manifest.path("step").asLong());
        assertEquals(
                alone.checksums.get(alone.bestRound()),
                Long.toHexString(manifest.path("checksum").asLong()));

        Run last = new Run(2, ModelSelection.Mode.LAST, dir.resolve("last"));
        last.steps(1, STEPS);
        last.close();
        JsonNode lastManifest = manifest(dir.resolve("last"));
        assertEquals(STEPS, lastManifest.path("step").asLong());
        assertNotEquals(last.bestRound(), STEPS);
        assertEquals(
                last.checksums.get((long) STEPS),
                Long.toHexString(lastManifest.path("checksum").asLong()));
    }

    /**
     * The serving round after the final one: rank 0 holds its block while the final selection
     * exchange runs, also across a restore, and then predicts with the kept parameters (the best
     * round's predictions again, not the final round's); its line names the step whose model
     * serves.
     */
    @Test
    void servingRoundPredictsWithTheKeptParameters(@TempDir Path dir) throws Exception {
        Run first = new Run(2, ModelSelection.Mode.BEST_VAL, dir.resolve("serving"), null, true);
        first.deferSelection = true;
        first.steps(1, STEPS);
        first.serve();
        assertTrue(
                first.predictions.getOrDefault(STEPS + 1L, Map.of()).isEmpty(),
                "rank 0 serves only once the selection exchange has decided");
        List<OperatorSubtaskState> states = first.snapshot();
        first.close();

        Run run = new Run(2, ModelSelection.Mode.BEST_VAL, dir.resolve("serving"), states, true);
        run.seq = first.seq;
        run.select();
        long best = first.bestRound();
        assertTrue(best < STEPS, "an early round is the best");
        Map<Long, float[]> served = run.predictions.get(STEPS + 1L);
        assertEquals(8, served.size(), "the serving round predicts every vertex of its block");
        Map<Long, float[]> kept = first.predictions.get(best);
        Map<Long, float[]> last = first.predictions.get((long) STEPS);
        double fromKept = 0;
        double fromLast = 0;
        for (long v = 0; v < 8; v++) {
            for (int c = 0; c < 2; c++) {
                fromKept = Math.max(fromKept, Math.abs(served.get(v)[c] - kept.get(v)[c]));
                fromLast = Math.max(fromLast, Math.abs(served.get(v)[c] - last.get(v)[c]));
            }
        }
        assertTrue(fromKept < 1e-6, "the kept round's predictions: " + fromKept);
        assertTrue(fromLast > 1e-4, "not the final round's: " + fromLast);
        assertEquals(best, run.servedLine.path("served_step").asLong(), run.servedLine.toString());
        assertTrue(run.servedLine.path("alone").asBoolean(), run.servedLine.toString());
        assertEquals(first.checksums.get(best), run.servedLine.path("checksum").asText());
        assertArrayEquals(run.kept(0), run.kept(1), "both ranks keep the same parameters");
        run.close();
    }

    private static JsonNode manifest(Path dir) throws Exception {
        return JSON.readTree(Files.readString(dir.resolve("manifest.json")));
    }

    /** T ranks and a reducer, training {@link #STEPS} steps with rounds. */
    private static final class Run {
        final List<TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit>> ranks =
                new ArrayList<>();
        final OneInputStreamOperatorTestHarness<GradientChunk, ReducedChunk> reducer;

        /** Per round step: val correct and total summed over the ranks' evaluation lines. */
        final Map<Long, long[]> val = new TreeMap<>();

        final Map<Long, String> checksums = new TreeMap<>();

        /** Per round step, per vertex: the class probabilities the ranks predicted. */
        final Map<Long, Map<Long, float[]>> predictions = new TreeMap<>();

        /** Rank 0's line of the serving round, once it came. */
        JsonNode servedLine;

        /** The final round's selection exchange waits for {@link #select}. */
        boolean deferSelection;

        private final boolean layerwise;
        long seq;

        Run(int trainers, ModelSelection.Mode mode, Path out) throws Exception {
            this(trainers, mode, out, null);
        }

        Run(int trainers, ModelSelection.Mode mode, Path out, List<OperatorSubtaskState> states)
                throws Exception {
            this(trainers, mode, out, states, false);
        }

        /**
         * {@code layerwise}: rounds are blocks of a layer-wise round's pass, with predictions on;
         * else sampled evaluation batches.
         */
        Run(
                int trainers,
                ModelSelection.Mode mode,
                Path out,
                List<OperatorSubtaskState> states,
                boolean layerwise)
                throws Exception {
            this.layerwise = layerwise;
            for (int r = 0; r < trainers; r++) {
                TrainerConfig config =
                        new TrainerConfig(
                                        MODEL,
                                        1,
                                        1,
                                        out.toString(),
                                        60_000,
                                        true,
                                        0,
                                        new JobScale(trainers, 1, trainers, 1),
                                        layerwise,
                                        false)
                                .withSelect(mode);
                var h =
                        new TwoInputStreamOperatorTestHarness<>(
                                new TrainerOperator(config), MAX_PARALLELISM, trainers, r);
                h.getExecutionConfig().getSerializerConfig().setGenericTypes(false);
                if (states != null) {
                    h.initializeState(states.get(r));
                }
                h.open();
                ranks.add(h);
            }
            reducer = reducer(trainers, states == null ? null : states.get(trainers));
        }

        void steps(long from, long to) throws Exception {
            for (long step = from; step <= to; step++) {
                boolean round = roundAfter(step);
                for (int r = 0; r < ranks.size(); r++) {
                    send(
                            r,
                            batch(
                                    seq,
                                    MiniBatch.Kind.TRAIN,
                                    step,
                                    seeds(r, step),
                                    round ? 1 : 0,
                                    false));
                }
                seq++;
                if (ranks.size() > 1) {
                    exchange(reducer, all());
                }
                if (round) {
                    for (int r = 0; r < ranks.size(); r++) {
                        int[] v = ranks.size() == 1 ? new int[] {0, 1, 2, 3, 4, 5, 6, 7} : VAL[r];
                        send(
                                r,
                                batch(
                                        seq,
                                        MiniBatch.Kind.EVAL_VAL,
                                        step,
                                        v,
                                        1,
                                        step == STEPS,
                                        layerwise ? 1 : 0));
                    }
                    seq++;
                    if (step == STEPS && ranks.size() > 1 && !deferSelection) {
                        exchange(reducer, all()); // the selection exchange (best-val)
                    }
                    readLines();
                }
            }
        }

        /** The serving round's block of every vertex, to rank 0 (the step after the final). */
        void serve() throws Exception {
            send(
                    0,
                    batch(
                            seq++,
                            MiniBatch.Kind.EVAL_VAL,
                            STEPS + 1,
                            new int[] {0, 1, 2, 3, 4, 5, 6, 7},
                            1,
                            false,
                            1));
            readLines();
        }

        /** The final round's selection exchange. */
        void select() throws Exception {
            exchange(reducer, all());
            for (var h : ranks) {
                awaitSteps(h);
            }
            readLines();
        }

        /** The round with the best summed validation accuracy (ties: the earlier). */
        long bestRound() {
            long best = -1;
            long[] b = null;
            for (Map.Entry<Long, long[]> e : val.entrySet()) {
                long[] v = e.getValue();
                if (b == null || v[0] * b[1] > b[0] * v[1]) {
                    best = e.getKey();
                    b = v;
                }
            }
            return best;
        }

        float[] kept(int rank) {
            return TrainerRig.operator(ranks.get(rank)).keptParameters();
        }

        List<OperatorSubtaskState> snapshot() throws Exception {
            List<OperatorSubtaskState> out = new ArrayList<>();
            for (var h : ranks) {
                out.add(h.snapshot(1, 1));
            }
            out.add(reducer.snapshot(1, 1));
            return out;
        }

        void close() throws Exception {
            for (var h : ranks) {
                h.close();
            }
            reducer.close();
        }

        @SuppressWarnings("unchecked")
        private TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit>[] all() {
            return ranks.toArray(new TwoInputStreamOperatorTestHarness[0]);
        }

        private void send(int rank, List<MiniBatchPart> parts) throws Exception {
            var h = ranks.get(rank);
            for (MiniBatchPart p : parts) {
                p.trainer = rank;
                h.processElement1(new StreamRecord<>(p));
            }
            awaitSteps(h);
        }

        private void readLines() throws Exception {
            for (var h : ranks) {
                var predicted = h.getSideOutput(TrainerOperator.PREDICTIONS);
                if (predicted != null) {
                    for (StreamRecord<PredictionBatch> rec : predicted) {
                        PredictionBatch b = rec.getValue();
                        for (int i = 0; i < b.vertices.length; i++) {
                            predictions
                                    .computeIfAbsent(b.step, s -> new TreeMap<>())
                                    .put(
                                            b.vertices[i],
                                            java.util.Arrays.copyOfRange(
                                                    b.probs, i * b.classes, (i + 1) * b.classes));
                        }
                    }
                    predicted.clear();
                }
                var queue = h.getSideOutput(TrainerOperator.METRICS);
                if (queue == null) {
                    continue;
                }
                for (StreamRecord<String> rec : queue) {
                    JsonNode line = JSON.readTree(rec.getValue());
                    if (!"eval".equals(line.path("type").asText())) {
                        continue;
                    }
                    if (line.has("served_step")) {
                        servedLine = line;
                        continue;
                    }
                    long step = line.path("step").asLong();
                    long[] v = val.computeIfAbsent(step, s -> new long[2]);
                    v[0] += line.path("val_correct").asLong();
                    v[1] += line.path("val_total").asLong();
                    checksums.put(step, line.path("checksum").asText());
                }
                queue.clear();
            }
        }
    }
}
