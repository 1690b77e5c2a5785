package io.gnnstream.state;

import com.carrotsearch.hppc.LongIntHashMap;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An assignment of vertices to the job's {@code P} logical partitions, as {@code bin/gnnstream
 * partition} writes it: a text file whose first line is {@value #HEADER} followed by {@code
 * partitions=P vertices=N}, then one {@code vertex,partition} line per vertex in ascending vertex
 * order.
 */
public final class PartitionMap {

    public static final String HEADER = "# gnnstream-partition-map/1";

    private final int partitions;
    private final LongIntHashMap assignment;

    public PartitionMap(int partitions, LongIntHashMap assignment) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        this.partitions = partitions;
        this.assignment = assignment;
    }

    public int partitions() {
        return partitions;
    }

    public int size() {
        return assignment.size();
    }

    /** The vertex's partition, or -1 when the map does not hold it. */
    public int partitionOf(long vertex) {
        return assignment.getOrDefault(vertex, -1);
    }

    /** The mapped vertices in ascending order. */
    public long[] vertices() {
        long[] vertices = assignment.keys().toArray();
        Arrays.sort(vertices);
        return vertices;
    }

    public void write(OutputStream out) throws IOException {
        long[] vertices = vertices();
        BufferedWriter w =
                new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        w.write(HEADER + " partitions=" + partitions + " vertices=" + vertices.length);
        w.newLine();
        for (long v : vertices) {
            w.write(Long.toString(v));
            w.write(',');
            w.write(Integer.toString(assignment.get(v)));
            w.newLine();
        }
        w.flush();
    }

    /** Reads a map; a malformed file is an {@link IOException} naming the line. */
    public static PartitionMap read(InputStream in) throws IOException {
        BufferedReader r =
                new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
        String header = r.readLine();
        if (header == null || !header.startsWith(HEADER + " ")) {
            throw new IOException(
                    "not a partition map (first line must start with '" + HEADER + "')");
        }
        int partitions = -1;
        for (String field : header.substring(HEADER.length()).trim().split("\\s+")) {
            if (field.startsWith("partitions=")) {
                partitions = Integer.parseInt(field.substring("partitions=".length()));
            }
        }
        if (partitions < 1) {
            throw new IOException("partition map header without partitions=P: " + header);
        }
        LongIntHashMap assignment = new LongIntHashMap();
        int lineNo = 1;
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            int comma = line.indexOf(',');
            try {
                long vertex = Long.parseLong(line.substring(0, comma).trim());
                int partition = Integer.parseInt(line.substring(comma + 1).trim());
                if (vertex < 0 || partition < 0 || partition >= partitions) {
                    throw new IOException(
                            "partition map line "
                                    + lineNo
                                    + ": vertex or partition out of range: "
                                    + line);
                }
                assignment.put(vertex, partition);
            } catch (RuntimeException e) {
                throw new IOException(
                        "partition map line " + lineNo + " is not vertex,partition: " + line, e);
            }
        }
        return new PartitionMap(partitions, assignment);
    }
}
