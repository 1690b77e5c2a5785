package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.schedule.SimRank.RankModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Seeded runs of the batch protocol's roles wired in memory ({@link ProtocolSimulator}): records
 * delayed and reordered, checkpoints with Flink's unaligned semantics, restores from the last
 * completed one at any point (feedback records lost, channel state replayed), at other trainer
 * counts. Each run must end with every step trained exactly once, on the seeds the schedule cut for
 * it, with identical replicas, and every block of the final round scored. A failing run names its
 * seed, which replays it exactly.
 */
class ProtocolSimulationTest {

    private static final int VERTICES = 60;

    /** Vertices without a split: neighbours only, some of them deleted while training runs. */
    private static final int EXTRA = 12;

    private static SchedulerConfig config(int trainers) {
        // 4 partitions, batch 3 per rank, eval blocks of 16, 12 steps, a round every 5 steps,
        // prefetch 2, 2 layers: rounds with a hidden-layer pass and a scored pass.
        // --select best-val with predictions: a serving round of step 13 follows the final round.
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
                        2,
                        0,
                        false)
                .withSelection(true, true);
    }

    @Test
    @Timeout(180)
    void failureFreeRunsAgreeAtEveryTrainerCount() {
        for (int t = 1; t <= 3; t++) {
            for (long seed : SimSeeds.draw(20)) {
                check(seed, t, 0, 0, new int[] {t});
            }
        }
    }

    @Test
    @Timeout(300)
    void restoresAtTheSameTrainerCount() {
        int restores = 0;
        for (int t = 1; t <= 3; t++) {
            for (long seed : SimSeeds.draw(100)) {
                restores += check(seed, t, 0.02, 0.004, new int[] {t}).restores;
            }
        }
        assertTrue(SimSeeds.replaying() || restores > 250, "restores: " + restores);
    }

    @Test
    @Timeout(300)
    void restoresAtOtherTrainerCounts() {
        int rescales = 0;
        for (long seed : SimSeeds.draw(300)) {
            rescales += check(seed, 2, 0.02, 0.004, new int[] {1, 2, 3}).rescales;
        }
        assertTrue(
                SimSeeds.replaying() || rescales > 250,
                "restores at another trainer count: " + rescales);
    }

    /**
     * The long mode ({@code -Dsim.minutes=N}, outside {@code mvn verify}): fresh seeds, trainer
     * counts and failure rates for N minutes.
     */
    @Test
    @EnabledIfSystemProperty(named = "sim.minutes", matches = "[0-9]+")
    @Timeout(value = 24, unit = TimeUnit.HOURS)
    void longMode() {
        long end = System.currentTimeMillis() + SimSeeds.longModeMillis();
        SplittableRandom draw = new SplittableRandom();
        long runs = 0;
        while (System.currentTimeMillis() < end) {
            long seed = draw.nextLong() >>> 1;
            int t = 1 + draw.nextInt(3);
            boolean rescale = draw.nextBoolean();
            check(
                    seed,
                    t,
                    0.02,
                    draw.nextDouble() * 0.01,
                    rescale ? new int[] {1, 2, 3} : new int[] {t});
            runs++;
        }
        System.out.println("long mode: " + runs + " runs passed");
    }

    private static ProtocolSimulator check(
            long seed, int trainers, double checkpoints, double failures, int[] counts) {
        // Half the runs with failures on a graph that changes while training runs: a rank a step
        // behind at a restore takes the furthest replica instead of sampling that step again.
        boolean changing = failures == 0 || (seed & 1) == 0;
        return check(seed, trainers, checkpoints, failures, counts, changing, SimStore.Races.NONE);
    }

    /**
     * A run as {@link #check}, the graph changing while training runs ({@code changing}) or before
     * it, with {@code races} re-introduced; throws when it fails.
     */
    static ProtocolSimulator check(
            long seed,
            int trainers,
            double checkpoints,
            double failures,
            int[] counts,
            boolean changing,
            SimStore.Races races) {
        ProtocolSimulator sim =
                new ProtocolSimulator(config(trainers), seed, VERTICES, EXTRA, changing, races);
        String run = SimSeeds.replay(seed) + ", " + trainers + " ranks";
        boolean finished;
        try {
            finished = sim.run(200_000, checkpoints, failures, 4, counts);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(run + ": " + e + "\n" + tail(sim), e);
        }
        if (!finished) {
            fail(
                    run
                            + ": stalled ("
                            + sim.restores
                            + " restores)\n"
                            + tail(sim)
                            + "\n"
                            + sim.state());
        }
        List<RankModel> models = sim.models();
        RankModel first = models.get(0);
        for (RankModel m : models) {
            assertEquals(first.log.size(), m.log.size(), run + ": replicas applied other steps");
            for (int i = 0; i < m.log.size(); i++) {
                int step = i + 1;
                assertTrue(
                        Arrays.equals(first.log.get(i), m.log.get(i)),
                        () -> run + ": replicas differ at step " + step + "\n" + tail(sim));
            }
            assertEquals(first.hash, m.hash, run + ": replicas differ");
        }
        assertEquals(12, first.log.size(), run + ": steps applied");
        checkSeeds(sim, first, run);
        checkSelection(sim, first, run);
        checkServing(sim, run);
        return sim;
    }

    /**
     * Every step's seeds are the next slice of the epochs' shuffled orders: nothing trained twice,
     * nothing skipped but an epoch's remainder too small for the ranks.
     */
    static void checkSeeds(ProtocolSimulator sim, RankModel model, String run) {
        long[] train = sim.trainSeeds().clone();
        Arrays.sort(train);
        long epoch = 0;
        long[] order = EpochCursor.order(11L, epoch, train.clone());
        int position = 0;
        for (int s = 0; s < model.log.size(); s++) {
            float[] entry = model.log.get(s);
            assertEquals(s + 1, (long) entry[0], run + ": step order");
            List<Long> seeds = new ArrayList<>();
            for (int v = 1; v < entry.length; v++) {
                if (entry[v] != 0) {
                    seeds.add((long) (v - 1));
                }
            }
            if (order.length - position < seeds.size()) {
                order = EpochCursor.order(11L, ++epoch, train.clone());
                position = 0;
            }
            long[] expected =
                    Arrays.copyOfRange(
                            order, position, Math.min(order.length, position + seeds.size()));
            Arrays.sort(expected);
            long[] got = seeds.stream().mapToLong(Long::longValue).toArray();
            assertTrue(
                    Arrays.equals(expected, got),
                    run
                            + ": step "
                            + (s + 1)
                            + " trained "
                            + Arrays.toString(got)
                            + ", the schedule's slice is "
                            + Arrays.toString(expected));
            position += seeds.size();
        }
    }

    /**
     * Every rank kept the same best validation round ({@code --select best-val}), agreed through
     * the all-reduce, and its kept "parameters" are the model after that round's step.
     */
    static void checkSelection(ProtocolSimulator sim, RankModel model, String run) {
        List<SimRank> ranks = sim.ranks();
        TrainerProgress p0 = ranks.get(0).seq.progress();
        float[] best = ranks.get(0).selection.best();
        assertTrue(p0.bestValTotal > 0 && best != null, run + ": no round was selected");
        for (SimRank r : ranks) {
            TrainerProgress p = r.seq.progress();
            assertEquals(p0.bestValStep, p.bestValStep, run + ": ranks selected other rounds");
            assertEquals(p0.bestValCorrect, p.bestValCorrect, run + ": other counts");
            assertEquals(p0.bestValTotal, p.bestValTotal, run + ": other counts");
            assertTrue(Arrays.equals(best, r.selection.best()), run + ": other kept parameters");
        }
        long h = 0x243F6A8885A308D3L;
        for (int i = 0; i < p0.bestValStep; i++) {
            float[] entry = model.log.get(i);
            long step = (long) entry[0];
            for (int v = 1; v < entry.length; v++) {
                h = h * 31 + Float.floatToRawIntBits(entry[v]) + step;
            }
        }
        assertEquals(p0.bestValStep, (long) best[2], run + ": kept parameters of another step");
        assertEquals(
                Float.floatToRawIntBits(Float.intBitsToFloat((int) h)),
                Float.floatToRawIntBits(best[0]),
                run + ": kept parameters are not the round's");
        assertEquals(
                Float.floatToRawIntBits(Float.intBitsToFloat((int) (h >>> 32))),
                Float.floatToRawIntBits(best[1]),
                run + ": kept parameters are not the round's");
    }

    /**
     * The serving round after the final one: its every block computed by rank 0, also when a
     * restore made it compute some again, and each with the kept parameters every rank agreed on
     * (never before the final selection exchange had decided them).
     */
    static void checkServing(ProtocolSimulator sim, String run) {
        float[] kept = sim.ranks().get(0).selection.best();
        assertTrue(!sim.served.isEmpty(), run + ": no block of the serving round was computed");
        for (ProtocolSimulator.Served b : sim.served) {
            assertEquals(0, b.rank(), run + ": a serving block on rank " + b.rank());
            assertEquals(13, b.step(), run + ": the serving round's step");
            assertTrue(
                    Arrays.equals(kept, b.kept()),
                    run
                            + ": block "
                            + b.roundIndex()
                            + " of the serving round computed with "
                            + Arrays.toString(b.kept())
                            + ", the kept parameters are "
                            + Arrays.toString(kept));
        }
    }

    static String tail(ProtocolSimulator sim) {
        List<String> t = sim.trace();
        String file = System.getProperty("sim.trace");
        if (file != null) {
            try {
                java.nio.file.Files.write(java.nio.file.Path.of(file), t);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        int lines = Boolean.getBoolean("sim.verbose") ? 200 : 12;
        return String.join("\n", t.subList(Math.max(0, t.size() - lines), t.size()));
    }
}
