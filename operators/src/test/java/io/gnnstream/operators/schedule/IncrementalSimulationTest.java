package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.schedule.SimRank.RankModel;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Seeded runs of the protocol simulation ({@link ProtocolSimulator}) with incremental predictions
 * on the real GraphStore core: ranks compute each round with a real model and send pin records, the
 * graph changes while training runs (edges, records, deletions and new vertices), the GraphStore's
 * incremental-prediction timer fires at random, and checkpoints and restores (at the same and at
 * other trainer counts) carry its state through union list state. Every incremental prediction is
 * of the pinned step, of no older one than a round whose reads or rows the GraphStore took or that
 * every rank completed, and names its change's time. Each run must end with the final round pinned,
 * nothing paused, no mark left, the GraphStore's adjacency equal to the stream's, and, for every
 * vertex with attributes, its latest prediction (in the topic after the tombstone stage, and in the
 * order predictions were emitted) equal to layer-wise inference of the pinned model on the final
 * graph within 1e-4, with no deleted vertex left in the topic. A failing run names its seed, which
 * replays it ({@code -Dsim.seed}).
 */
class IncrementalSimulationTest {

    private static final int VERTICES = 60;
    private static final int EXTRA = 12;

    /**
     * As {@link ProtocolSimulationTest}'s runs, with {@code layers} layers and every vertex: the
     * serving round after the final one pins the kept model.
     */
    private static SchedulerConfig config(int trainers, int layers) {
        return new SchedulerConfig(
                        new JobScale(4, 1, trainers, 1),
                        3,
                        16,
                        12,
                        5,
                        2,
                        1,
                        11L,
                        VERTICES,
                        0,
                        layers,
                        0,
                        true)
                .withSelection(true, true);
    }

    /**
     * SAGE with projected rows and root parts (hidden 8 > 2 x 3 classes), GCN with projected rows
     * and no root part, and three SAGE layers of unprojected rows.
     */
    @ParameterizedTest
    @CsvSource({"SAGE, 8, 2", "GCN, 4, 2", "SAGE, 4, 3"})
    @Timeout(300)
    void failureFreeRunsEndWithLayerwiseInference(ModelType type, int hidden, int layers) {
        SimModels.Shape shape = new SimModels.Shape(type, hidden, layers);
        int runs = 0;
        int incremental = 0;
        long roundSums = 0;
        for (int t = 1; t <= 3; t++) {
            for (long seed : SimSeeds.draw(6)) {
                runs++;
                ProtocolSimulator sim = check(seed, t, 0, 0, new int[] {t}, shape);
                incremental += sim.incrementalBatches() > 0 ? 1 : 0;
                roundSums += sim.roundSums();
            }
        }
        System.out.println(
                shape
                        + ": "
                        + incremental
                        + " of "
                        + runs
                        + " runs with incremental predictions, "
                        + roundSums
                        + " sums of rows made by rounds");
        assertTrue(
                SimSeeds.replaying() || incremental > runs / 2,
                "runs with incremental predictions: " + incremental + " of " + runs);
        assertTrue(
                SimSeeds.replaying() || roundSums > 0, "sums of rows made by rounds: " + roundSums);
    }

    /**
     * Runs with checkpoints and restores, at the same trainer count or at any of 1 to 3, at a
     * failure rate that puts the restores early or spreads them over the run; the trainer count,
     * the restores' counts and the rate come from the seed, so {@code -Dsim.seed} replays a run.
     */
    @ParameterizedTest
    @CsvSource({"SAGE, 8, 2", "GCN, 4, 2", "SAGE, 4, 3"})
    @Timeout(300)
    void runsWithRestoresEndWithLayerwiseInference(ModelType type, int hidden, int layers) {
        SimModels.Shape shape = new SimModels.Shape(type, hidden, layers);
        int restores = 0;
        int rescales = 0;
        int incremental = 0;
        long reread = 0;
        long[] seeds = SimSeeds.draw(30);
        for (long seed : seeds) {
            ProtocolSimulator sim = withRestores(seed, shape);
            restores += sim.restores;
            rescales += sim.rescales;
            incremental += sim.incrementalBatches() > 0 ? 1 : 0;
            reread += sim.outputsReread();
        }
        System.out.println(
                shape
                        + ": "
                        + restores
                        + " restores, "
                        + rescales
                        + " at another trainer count, "
                        + incremental
                        + " of "
                        + seeds.length
                        + " runs with incremental predictions, "
                        + reread
                        + " layer outputs read again from the topic");
        assertTrue(
                SimSeeds.replaying()
                        || restores > 40
                                && rescales > 4
                                && incremental > seeds.length / 2
                                && (reread > 0 || !SimChannels.KAFKA_OUTPUTS),
                "restores "
                        + restores
                        + ", at another trainer count "
                        + rescales
                        + ", runs with incremental predictions "
                        + incremental
                        + ", layer outputs read again "
                        + reread);
    }

