package io.gnnstream.operators;

import static io.gnnstream.operators.GraphStoreHaloTest.PARTITIONER;
import static io.gnnstream.operators.GraphStoreHaloTest.PARTITIONS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.operators.store.HaloReplicas;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The deletion protocol (docs/design.md, "Vertex deletion") through the GraphStore and replica
 * router harnesses of every site, on RocksDB and on the heap: a random stream of edge additions and
 * removals, node updates, deletions and re-creations, against a reference graph that applies the
 * same stream in order. Afterwards every in-adjacency, out-edge index entry, record and halo
 * replica equals what the reference says.
 */
@Timeout(120)
class VertexDeletionTest {

    private static final int VERTICES = 40;

    @ParameterizedTest
    @CsvSource({"rocksdb,2", "heap,2", "rocksdb,8", "heap,8", "heap,1"})
    void theStoredGraphEqualsTheReferenceAfterDeletions(String backend, int parallelism)
            throws Exception {
        SplittableRandom random = new SplittableRandom(parallelism * 31L + backend.length());
        Map<Long, TreeSet<Long>> in = new HashMap<>();
        Map<Long, NodeUpdate> records = new HashMap<>();
        try (var g = new GraphStoreHaloTest.Graph(backend, parallelism)) {
            for (long v = 0; v < VERTICES; v++) {
                records.put(v, g.node(v, v));
            }
            for (int i = 0; i < 200; i++) {
                long u = random.nextLong(VERTICES);
                long w = random.nextLong(VERTICES);
                g.edge(u, w, false);
                in.computeIfAbsent(w, k -> new TreeSet<>()).add(u);
            }
            int deletions = 0;
            for (int i = 0; i < 300; i++) {
                long u = random.nextLong(VERTICES);
                long w = random.nextLong(VERTICES);
                int op = random.nextInt(10);
                if (op < 4) {
                    g.edge(u, w, false);
                    in.computeIfAbsent(w, k -> new TreeSet<>()).add(u);
                } else if (op < 7) {
                    g.edge(u, w, true);
                    in.computeIfAbsent(w, k -> new TreeSet<>()).remove(u);
                } else if (op < 8) {
                    records.put(u, g.node(u, 100 + i));
                } else {
                    g.delete(u);
                    deletions++;
                    records.remove(u);
                    in.remove(u);
                    in.values().forEach(s -> s.remove(u));
                }
            }
            assertEquals(true, deletions > 10, "the stream deletes vertices");
            compare(g, parallelism, in, records);
        }
    }

    private static void compare(
            GraphStoreHaloTest.Graph g,
            int parallelism,
            Map<Long, TreeSet<Long>> in,
            Map<Long, NodeUpdate> records)
            throws Exception {
        StoreSites sites = new StoreSites(PARTITIONS, parallelism);
        for (long w = 0; w < VERTICES; w++) {
            long[] stored = g.ownerOf(w).inNeighbours(w);
            Arrays.sort(stored);
            long[] expected =
                    in.getOrDefault(w, new TreeSet<>()).stream()
                            .mapToLong(Long::longValue)
                            .toArray();
            assertArrayEquals(expected, stored, "in-neighbours of " + w);
            byte[] record = g.ownerOf(w).storedRecord(w);
            if (records.containsKey(w)) {
                assertArrayEquals(VertexRecord.encode(records.get(w)), record, "record of " + w);
            } else {
                assertNull(record, "record of deleted " + w);
            }
        }
        for (long u = 0; u < VERTICES; u++) {
            for (int p = 0; p < PARTITIONS; p++) {
                TreeSet<Long> expected = new TreeSet<>();
                for (var e : in.entrySet()) {
                    if (PARTITIONER.partition(e.getKey()) == p && e.getValue().contains(u)) {
                        expected.add(e.getKey());
                    }
                }
                long[] stored = g.ownerOf(anyIn(p)).outEdgeTargets(p, u);
                Arrays.sort(stored);
                assertArrayEquals(
                        expected.stream().mapToLong(Long::longValue).toArray(),
                        stored,
                        "out-edge index of " + u + " in partition " + p);
            }
            for (int site = 0; site < parallelism; site++) {
                int home = sites.siteOf(PARTITIONER.partition(u));
                boolean needed = false;
                for (var e : in.entrySet()) {
                    needed |=
                            e.getValue().contains(u)
                                    && sites.siteOf(PARTITIONER.partition(e.getKey())) == site;
                }
                int holder = sites.holderOfSite(site);
                HaloReplicas.Status expected =
                        site == home || !needed
                                ? HaloReplicas.Status.NONE
                                : records.containsKey(u)
                                        ? HaloReplicas.Status.PRESENT
                                        : HaloReplicas.Status.ABSENT;
                assertEquals(
                        expected,
                        g.halo(holder, u).status(holder, u),
                        "replica of " + u + " at site " + site);
            }
        }
        long vertices = 0;
        for (var s : g.stores) {
            vertices += ((GraphStoreOperator) s.getOperator()).store().vertices();
        }
        assertEquals(records.size(), vertices, "vertices with attributes");
    }

    /** A vertex in partition {@code p}. */
    private static long anyIn(int p) {
        for (long v = 0; ; v++) {
            if (PARTITIONER.partition(v) == p) {
                return v;
            }
        }
    }
}
