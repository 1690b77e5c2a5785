package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GraphChangesTest {

    private static final int N = 2_000;
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    private static final Pattern LABEL = Pattern.compile("\"label\":(\\d+)");
    private static final Pattern SPLIT = Pattern.compile("\"split\":\"(\\w+)\"");

    /**
     * A long run, its records applied to a model of the graph: every addition puts back a dataset
     * edge that is gone between live vertices, every removal takes a live one, a deletion ends a
     * vertex's edges, node records keep label and split, and the live edges stay near the start's
     * count with the soak's kind of control.
     */
    @Test
    void keepsTheGraphASubsetOfTheDatasetWithItsLabelsAndSplits() {
        SplittableRandom r = new SplittableRandom(3);
        int m = 20_000;
        long[] src = new long[m];
        long[] dst = new long[m];
        Set<Long> dataset = new HashSet<>();
        for (int e = 0; e < m; e++) {
            do {
                src[e] = r.nextInt(N);
                dst[e] = r.nextInt(N);
            } while (src[e] == dst[e] || !dataset.add(src[e] * N + dst[e]));
        }
        int[] labels = new int[N];
        String[] splits = new String[N];
        for (int v = 0; v < N; v++) {
            labels[v] = v % 7;
            splits[v] = v % 3 == 0 ? "TRAIN" : "NONE";
        }
        GraphChanges changes = new GraphChanges(src, dst, labels, splits, 4, 20, 5);
        Set<Long> live = new HashSet<>(dataset);
        boolean[] deleted = new boolean[N];
        int deletions = 0;
        int maxAway = 0;
        for (int i = 0; i < 200_000; i++) {
            if (i % 1_000 == 0) {
                double share = 0.5 + (m - live.size()) / 2_000.0;
                changes.addShare(Math.max(0.05, Math.min(0.95, share)));
            }
            GraphChanges.Change c = changes.next();
            if (c.edge()) {
                String[] f = c.value().split(",");
                long s = Long.parseLong(f[0]);
                long d = Long.parseLong(f[1]);
                long edge = s * N + d;
                assertEquals("" + d, c.key());
                assertTrue(dataset.contains(edge), c.value());
                if (f.length == 3) {
                    assertTrue(live.remove(edge), "removes a live edge: " + c.value());
                } else {
                    assertFalse(deleted[(int) s] || deleted[(int) d], c.value());
                    assertTrue(live.add(edge), "puts back a gone edge: " + c.value());
                }
            } else {
                Matcher id = ID.matcher(c.value());
                assertTrue(id.find());
                int v = Integer.parseInt(id.group(1));
                if (c.value().contains("\"op\":\"delete\"")) {
                    assertFalse(deleted[v]);
                    deleted[v] = true;
                    deletions++;
                    live.removeIf(e -> e / N == v || e % N == v);
                } else {
                    deleted[v] = false;
                    Matcher label = LABEL.matcher(c.value());
                    Matcher split = SPLIT.matcher(c.value());
                    assertTrue(label.find() && split.find(), c.value());
                    assertEquals(labels[v], Integer.parseInt(label.group(1)));
                    assertEquals(v % 3 == 0 ? "train" : "none", split.group(1));
                }
            }
            int away = 0;
            for (boolean d : deleted) {
                away += d ? 1 : 0;
            }
            maxAway = Math.max(maxAway, away);
            assertEquals(changes.deletedVertices(), away);
            assertEquals(m - live.size(), changes.goneEdges());
        }
        assertTrue(deletions > 1_000, "deletions: " + deletions);
        assertTrue(maxAway <= 30, "deleted at once: " + maxAway);
        assertTrue(Math.abs(live.size() - m) < 0.03 * m, "live edges " + live.size());
        // Additions only: an edge change removes only when no gone edge can be put back.
        changes.addShare(1);
        for (int i = 0; i < 5_000; i++) {
            boolean ready = changes.readyEdges() > 0;
            long removals = changes.removals();
            changes.next();
            assertTrue(!ready || changes.removals() == removals, "removed with edges to put back");
        }
    }
}
