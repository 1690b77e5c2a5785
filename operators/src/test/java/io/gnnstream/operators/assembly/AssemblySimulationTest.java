package io.gnnstream.operators.assembly;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded runs of {@link AssemblySimulation} (300, or {@code -Dassembly.seeds}): every one joins
 * every batch correctly; with the race "a stale partial-batch part accepted" re-introduced ({@link
 * PartialBatches#acceptingStaleParts}), about 2 % of the seeds find it (a batch with rows of two
 * attempts, or rows filled twice). A failing run names its seed, which replays it exactly.
 */
class AssemblySimulationTest {

    private static final int SEEDS = Integer.getInteger("assembly.seeds", 300);

    @Test
    void everyBatchIsJoinedWithItsOwnRows() throws Exception {
        int restored = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            AssemblySimulation sim = new AssemblySimulation(seed, new PartialBatches(), 6);
            try {
                assertTrue(sim.run(20_000), "seed " + seed + " stalled: " + sim);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("seed " + seed + " (" + sim + "): " + e, e);
            }
            restored += sim.restores > 0 ? 1 : 0;
        }
        assertTrue(restored > SEEDS / 4, restored + " runs with a restore");
    }

    @Test
    void seedsFindStalePartsAccepted() throws Exception {
        List<Long> found = new ArrayList<>();
        for (long seed = 0; seed < SEEDS; seed++) {
            AssemblySimulation sim =
                    new AssemblySimulation(seed, PartialBatches.acceptingStaleParts(), 6);
            try {
                sim.run(20_000);
            } catch (IllegalArgumentException | AssertionError e) {
                found.add(seed);
            }
        }
        assertTrue(found.size() >= SEEDS / 100, "seeds that found the stale part: " + found);
    }
}
