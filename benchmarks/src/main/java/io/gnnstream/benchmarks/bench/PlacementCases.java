package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.state.PartitionMap;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;

/**
 * The placements {@code sample} and {@code pipeline} run: hash partitioning, and the map of {@code
 * --partition-map} when given (both at the map's partition count), each with every {@code --halo}
 * setting, and with the map and halo replicas also local batches ({@code --local-batches}; then
 * every case runs one trainer rank per GraphStore subtask, so that all compare at the same rank
 * count); and the sampling loop's traffic per batch of each, as results whose baseline is hash
 * without halo replicas measured in the same invocation.
 */
record PlacementCases(List<Case> cases) {

    /** One placement: its name, its settings of the job, and its result parameters. */
    record Case(
            String partitioning,
            String halo,
            boolean local,
            boolean rankPerSubtask,
            Consumer<Configuration> settings) {
        String label() {
            return partitioning + "/" + halo + (local ? "/local" : "");
        }
    }

    static PlacementCases of(BenchContext context) throws IOException {
        List<String> halos = context.haloOr(List.of("none"));
        List<Case> cases = new ArrayList<>();
        Integer partitions = null;
        if (context.partitionMap() != null) {
            try (InputStream in = Files.newInputStream(context.partitionMap())) {
                partitions = PartitionMap.read(in).partitions();
            }
        }
        boolean withLocal = context.partitionMap() != null && halos.contains("features");
        for (String partitioning :
                context.partitionMap() == null ? List.of("hash") : List.of("hash", "map")) {
            List<String> halosHere = new ArrayList<>(halos);
            if (withLocal && partitioning.equals("map")) {
                halosHere.add("features/local");
            }
            for (String entry : halosHere) {
                Integer p = partitions;
                String uri =
                        context.partitionMap() == null
                                ? null
                                : context.partitionMap().toAbsolutePath().toUri().toString();
                boolean local = entry.endsWith("/local");
                String halo = local ? "features" : entry;
                cases.add(
                        new Case(
                                partitioning,
                                halo,
                                local,
                                withLocal,
                                conf -> {
                                    if (p != null) {
                                        conf.set(GraphOptions.PARTITIONS, p);
                                    }
                                    if (partitioning.equals("map")) {
                                        conf.set(GraphOptions.PARTITION_MAP, uri);
                                    }
                                    conf.set(
                                            GraphOptions.HALO,
                                            GraphOptions.Halo.valueOf(
                                                    halo.toUpperCase(Locale.ROOT)));
                                    conf.set(SamplingOptions.LOCAL_BATCHES, local);
                                    if (withLocal) {
                                        conf.set(
                                                ModelOptions.TRAINERS,
                                                conf.get(RunOptions.PARALLELISM));
                                    }
                                }));
            }
        }
        return new PlacementCases(cases);
    }

    /** Adds the case's placement to result parameters. */
    static Map<String, Object> params(Map<String, Object> base, Case c) {
        Map<String, Object> params = new LinkedHashMap<>(base);
        params.put("partitioning", c.partitioning());
        params.put("halo", c.halo());
        params.put("local_batches", c.local());
        params.put("trainers", c.rankPerSubtask() ? params.get("parallelism") : 1);
        return params;
    }

    /**
     * The traffic per batch of every case (sampling-loop bytes, the vertices its requests name,
     * feature-part bytes, and the bytes of both that leave a site), against hash without halo
     * replicas when it ran.
     */
    static List<BenchResult> traffic(
            String benchmark,
            List<Case> cases,
            List<List<JsonNode>> windows,
            List<Map<String, Object>> params) {
        String[][] metrics = {
            {"loop_bytes_per_batch", "loop bytes/batch"},
            {"feature_bytes_per_batch", "feature bytes/batch"},
            {"request_vertices_per_batch", "request vertices/batch"},
            {"remote_requests_per_batch", "remote requests/batch"},
            {"remote_bytes_per_batch", "remote bytes/batch"}
        };
        int base = -1;
        for (int i = 0; i < cases.size(); i++) {
            if (cases.get(i).partitioning().equals("hash")
                    && cases.get(i).halo().equals("none")
                    && !cases.get(i).local()) {
                base = i;
            }
        }
        List<BenchResult> results = new ArrayList<>();
        for (String[] metric : metrics) {
            double median = base < 0 ? 0 : Stats.of(field(windows.get(base), metric[0])).median();
            Baseline baseline =
                    median > 0 ? new Baseline("hash partitioning without halo", median) : null;
            for (int i = 0; i < cases.size(); i++) {
                results.add(
                        new BenchResult(
                                benchmark,
                                params.get(i),
                                metric[1],
                                Stats.of(field(windows.get(i), metric[0])),
                                baseline,
                                Map.of("env", BenchContext.environment())));
            }
        }
        return results;
    }

    /** A window's figure. */
    static double[] field(List<JsonNode> windows, String name) {
        return windows.stream().mapToDouble(w -> w.path(name).asDouble()).toArray();
    }
}
