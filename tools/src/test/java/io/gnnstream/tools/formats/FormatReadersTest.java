package io.gnnstream.tools.formats;

import static io.gnnstream.tools.formats.ReadGraph.CORA;
import static io.gnnstream.tools.formats.ReadGraph.RESOURCES;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.DatasetInfo;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Each layout that {@code docs/convert_dataset.py} wrote from the bundled Cora reads back as the
 * bundled folder: same nodes, labels, splits, features and edge set.
 */
class FormatReadersTest {

    private static FormatOptions auto() {
        return FormatOptions.defaults();
    }

    @Test
    void planetoidPicklesReadAsCora() throws Exception {
        Path dir = RESOURCES.resolve("cora-planetoid");
        assertEquals(DatasetFormat.PLANETOID, DatasetFormat.detect(dir));
        ReadGraph.read(dir, auto()).assertSameAs(ReadGraph.read(CORA, auto()));
    }

    @Test
    void ogbRawLayoutReadsAsCoraWithInverseEdges() throws Exception {
        Path dir = RESOURCES.resolve("cora-ogb");
        assertEquals(DatasetFormat.OGB, DatasetFormat.detect(dir));
        FormatOptions inverse = new FormatOptions(DatasetFormat.OGB, "public", true, 0, 20, 30);
        ReadGraph.read(dir, inverse).assertSameAs(ReadGraph.read(CORA, auto()));
        ReadGraph oneWay = ReadGraph.read(dir, auto());
        assertEquals(5278, oneWay.edgeLines(), "one row per undirected edge without the flag");
    }

    @Test
    void npzReadsAsCoraWithNumpysPerClassSplit() throws Exception {
        Path dir = RESOURCES.resolve("cora-npz");
        assertEquals(DatasetFormat.NPZ, DatasetFormat.detect(dir));
        ReadGraph npz = ReadGraph.read(dir, auto());
        ReadGraph cora = ReadGraph.read(CORA, auto());
        assertEquals(cora.edges(), npz.edges(), "the one-direction adjacency made undirected");
        for (NodeUpdate c : cora.nodes().values()) {
            NodeUpdate n = npz.nodes().get(c.id);
            assertEquals(c.label, n.label);
            assertArrayEquals(c.features, n.features);
        }
        // numpy.random.RandomState(0).permutation per class, in class order (from Python).
        int[] train = {
            15, 31, 52, 82, 83, 139, 189, 234, 247, 262, 294, 313, 317, 330, 331, 334, 363, 387,
            415, 459, 468, 519, 527, 534, 575, 603, 619, 625, 647, 648, 654, 658, 676, 707, 724,
            777, 780, 811, 847, 850, 852, 871, 882, 898, 925, 938, 950, 1006, 1008, 1013, 1056,
            1070, 1077, 1126, 1128, 1140, 1142, 1143, 1148, 1149, 1178, 1179, 1190, 1206, 1216,
            1230, 1251, 1291, 1315, 1338, 1402, 1416, 1426, 1444, 1447, 1455, 1459, 1474, 1478,
            1480, 1485, 1504, 1513, 1576, 1579, 1624, 1658, 1677, 1698, 1700, 1736, 1745, 1767,
            1770, 1775, 1815, 1848, 1878, 1884, 1898, 1921, 1981, 2002, 2015, 2016, 2030, 2050,
            2054, 2074, 2090, 2093, 2107, 2131, 2157, 2164, 2251, 2331, 2355, 2376, 2390, 2391,
            2394, 2412, 2425, 2428, 2435, 2458, 2475, 2476, 2494, 2506, 2545, 2561, 2587, 2620,
            2633, 2647, 2675, 2680, 2684
        };
        long[] ids = ids(npz, Split.TRAIN);
        assertArrayEquals(Arrays.stream(train).asLongStream().toArray(), ids);
        long[] val = ids(npz, Split.VAL);
        assertEquals(210, val.length);
        assertEquals(266290, Arrays.stream(val).sum());
        assertEquals(463658660L, Arrays.stream(val).map(v -> v * v).sum());
        assertEquals(2708 - 140 - 210, ids(npz, Split.TEST).length);

        FormatOptions seed1 = new FormatOptions(DatasetFormat.AUTO, null, false, 1, 20, 30);
        assertNotEquals(
                Arrays.toString(ids),
                Arrays.toString(ids(ReadGraph.read(dir, seed1), Split.TRAIN)));
    }

