package io.gnnstream.jobs.testing;

import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Compares a {@link StoredGraph} with a {@link ReferenceGraph}: every record, in-adjacency list,
 * out-edge index entry of the partitions whose index is built, and (with halo replicas) replica. A
 * site is a GraphStore subtask of the job's parallelism; it holds a replica of {@code u} while
 * {@code u} lives on another site and has an out-neighbour on it, with {@code u}'s record when it
 * has one.
 */
public final class GraphComparison {

    private GraphComparison() {}

    /** The differences, at most {@code limit} of them (none: the graphs are equal). */
    public static List<String> differences(
            StoredGraph stored,
            ReferenceGraph reference,
            VertexPartitioner partitioner,
            int parallelism,
            boolean halo,
            int limit) {
        List<String> out = new ArrayList<>();
        Set<Long> vertices = new HashSet<>(reference.records.keySet());
        vertices.addAll(stored.records.keySet());
        for (long v : vertices) {
            byte[] expected = reference.records.get(v);
            byte[] actual = stored.records.get(v);
            if (!Arrays.equals(expected, actual)) {
                out.add(
                        "record of "
                                + v
                                + ": "
                                + (expected == null ? "none expected" : "expected")
                                + ", "
                                + (actual == null ? "none stored" : "stored differs"));
            }
        }
        Set<Long> targets = new HashSet<>(reference.in.keySet());
        targets.addAll(stored.inNeighbours.keySet());
        Map<String, TreeSet<Long>> outEdges = new HashMap<>();
        for (long w : targets) {
            long[] expected = longs(reference.in.get(w));
            long[] actual = stored.inNeighbours.getOrDefault(w, new long[0]);
            if (!Arrays.equals(expected, actual)) {
                out.add(
                        "in-neighbours of "
                                + w
                                + ": expected "
                                + Arrays.toString(expected)
                                + ", stored "
                                + Arrays.toString(actual));
            }
            for (long u : expected) {
                outEdges.computeIfAbsent(partitioner.partition(w) + ":" + u, k -> new TreeSet<>())
                        .add(w);
            }
        }
        Set<String> entries = new HashSet<>(outEdges.keySet());
        entries.addAll(stored.outEdges.keySet());
        entries.removeIf(e -> !stored.indexed.contains(Integer.parseInt(e.split(":")[0])));
        for (String entry : entries) {
            long[] expected = longs(outEdges.get(entry));
            long[] actual = stored.outEdges.getOrDefault(entry, new long[0]);
            if (!Arrays.equals(expected, actual)) {
                out.add(
                        "out-edge index "
                                + entry
                                + ": expected "
                                + Arrays.toString(expected)
                                + ", stored "
                                + Arrays.toString(actual));
            }
        }
        if (halo && parallelism > 1) {
            Map<String, byte[]> replicas = expectedReplicas(reference, partitioner, parallelism);
            Set<String> keys = new HashSet<>(replicas.keySet());
            keys.addAll(stored.replicas.keySet());
            for (String key : keys) {
                byte[] expected = replicas.get(key);
                byte[] actual = stored.replicas.get(key);
                boolean equal =
                        expected != null
                                && actual != null
                                && actual.length == expected.length + 1
                                && Arrays.equals(
                                        expected, Arrays.copyOfRange(actual, 1, actual.length));
                if (!equal) {
                    out.add(
                            "replica "
                                    + key
                                    + ": "
                                    + (expected == null ? "none expected" : "expected")
                                    + ", "
                                    + (actual == null ? "none stored" : "stored differs"));
                }
            }
        }
        return out.subList(0, Math.min(limit, out.size()));
    }

    /**
     * "holder:u" -> the record the replica holds (empty without attributes), where the halo replica
     * rule calls for one.
     */
    private static Map<String, byte[]> expectedReplicas(
            ReferenceGraph reference, VertexPartitioner partitioner, int parallelism) {
        int partitions = partitioner.numPartitions();
        int[] holder = new int[parallelism];
        for (int s = 0; s < parallelism; s++) {
            holder[s] =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                                    partitions, parallelism, s)
                            .getStartKeyGroup();
        }
        Map<String, byte[]> out = new HashMap<>();
        for (var e : reference.in.entrySet()) {
            int site = siteOf(partitioner.partition(e.getKey()), partitions, parallelism);
            for (long u : e.getValue()) {
                if (siteOf(partitioner.partition(u), partitions, parallelism) != site) {
                    byte[] record = reference.records.get(u);
                    out.put(holder[site] + ":" + u, record == null ? new byte[0] : record);
                }
            }
        }
        return out;
    }

    private static int siteOf(int partition, int partitions, int parallelism) {
        return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                partitions, parallelism, partition);
    }

    private static long[] longs(Set<Long> values) {
        return values == null
                ? new long[0]
                : values.stream().mapToLong(Long::longValue).sorted().toArray();
    }
}
