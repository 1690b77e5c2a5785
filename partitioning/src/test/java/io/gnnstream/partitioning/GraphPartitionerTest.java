package io.gnnstream.partitioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Gelly job and the repair on graphs whose best cut is known. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GraphPartitionerTest {

    /**
     * {@code k} cliques of {@code size} vertices (edges both ways), clique i linked to clique i+1
     * by one edge.
     */
    private static List<String> ringOfCliques(int k, int size) {
        List<String> lines = new ArrayList<>();
        for (int c = 0; c < k; c++) {
            for (int a = 0; a < size; a++) {
                for (int b = 0; b < size; b++) {
                    if (a != b) {
                        lines.add((c * size + a) + "," + (c * size + b));
                    }
                }
            }
            if (k > 1) {
                lines.add((c * size) + "," + (((c + 1) % k) * size + 1));
            }
        }
        return lines;
    }

    @Test
    void findsTheCutBetweenTwoCliques(@TempDir Path dir) throws Exception {
        Path edges = write(dir, ringOfCliques(2, 16));
        GraphPartitioner.Result r = new GraphPartitioner(2).parallelism(1).run(edges, null);
        assertEquals(2.0 / (2 * 16 * 15 + 2), r.quality().edgeCut(), 1e-12, r.toString());
        assertEquals(1.0, r.quality().balance(), 1e-12);
        assertTrue(r.hash().edgeCut() > 0.3, "hash cuts about half: " + r.hash());
    }

    @Test
    void findsTheCutOfARingOfFourCliques(@TempDir Path dir) throws Exception {
        Path edges = write(dir, ringOfCliques(4, 12));
        GraphPartitioner.Result r = new GraphPartitioner(4).parallelism(2).run(edges, null);
        assertEquals(4.0 / (4 * 12 * 11 + 4), r.quality().edgeCut(), 1e-12, r.toString());
        assertEquals(1.0, r.quality().balance(), 1e-12);
    }

    @Test
    void isolatedVerticesAreSpreadAndTheBoundHolds(@TempDir Path dir) throws Exception {
        Path edges = write(dir, ringOfCliques(2, 10));
        List<String> nodes = new ArrayList<>();
        for (int v = 0; v < 40; v++) {
            nodes.add("{\"id\":" + v + ",\"features\":[1.0]}");
        }
        Path nodesFile = dir.resolve("nodes.jsonl");
        Files.write(nodesFile, nodes);
        GraphPartitioner.Result r = new GraphPartitioner(4).parallelism(1).run(edges, nodesFile);
        assertEquals(40, r.map().size());
        assertTrue(r.quality().balance() <= GraphPartitioner.MAX_BALANCE, r.toString());
    }

    @Test
    void repairEnforcesTheBoundAndKeepsNeighboursTogether() {
        // Two triangles, all six vertices in partition 0 of 2.
        GraphEdges g = GraphEdges.of(6, new int[] {0, 1, 2, 3, 4, 5}, new int[] {1, 2, 0, 4, 5, 3});
        int[] partition = new int[6];
        new BalanceRepair(g, partition, 2, 1.0).run(5);
        PartitionQuality q = PartitionQuality.of(g, partition, 2);
        assertEquals(1.0, q.balance(), 1e-12);
        assertEquals(0.0, q.edgeCut(), 1e-12, java.util.Arrays.toString(partition));
    }

    private static Path write(Path dir, List<String> lines) throws IOException {
        Path file = dir.resolve("edges.csv");
        Files.write(file, lines);
        return file;
    }
}
