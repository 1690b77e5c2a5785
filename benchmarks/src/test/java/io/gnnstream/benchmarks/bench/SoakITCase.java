package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The soak for 3 minutes ({@code bench soak --minutes 3}): a standalone cluster of a JobManager and
 * two TaskManager processes trains on the generated 100,000-vertex graph while 1,000 changes/s
 * arrive. Every checkpoint completes, the job does not restart, the change topics' lag stays under
 * 10 s, the live edges stay within ± 5 %, training goes on; the growth figures (old generation,
 * RocksDB memory, checkpoint bytes per edge) are reported ({@code target/it-soak/soak.json}), as 3
 * minutes cannot judge them. Needs no root; runs in the {@code faults} suite ({@code mvn verify
 * -Pfaults}, which {@code .ci/run} runs).
 */
@Tag("faults")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class SoakITCase {

    private static final int MINUTES = 3;

    @Test
    void threeMinutesOfChangesOnACluster() throws Exception {
        BenchContext context =
                new BenchContext(
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        List.of(1000),
                        null,
                        MINUTES,
                        false,
                        System.out);
        List<SoakTargets.Sample> samples = new ArrayList<>();
        List<BenchResult> results = new SoakBenchmark().run(context, samples::add);
        BenchReport.writeJson(Path.of("target", "it-soak", "soak.json"), results);
        Map<Object, BenchResult> byFigure =
                results.stream()
                        .collect(
                                Collectors.toMap(
                                        r -> r.getParams().get("figure"), Function.identity()));
        for (String figure :
                List.of("checkpoints_failed", "restarts", "change_lag_max", "live_edges_dev_max")) {
            BenchResult r = byFigure.get(figure);
            assertEquals(
                    Boolean.TRUE,
                    r.extra().get(BenchResult.MET),
                    figure + " = " + r.getMedian() + " " + r.extra());
        }
        for (String figure :
                List.of(
                        "old_gen_growth_max_tm",
                        "rocksdb_memory_growth",
                        "checkpoint_bytes_per_edge_dev")) {
            assertTrue(
                    Double.isFinite(byFigure.get(figure).getMedian()),
                    figure + " is not reported: " + byFigure.get(figure).getMedian());
        }
        assertEquals(MINUTES * 2, samples.size(), "a sample every 30 s");
        SoakTargets.Sample first = samples.get(0);
        SoakTargets.Sample last = samples.get(samples.size() - 1);
        assertTrue(last.step() > first.step(), "training goes on: " + first + " .. " + last);
        assertTrue(
                last.checkpointsCompleted() >= first.checkpointsCompleted() + 6,
                "a checkpoint every 10 s: " + first + " .. " + last);
        assertTrue(last.oldGenBytes().stream().allMatch(b -> b > 0), last.toString());
        assertTrue(last.rocksDbBytes() > 0, last.toString());
        Map<?, ?> heap = (Map<?, ?>) byFigure.get("samples").extra().get("heap_growth");
        assertEquals(
                2, ((List<?>) heap.get("by_taskmanager")).size(), "a histogram per TM: " + heap);
    }
}
