package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SoakTargetsTest {

    /** A sample at {@code minute} with old gen and RocksDB at {@code bytes}. */
    private static SoakTargets.Sample at(
            double minute, long bytes, long checkpointBytes, long live, double lag) {
        return new SoakTargets.Sample(
                minute,
                (long) (minute * 6),
                0,
                0,
                List.of(bytes, 2 * bytes),
                List.of(bytes + 10_000_000L, 2 * bytes + 10_000_000L),
                6,
                bytes,
                checkpointBytes,
                live,
                lag,
                (long) (minute * 100),
                0);
    }

    private static Map<String, SoakTargets.Verdict> verdicts(
            List<SoakTargets.Sample> samples, int minutes, long live) {
        return SoakTargets.verdicts(samples, minutes, live).stream()
                .collect(Collectors.toMap(SoakTargets.Verdict::figure, Function.identity()));
    }

    @Test
    void aSteadyRunMeetsEveryTarget() {
        List<SoakTargets.Sample> samples = new ArrayList<>();
        for (int m = 1; m <= 30; m++) {
            samples.add(at(m, 1_000_000_000L, 60_000_000L, 2_000_000, 1.5));
        }
        Map<String, SoakTargets.Verdict> v = verdicts(samples, 30, 2_000_000);
        assertTrue(v.values().stream().allMatch(SoakTargets.Verdict::met), v.toString());
        assertEquals(0, v.get("old_gen_growth_max_tm").value(), 1e-9);
        assertEquals(1.5, v.get("change_lag_max").value(), 1e-9);
    }

    @Test
    void growthIsTheSlopeOverTheLastTwentyMinutesPerTenInPercentOfTheMean() {
        List<SoakTargets.Sample> samples = new ArrayList<>();
        // Lower before minute 10 (not fitted), then 2 % of 1e9 per 10 minutes.
        for (int m = 1; m <= 30; m++) {
            long bytes = m < 10 ? 500_000_000L : 1_000_000_000L + (m - 20) * 2_000_000L;
            samples.add(at(m, bytes, 60_000_000L, 2_000_000, 1));
        }
        Map<String, SoakTargets.Verdict> v = verdicts(samples, 30, 2_000_000);
        assertEquals(2.0, v.get("rocksdb_memory_growth").value(), 1e-6);
        assertFalse(v.get("rocksdb_memory_growth").met());
        assertFalse(v.get("old_gen_growth_max_tm").met());
        assertTrue(v.get("checkpoints_failed").met());
    }

    @Test
    void bytesPerEdgeLagAndLiveEdgesAreJudgedAgainstTheirBounds() {
        List<SoakTargets.Sample> samples = new ArrayList<>();
        for (int m = 1; m <= 30; m++) {
            // Minute 10: 30 bytes per edge; minute 25: 34.5 (+15 %); live edges 6 % low at 20.
            long ckpt = m == 25 ? 69_000_000L : 60_000_000L;
            long live = m == 20 ? 1_880_000 : 2_000_000;
            samples.add(at(m, 1_000_000_000L, ckpt * live / 2_000_000, live, m == 5 ? 12 : 2));
        }
        Map<String, SoakTargets.Verdict> v = verdicts(samples, 30, 2_000_000);
        assertEquals(15, v.get("checkpoint_bytes_per_edge_dev").value(), 1e-6);
        assertFalse(v.get("checkpoint_bytes_per_edge_dev").met());
        assertEquals(6, v.get("live_edges_dev_max").value(), 1e-6);
        assertFalse(v.get("live_edges_dev_max").met());
        assertFalse(v.get("change_lag_max").met());
    }

    @Test
    void aFailedCheckpointOrARestartIsMissed() {
        List<SoakTargets.Sample> samples = new ArrayList<>();
        samples.add(at(1, 1, 1, 1, 0));
        SoakTargets.Sample s = at(2, 1, 1, 1, 0);
        samples.add(
                new SoakTargets.Sample(
                        2,
                        12,
                        1,
                        1,
                        s.oldGenBytes(),
                        s.oldGenMaxBytes(),
                        6,
                        1,
                        1,
                        1,
                        0,
                        s.step(),
                        s.predictions()));
        Map<String, SoakTargets.Verdict> v = verdicts(samples, 3, 1);
        assertFalse(v.get("checkpoints_failed").met());
        assertFalse(v.get("restarts").met());
    }

    @Test
    void theOldGenerationIsJudgedOnTheLeastReadingOfEachWindow() {
        List<SoakTargets.Sample> samples = new ArrayList<>();
        // The least reading is flat; the most climbs by 5 % of it per 10 minutes.
        for (int m = 1; m <= 30; m++) {
            long least = 250_000_000L;
            long most = least + m * 1_250_000L;
            SoakTargets.Sample s = at(m, least, 60_000_000L, 2_000_000, 1);
            samples.add(
                    new SoakTargets.Sample(
                            m,
                            s.checkpointsCompleted(),
                            0,
                            0,
                            List.of(least, least),
                            List.of(most, most),
                            6,
                            least,
                            s.checkpointBytes(),
                            s.liveEdges(),
                            1,
                            s.step(),
                            0));
        }
        Map<String, SoakTargets.Verdict> v = verdicts(samples, 30, 2_000_000);
        assertEquals(0, v.get("old_gen_growth_max_tm").value(), 1e-9);
        assertTrue(v.get("old_gen_growth_max_tm").met());
    }
}