    @Test
    void dglCsvReadsAsCorasSubgraph() throws Exception {
        Path dir = RESOURCES.resolve("cora-dgl");
        assertEquals(DatasetFormat.DGL_CSV, DatasetFormat.detect(dir));
        ReadGraph expected = ReadGraph.read(DatasetReaders.open(CORA, auto()), id -> id < 300);
        ReadGraph.read(dir, auto()).assertSameAs(expected);
    }

    /**
     * CiteSeer's isolated test nodes: ids in the test range missing from {@code test.index} get
     * zero features, no label and no split; the rest as the source folder, whose graph has a
     * self-loop, a duplicate and a one-way edge.
     */
    @Test
    void planetoidTestRangeGapsAreUnlabelledZeroNodes() throws Exception {
        ReadGraph read = ReadGraph.read(RESOURCES.resolve("tiny-citeseer-planetoid"), auto());
        ReadGraph source = ReadGraph.read(RESOURCES.resolve("tiny-citeseer"), auto());
        assertEquals(source.nodes().keySet(), read.nodes().keySet());
        for (NodeUpdate s : source.nodes().values()) {
            NodeUpdate r = read.nodes().get(s.id);
            assertEquals(s.label, r.label, "label of " + s.id);
            assertEquals(s.split, r.split, "split of " + s.id);
            assertArrayEquals(s.features, r.features, "features of " + s.id);
        }
        for (long gap : new long[] {8, 10}) {
            assertEquals(NodeUpdate.NO_LABEL, read.nodes().get(gap).label);
            assertEquals(Split.NONE, read.nodes().get(gap).split);
        }
        assertEquals(
                Set.of(
                        "0,1", "1,0", "1,2", "2,1", "2,9", "9,2", "3,4", "4,3", "7,11", "11,7",
                        "0,6", "6,0"),
                read.edges());
    }

    @Test
    void datasetInfoAndGraphAgreeAcrossFormats() throws Exception {
        DatasetInfo cora = DatasetInfo.scan(CORA);
        DatasetInfo planetoid = DatasetInfo.scan(RESOURCES.resolve("cora-planetoid"));
        assertEquals(DatasetFormat.PLANETOID, planetoid.format());
        assertEquals(cora.nodes(), planetoid.nodes());
        assertEquals(cora.edges(), planetoid.edges());
        assertEquals(cora.featureDim(), planetoid.featureDim());
        assertEquals(cora.numClasses(), planetoid.numClasses());
        assertEquals(cora.splitCounts(), planetoid.splitCounts());
        assertEquals(cora.meanNonZeroFeatures(), planetoid.meanNonZeroFeatures());

        DatasetGraph a = DatasetGraph.load(CORA, RowNormalization.AUTO);
        DatasetGraph b =
                DatasetGraph.load(
                        RESOURCES.resolve("cora-ogb"),
                        new FormatOptions(DatasetFormat.OGB, null, true, 0, 20, 30),
                        RowNormalization.AUTO);
        assertArrayEquals(a.ids, b.ids);
        assertArrayEquals(a.labels, b.labels);
        assertArrayEquals(a.splits, b.splits);
        assertArrayEquals(a.features, b.features);
        assertArrayEquals(a.offsets, b.offsets);
        for (int v = 0; v < a.numVertices(); v++) {
            int[] na = Arrays.copyOfRange(a.neighbours, a.offsets[v], a.offsets[v + 1]);
            int[] nb = Arrays.copyOfRange(b.neighbours, b.offsets[v], b.offsets[v + 1]);
            Arrays.sort(na);
            Arrays.sort(nb);
            assertArrayEquals(na, nb, "in-neighbours of " + v);
        }
    }

    private static long[] ids(ReadGraph g, Split split) {
        return g.nodes().values().stream()
                .filter(n -> n.split == split)
                .mapToLong(n -> n.id)
                .sorted()
                .toArray();
    }
}
