package io.gnnstream.operators.schedule;

import java.util.SplittableRandom;

/**
 * The seeds of the simulation tests: drawn afresh in every run, so that each {@code mvn verify}
 * explores runs no earlier one did; {@code -Dsim.seed=S} replays run {@code S} alone, and {@code
 * -Dsim.minutes=N} enables the long mode, which keeps drawing seeds for N minutes.
 */
final class SimSeeds {

    /** The seed to replay, or null. */
    static final Long REPLAY = Long.getLong("sim.seed");

    private SimSeeds() {}

    /** {@code n} fresh seeds, or only the replayed one. */
    static long[] draw(int n) {
        if (REPLAY != null) {
            return new long[] {REPLAY};
        }
        SplittableRandom random = new SplittableRandom();
        long[] seeds = new long[n];
        for (int i = 0; i < n; i++) {
            seeds[i] = random.nextLong() >>> 1;
        }
        return seeds;
    }

    /** Whether the run replays one seed (aggregate counts then say nothing). */
    static boolean replaying() {
        return REPLAY != null;
    }

    /** How a failing run is replayed. */
    static String replay(long seed) {
        return "seed " + seed + " (replay: -Dsim.seed=" + seed + ")";
    }

    /** The long mode's length in milliseconds, 0 when off. */
    static long longModeMillis() {
        return Long.getLong("sim.minutes", 0L) * 60_000L;
    }
}
