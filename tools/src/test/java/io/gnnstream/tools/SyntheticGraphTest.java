package io.gnnstream.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SyntheticGraphTest {

    private static final int N = 5000;
    private static final double D = 10;
    private static final int F = 16;
    private static final int C = 5;
    private static final double H = 0.8;

    private static Path dir;
    private static SyntheticGraphStats stats;
    private static int[] labels;
    private static Split[] splits;
    private static float[][] features;
    private static int[] inDegree;

    /** In-neighbours per destination, in file order. */
    private static List<List<Integer>> sources;

    private static SyntheticGraphOptions.Builder options(long seed) {
        return SyntheticGraphOptions.builder()
                .vertices(N)
                .avgDegree(D)
                .features(F)
                .classes(C)
                .homophily(H)
                .seed(seed);
    }

    @BeforeAll
    static void generate() throws Exception {
        dir = TestDirs.fresh("synthetic-7");
        stats = new SyntheticGraph(options(7).build()).progress(false).write(dir);
        labels = new int[N];
        splits = new Split[N];
        features = new float[N][];
        inDegree = new int[N];
        sources = new ArrayList<>();
        NodeFormat nodeFormat = new NodeFormat(F, C, false);
        int expectedId = 0;
        try (BufferedReader r = Files.newBufferedReader(dir.resolve(DatasetInfo.NODES_FILE))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                NodeUpdate node = nodeFormat.parse(line);
                assertEquals(expectedId++, node.id, "nodes in id order");
                labels[(int) node.id] = node.label;
                splits[(int) node.id] = node.split;
                features[(int) node.id] = node.features;
            }
        }
        assertEquals(N, expectedId);
        for (int v = 0; v < N; v++) {
            sources.add(new ArrayList<>());
        }
        EdgeFormat edgeFormat = new EdgeFormat();
        try (BufferedReader r = Files.newBufferedReader(dir.resolve(DatasetInfo.EDGES_FILE))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                EdgeUpdate e = edgeFormat.parse(line);
                assertTrue(e.src < N && e.dst < N, "endpoint out of range: " + line);
                assertTrue(!e.remove && e.timestamp == EdgeUpdate.NO_TIMESTAMP, line);
                sources.get((int) e.dst).add((int) e.src);
                inDegree[(int) e.dst]++;
            }
        }
    }

    @Test
    void countsAgreeWithScanAndStats() throws Exception {
        DatasetInfo info = DatasetInfo.scan(dir);
        assertEquals(N, info.nodes());
        assertEquals(stats.edges(), info.edges());
        assertEquals(F, info.featureDim());
        assertEquals(C, info.numClasses());
        assertEquals(N, info.labelledNodes());
        assertEquals(stats.splitCounts(), info.splitCounts());
        assertEquals(Files.size(dir.resolve(DatasetInfo.NODES_FILE)), stats.nodesBytes());
        assertEquals(Files.size(dir.resolve(DatasetInfo.EDGES_FILE)), stats.edgesBytes());
        assertEquals(stats.maxInDegree(), inDegree[stats.maxInDegreeVertex()]);
        assertEquals(sha256(dir.resolve(DatasetInfo.NODES_FILE)), stats.nodesSha256());
        assertEquals(sha256(dir.resolve(DatasetInfo.EDGES_FILE)), stats.edgesSha256());
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    @Test
    void edgesAreGroupedByDestinationWithoutSelfLoopsOrDuplicates() throws Exception {
        long previousDst = -1;
        Set<Long> seen = new HashSet<>();
        EdgeFormat format = new EdgeFormat();
        for (String line : Files.readAllLines(dir.resolve(DatasetInfo.EDGES_FILE))) {
            EdgeUpdate e = format.parse(line);
            assertTrue(e.dst >= previousDst, "grouped by destination: " + line);
            previousDst = e.dst;
            assertNotEquals(e.src, e.dst, "self-loop");
            assertTrue(seen.add(e.src * N + e.dst), "duplicate edge " + line);
        }
    }

    @Test
    void homophilyIsCloseToTarget() {
        long same = 0;
        long all = 0;
        for (int dst = 0; dst < N; dst++) {
            for (int src : sources.get(dst)) {
                all++;
                same += labels[src] == labels[dst] ? 1 : 0;
            }
        }
        double measured = (double) same / all;
        assertEquals(H, measured, 0.03, "measured edge homophily");
        assertEquals(stats.homophily(), measured, 1e-12);
    }

    @Test
    void inDegreesAreHeavyTailedWithTargetMean() {
        double mean = (double) stats.edges() / N;
        assertEquals(D, mean, 0.5, "mean in-degree");
        int max = 0;
        int atLeast100 = 0;
        for (int d : inDegree) {
            max = Math.max(max, d);
            atLeast100 += d >= 100 ? 1 : 0;
        }
        assertEquals(stats.maxInDegree(), max);
        assertTrue(max > 50 * D, "a hub far above the mean, got max in-degree " + max);
        assertTrue(
                atLeast100 >= 5 && atLeast100 < N / 20,
                "a few, but not many, vertices with in-degree >= 100: " + atLeast100);
    }

    @Test
    void featuresSeparateClassesImperfectlyAndNeighboursHelp() {
        double alone = nearestMeanAccuracy(v -> features[v]);
        assertTrue(alone > 0.5 && alone < 0.95, "feature-only accuracy, chance is 0.2: " + alone);
        double withNeighbours =
                nearestMeanAccuracy(
                        v -> {
                            float[] h = features[v].clone();
                            List<Integer> in = sources.get(v);
                            for (int u : in) {
                                for (int j = 0; j < F; j++) {
                                    h[j] += features[u][j] / in.size();
                                }
                            }
                            return h;
                        });
        assertTrue(
                withNeighbours > alone + 0.1,
                "neighbour means help: " + alone + " -> " + withNeighbours);
    }

    /**
     * Accuracy on the test split of the nearest class mean, the means taken over the train split.
     */
    private static double nearestMeanAccuracy(IntFunction<float[]> representation) {
        double[][] means = new double[C][F];
        int[] counts = new int[C];
        for (int v = 0; v < N; v++) {
            if (splits[v] == Split.TRAIN) {
                float[] x = representation.apply(v);
                counts[labels[v]]++;
                for (int j = 0; j < F; j++) {
                    means[labels[v]][j] += x[j];
                }
            }
        }
        int correct = 0;
        int total = 0;
        for (int v = 0; v < N; v++) {
            if (splits[v] != Split.TEST) {
                continue;
            }
            float[] x = representation.apply(v);
            int best = -1;
            double bestDistance = Double.MAX_VALUE;
            for (int c = 0; c < C; c++) {
                double distance = 0;
                for (int j = 0; j < F; j++) {
                    double diff = x[j] - means[c][j] / counts[c];
                    distance += diff * diff;
                }
                if (distance < bestDistance) {
                    bestDistance = distance;
                    best = c;
                }
            }
            correct += best == labels[v] ? 1 : 0;
            total++;
        }
        return (double) correct / total;
    }

    @Test
    void classesAreBalancedAndSplitsFollowFractions() {
        int[] perClass = new int[C];
        Map<Split, Integer> perSplit = new EnumMap<>(Split.class);
        for (int v = 0; v < N; v++) {
            perClass[labels[v]]++;
            perSplit.merge(splits[v], 1, Integer::sum);
        }
        for (int count : perClass) {
            assertEquals(N / C, count);
        }
        assertEquals(0.1 * N, perSplit.get(Split.TRAIN), 0.02 * N);
        assertEquals(0.1 * N, perSplit.get(Split.VAL), 0.02 * N);
        assertEquals(0.2 * N, perSplit.get(Split.TEST), 0.02 * N);
        assertEquals(0.6 * N, perSplit.get(Split.NONE), 0.02 * N);
        boolean labelsFollowIds = true;
        for (int v = 0; v < N && labelsFollowIds; v++) {
            labelsFollowIds = labels[v] == v % C;
        }
        assertTrue(!labelsFollowIds, "labels are not simply id mod C");
    }

    @Test
    void sameSeedGivesIdenticalFilesAndOtherSeedDiffers() throws Exception {
        Path again = TestDirs.fresh("synthetic-7-again");
        new SyntheticGraph(options(7).build()).progress(false).write(again);
        Path other = TestDirs.fresh("synthetic-8");
        new SyntheticGraph(options(8).build()).progress(false).write(other);
        for (String file : List.of(DatasetInfo.NODES_FILE, DatasetInfo.EDGES_FILE, "README.md")) {
            assertEquals(
                    -1,
                    Files.mismatch(dir.resolve(file), again.resolve(file)),
                    file + " identical for seed 7");
            assertNotEquals(
                    -1,
                    Files.mismatch(dir.resolve(file), other.resolve(file)),
                    file + " differs for seed 8");
        }
    }

    @Test
    void readmeRecordsCommandAndMeasuredStats() throws Exception {
        String readme = Files.readString(dir.resolve("README.md"));
        assertTrue(
                readme.contains(
                        "gnnstream generate --vertices 5000 --avg-degree 10 --features 16 --classes"
                                + " 5 --homophily 0.8 --degree-exponent 2.1 --seed 7 "),
                readme);
        assertTrue(
                readme.contains("| edges (lines in `edges.csv`) | " + stats.edges() + " |"),
                readme);
        assertTrue(
                readme.contains("| max in-degree | " + stats.maxInDegree() + " (vertex "), readme);
        assertTrue(
                readme.contains(stats.edgesSha256()) && readme.contains(stats.nodesSha256()),
                readme);
    }

    @Test
    void refusesToReplaceADatasetUnlessAllowed() throws Exception {
        Path target = TestDirs.fresh("synthetic-overwrite");
        SyntheticGraphOptions small =
                SyntheticGraphOptions.builder()
                        .vertices(50)
                        .avgDegree(3)
                        .features(2)
                        .classes(2)
                        .build();
        new SyntheticGraph(small).progress(false).write(target);
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> new SyntheticGraph(small).progress(false).write(target));
        assertTrue(e.getMessage().contains("already has"), e.getMessage());
        new SyntheticGraph(small).progress(false).overwrite(true).write(target);
        assertEquals(50, DatasetInfo.scan(target).nodes());
        try (var files = Files.list(target)) {
            assertEquals(3, files.count(), "no partial files left");
        }
    }

    @Test
    void rejectsBadOptions() {
        assertBad("vertices", b -> b.vertices(1));
        assertBad("avg-degree", b -> b.avgDegree(N - 1));
        assertBad("avg-degree", b -> b.avgDegree(0));
        assertBad("features", b -> b.features(0));
        assertBad("classes", b -> b.classes(1));
        assertBad("classes", b -> b.classes(N + 1));
        assertBad("homophily", b -> b.homophily(1.5));
        assertBad("homophily", b -> b.homophily(Double.NaN));
        assertBad("degree-exponent", b -> b.degreeExponent(2.0));
        assertBad("sum to at most 1", b -> b.splits(0.5, 0.3, 0.3));
        assertBad("train-fraction", b -> b.splits(-0.1, 0.1, 0.1));
        assertBad("feature-decimals", b -> b.featureDecimals(10));
        assertBad("class-separation", b -> b.classSeparation(-1));
    }

    private static void assertBad(
            String expected, UnaryOperator<SyntheticGraphOptions.Builder> change) {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class, () -> change.apply(options(1)).build());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
