package io.gnnstream.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.partitioning.GraphPartitioner;
import io.gnnstream.partitioning.PartitionQuality;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.DatasetReaders;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code partition}: the Gelly partitioning job on a dataset folder or an edge file. */
@Command(
        name = "partition",
        mixinStandardHelpOptions = true,
        description =
                "Assign the vertices of a graph to P partitions with a low edge cut (Flink Gelly"
                    + " batch job: balanced label propagation, then a local repair to balance <="
                    + " 1.05); writes the map for --partition-map and prints edge cut, balance and"
                    + " the replication factor of --halo features (at a --parallelism equal to P,"
                    + " one partition per GraphStore subtask), also those of hash partitioning.")
final class PartitionCommand implements Callable<Integer> {

    static final class Input {
        @Option(names = "--dataset", description = "Dataset folder, in any --format.")
        Path dataset;

        @Option(names = "--edges", description = "Edge file in the edges topic's format.")
        Path edges;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Input input;

    @Mixin DatasetFormatOptions format = new DatasetFormatOptions();

    @Option(
            names = "--partitions",
            required = true,
            description = "Number of partitions: the job's --partitions.")
    int partitions;

    @Option(names = "--out", required = true, description = "The partition map to write.")
    Path out;

    @Option(names = "--json", description = "Also write the figures as JSON to this file.")
    Path json;

    @Option(
            names = "--supersteps",
            defaultValue = "41",
            description = "Supersteps of label propagation (default: ${DEFAULT-VALUE}).")
    int supersteps;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seed of the migration coins (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "Parallelism of the Gelly job (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Override
    public Integer call() throws Exception {
        if (partitions < 1 || Integer.bitCount(partitions) != 1 || partitions > 1024) {
            throw new IllegalArgumentException(
                    "--partitions must be a power of two up to 1024 (the job's --partitions), got "
                            + partitions);
        }
        Path edgesFile = input.edges;
        Path nodesFile = null;
        Path scratch = null;
        if (input.dataset != null) {
            DatasetInfo info = DatasetInfo.scan(input.dataset, format.toOptions());
            Path dir = input.dataset;
            if (info.format() != DatasetFormat.GNNSTREAM) {
                scratch = Files.createTempDirectory("gnnstream-partition-");
                dir = DatasetReaders.materialise(input.dataset, format.toOptions(), scratch);
            }
            edgesFile = dir.resolve(DatasetInfo.EDGES_FILE);
            nodesFile = dir.resolve(DatasetInfo.NODES_FILE);
        } else if (!Files.isRegularFile(edgesFile)) {
            throw new IllegalArgumentException("--edges " + edgesFile + " does not exist");
        }
        GraphPartitioner.Result r;
        try {
            r =
                    new GraphPartitioner(partitions)
                            .supersteps(supersteps)
                            .seed(seed)
                            .parallelism(parallelism)
                            .run(edgesFile, nodesFile);
        } finally {
            if (scratch != null) {
                Directories.deleteRecursively(scratch);
            }
        }
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream o = Files.newOutputStream(out)) {
            r.map().write(o);
        }
        System.out.printf(
                Locale.ROOT,
                "%d vertices, %d edges, %d partitions (%d unreadable and %d removal lines"
                        + " skipped)%n",
                r.vertices(),
                r.edges(),
                partitions,
                r.rejectedLines(),
                r.removalLines());
        System.out.println(
                line("gelly", r.quality())
                        + String.format(
                                Locale.ROOT,
                                "  (%.2fx hash's cut)",
                                r.quality().edgeCut() / Math.max(1e-12, r.hash().edgeCut())));
        System.out.println(line("hash", r.hash()));
        System.out.printf(
                Locale.ROOT,
                "label propagation alone: edge_cut %.4f balance %.3f; repair moved %d vertices; "
                        + "%.1f s (Gelly job %.1f s)%n",
                r.propagated().edgeCut(),
                r.propagated().balance(),
                r.repairMoves(),
                r.seconds(),
                r.gellySeconds());
        System.out.println("Wrote " + out);
        if (json != null) {
            ObjectMapper mapper = new ObjectMapper();
            ObjectNode node = mapper.createObjectNode();
            node.put("partitions", partitions)
                    .put("vertices", r.vertices())
                    .put("edges", r.edges())
                    .put("edge_cut", r.quality().edgeCut())
                    .put("balance", r.quality().balance())
                    .put("replication_factor", r.quality().replicationFactor())
                    .put("hash_edge_cut", r.hash().edgeCut())
                    .put("hash_balance", r.hash().balance())
                    .put("hash_replication_factor", r.hash().replicationFactor())
                    .put("propagation_edge_cut", r.propagated().edgeCut())
                    .put("propagation_balance", r.propagated().balance())
                    .put("supersteps", supersteps)
                    .put("seconds", r.seconds());
            mapper.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), node);
        }
        return 0;
    }

    private static String line(String name, PartitionQuality q) {
        return String.format(
                Locale.ROOT,
                "%-6s edge_cut %.4f  balance %.3f  replication_factor %.3f",
                name,
                q.edgeCut(),
                q.balance(),
                q.replicationFactor());
    }
}
