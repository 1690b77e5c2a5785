package io.gnnstream.benchmarks.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A dataset folder whose edges file also removes a share of its edges: each chosen edge's removal
 * ({@code src,dst,-}) follows it after a random number of further lines (up to {@link #MAX_GAP}),
 * so removals arrive mixed with additions, and the edge was added before it is removed. The nodes
 * file is the original's (a link); the folder is made once per share, next to the benchmarks' other
 * generated data.
 */
final class RemovalMix {

    /** The most lines between an edge and its removal. */
    static final int MAX_GAP = 200_000;

    private RemovalMix() {}

    /** The folder of {@code dataset} with {@code share} of its edges removed again. */
    static Path of(Path dataset, double share, PrintStream log) throws IOException {
        Path dir =
                BenchData.WORK.resolve(
                        dataset.getFileName() + "-removals-" + Math.round(share * 1000) + "pm");
        Path edges = dir.resolve("edges.csv");
        if (Files.isRegularFile(dir.resolve("README.md"))) {
            return dir;
        }
        log.println("Mixing removals of " + share + " of the edges into " + dir);
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve("nodes.jsonl"));
        Files.createSymbolicLink(
                dir.resolve("nodes.jsonl"), dataset.resolve("nodes.jsonl").toAbsolutePath());
        SplittableRandom random = new SplittableRandom(42);
        PriorityQueue<Pending> pending = new PriorityQueue<>();
        long line = 0;
        long removals = 0;
        try (BufferedReader in =
                        Files.newBufferedReader(
                                dataset.resolve("edges.csv"), StandardCharsets.UTF_8);
                BufferedWriter out = Files.newBufferedWriter(edges, StandardCharsets.UTF_8)) {
            for (String edge = in.readLine(); edge != null; edge = in.readLine()) {
                while (!pending.isEmpty() && pending.peek().at <= line) {
                    out.write(pending.poll().removal);
                    out.newLine();
                    removals++;
                }
                out.write(edge);
                out.newLine();
                line++;
                if (random.nextDouble() < share) {
                    String[] f = edge.split(",");
                    pending.add(
                            new Pending(
                                    line + 1 + random.nextInt(MAX_GAP), f[0] + "," + f[1] + ",-"));
                }
            }
            while (!pending.isEmpty()) {
                out.write(pending.poll().removal);
                out.newLine();
                removals++;
            }
        }
        Files.writeString(
                dir.resolve("README.md"),
                "# "
                        + dataset.getFileName()
                        + " with removals\n\n"
                        + line
                        + " edges of "
                        + dataset
                        + ", of which "
                        + removals
                        + " are removed again, each up to "
                        + MAX_GAP
                        + " lines after it (bench ingest --removals "
                        + share
                        + ").\n");
        return dir;
    }

    private record Pending(long at, String removal) implements Comparable<Pending> {
        @Override
        public int compareTo(Pending o) {
            return Long.compare(at, o.at);
        }
    }
}