    /**
     * The long mode ({@code -Dsim.minutes=N}, outside {@code mvn verify}): runs with restores of
     * fresh seeds and every model shape for N minutes.
     */
    @Test
    @EnabledIfSystemProperty(named = "sim.minutes", matches = "[0-9]+")
    @Timeout(value = 24, unit = TimeUnit.HOURS)
    void longMode() {
        SimModels.Shape[] shapes = {
            new SimModels.Shape(ModelType.SAGE, 8, 2),
            new SimModels.Shape(ModelType.GCN, 4, 2),
            new SimModels.Shape(ModelType.SAGE, 4, 3)
        };
        long end = System.currentTimeMillis() + SimSeeds.longModeMillis();
        SplittableRandom draw = new SplittableRandom();
        long runs = 0;
        while (System.currentTimeMillis() < end) {
            withRestores(draw.nextLong() >>> 1, shapes[draw.nextInt(shapes.length)]);
            runs++;
        }
        System.out.println("long mode: " + runs + " runs with incremental predictions passed");
    }

    /** A run of {@code seed} with restores; its trainer counts and failure rate from the seed. */
    private static ProtocolSimulator withRestores(long seed, SimModels.Shape shape) {
        SplittableRandom p = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int t = 1 + p.nextInt(3);
        int[] counts = p.nextBoolean() ? new int[] {t} : new int[] {1, 2, 3};
        double rate = new double[] {0.004, 0.001, 0.0003}[p.nextInt(3)];
        return check(seed, t, 0.02, rate, counts, shape);
    }

    /**
     * A run with incremental predictions by a model of {@code shape}; throws when it fails. With
     * restores on a changing graph the replicas may differ (a step trained again on another graph,
     * see docs/design.md, "All-reduce"); each must still have applied every step on its seeds.
     */
    static ProtocolSimulator check(
            long seed,
            int trainers,
            double checkpoints,
            double failures,
            int[] counts,
            SimModels.Shape shape) {
        ProtocolSimulator sim =
                new ProtocolSimulator(
                        config(trainers, shape.layers()),
                        seed,
                        VERTICES,
                        EXTRA,
                        true,
                        SimStore.Races.NONE,
                        shape);
        try {
            String run =
                    SimSeeds.replay(seed)
                            + ", "
                            + shape
                            + ", "
                            + trainers
                            + " ranks"
                            + (failures > 0
                                    ? ", restores at "
                                            + Arrays.toString(counts)
                                            + " ranks, failure rate "
                                            + failures
                                    : "");
            boolean finished;
            try {
                finished = sim.run(400_000, checkpoints, failures, 4, counts);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(
                        run + ": " + e + "\n" + ProtocolSimulationTest.tail(sim), e);
            }
            if (!finished) {
                fail(
                        run
                                + ": stalled ("
                                + sim.restores
                                + " restores)\n"
                                + ProtocolSimulationTest.tail(sim)
                                + "\n"
                                + sim.state());
            }
            List<RankModel> models = sim.models();
            for (RankModel m : models) {
                assertEquals(12, m.log.size(), run + ": steps applied");
                ProtocolSimulationTest.checkSeeds(sim, m, run);
                if (failures == 0) {
                    assertEquals(models.get(0).hash, m.hash, run + ": replicas differ");
                }
            }
            try {
                sim.checkPredictions();
            } catch (AssertionError e) {
                throw new AssertionError(
                        run
                                + ": "
                                + e.getMessage()
                                + "\n"
                                + ProtocolSimulationTest.tail(sim)
                                + "\n"
                                + sim.state(),
                        e);
            }
            return sim;
        } finally {
            sim.close();
        }
    }
}
