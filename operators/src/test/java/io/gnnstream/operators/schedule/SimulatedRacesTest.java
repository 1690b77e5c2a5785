package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The protocol simulation finds the races that test-only switches turn on: among the runs of the
 * default number of fresh seeds (the graph changing while training runs, restores at the same and
 * at other trainer counts), some must fail with the race's symptom, each naming the seed that
 * replays it; without the switches, none shows it.
 */
class SimulatedRacesTest {

    private static final int SEEDS = 300;

    /** A stale part shows only where a restarted attempt sampled a changed graph: rarer. */
    private static final int STALE_PART_SEEDS = 600;

    /** A row of another vertex, or a part filling a row twice: a part of another attempt. */
    private static final Predicate<String> WRONG_ROWS =
            m -> m.contains(" holds [") && !m.contains("[0.0, 0.0]") || m.contains("fills row");

    /** An empty row of this round's outputs for a vertex the round covers. */
    private static final Predicate<String> LOST_OUTPUTS =
            m -> m.contains("holds [0.0, 0.0] (outputs of step");

    /** A feature part of a superseded attempt joined into the current batch at the trainer. */
    @Test
    @Timeout(120)
    void aStalePartAcceptedIsFound() {
        assertFound(
                failures(new SimStore.Races(false, true, false), WRONG_ROWS, STALE_PART_SEEDS),
                STALE_PART_SEEDS,
                "a stale part accepted");
    }

    /** Layer outputs acknowledged to the scheduler before the GraphStore's state holds them. */
    @Test
    @Timeout(120)
    void aLayerWriteAcknowledgedBeforeItIsDurableIsFound() {
        assertFound(
                failures(new SimStore.Races(true, false, false), LOST_OUTPUTS, SEEDS),
                SEEDS,
                "a layer write acknowledged early");
    }

    /**
     * Rows of an older round stored after a newer round's of the same layer: a block issued again,
     * or outputs held for buffers, that come after the serving round wrote. Fresh seeds find it in
     * about one run in a thousand, so two runs known to show it are replayed, with and without the
     * switch.
     */
    @Test
    @Timeout(120)
    void anOlderRoundsRowsStoredOverANewerRoundsAreFound() {
        SimStore.Races race = new SimStore.Races(false, false, true);
        for (long[] run :
                new long[][] {{5940672844274044060L, 3, 0}, {6403565429307877653L, 2, 1}}) {
            long seed = run[0];
            int trainers = (int) run[1];
            int[] counts = run[2] == 0 ? new int[] {trainers} : new int[] {1, 2, 3};
            boolean changing = (seed & 1) == 0;
            AssertionError e =
                    assertThrows(
                            AssertionError.class,
                            () ->
                                    ProtocolSimulationTest.check(
                                            seed, trainers, 0.02, 0.004, counts, changing, race));
            assertTrue(LOST_OUTPUTS.test(e.getMessage()), e.getMessage());
            ProtocolSimulationTest.check(
                    seed, trainers, 0.02, 0.004, counts, changing, SimStore.Races.NONE);
        }
    }

    /** The same runs without the switches show none of the symptoms. */
    @Test
    @Timeout(120)
    void withoutTheRacesNoBatchIsWrong() {
        List<String> wrong = failures(SimStore.Races.NONE, WRONG_ROWS.or(LOST_OUTPUTS), SEEDS);
        assertEquals(List.of(), wrong);
    }

    private static void assertFound(List<String> failures, int runs, String race) {
        assertTrue(
                !failures.isEmpty() || SimSeeds.replaying(),
                race + ": no run of " + runs + " found it");
        System.out.println(
                race + ": found by " + failures.size() + " runs, first " + failures.get(0));
    }

    /** The failures of the runs with {@code races} whose message {@code symptom} accepts. */
    private static List<String> failures(
            SimStore.Races races, Predicate<String> symptom, int runs) {
        List<String> found = new ArrayList<>();
        long[] seeds = SimSeeds.draw(runs);
        for (int i = 0; i < seeds.length; i++) {
            int trainers = 1 + i % 3;
            int[] counts = i % 2 == 0 ? new int[] {trainers} : new int[] {1, 2, 3};
            try {
                ProtocolSimulationTest.check(seeds[i], trainers, 0.05, 0.002, counts, true, races);
            } catch (AssertionError | RuntimeException e) {
                String message = String.valueOf(e.getMessage());
                if (symptom.test(message)) {
                    found.add(message.split("\n")[0]);
                }
            }
        }
        return found;
    }
}
