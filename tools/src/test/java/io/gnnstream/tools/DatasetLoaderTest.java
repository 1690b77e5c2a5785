package io.gnnstream.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.formats.FormatOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(300)
class DatasetLoaderTest {

    private static final List<String> NODES =
            List.of(
                    "{\"id\":0,\"label\":0,\"split\":\"train\",\"features\":[1,0,0]}",
                    "{\"id\":1,\"label\":1,\"split\":\"train\",\"features\":[0,1,0]}",
                    "{\"id\":2,\"label\":2,\"split\":\"val\",\"features\":[0,0,1]}",
                    "{\"id\":3,\"label\":1,\"split\":\"test\",\"features\":[1,1,0]}",
                    "{\"id\":4,\"features\":[0,1,1]}");

    private static final List<String> EDGES =
            List.of(
                    "0,1", "1,0", "1,2", "2,1", "2,3", "3,2", "3,4", "4,3", "0,4", "4,0", "2,4",
                    "4,2");

    private static LocalKafkaBroker broker;

    @BeforeAll
    @Timeout(120)
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start(TestDirs.fresh("broker-loader"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void loadsBothFilesKeyedByDestinationAndNodeId() throws Exception {
        Path dir = dataset("tiny", NODES, EDGES);
        String bootstrap = broker.bootstrapServers();
        KafkaTopics.ensure(bootstrap, 3, "tiny-edges", "tiny-nodes");

        DatasetLoader.Result result =
                new DatasetLoader(bootstrap).progress(false).load(dir, "tiny-edges", "tiny-nodes");
        assertEquals(5, result.nodes());
        assertEquals(12, result.edges());
        assertEquals(0, result.unkeyed());

        List<ConsumerRecord<String, String>> edges =
                LocalKafkaBrokerTest.consume(bootstrap, "tiny-edges", 12);
        assertEquals(12, edges.size());
        Map<String, Integer> partitionOfKey = new HashMap<>();
        Map<String, List<String>> perDestination = new HashMap<>();
        for (ConsumerRecord<String, String> r : edges) {
            assertEquals(r.value().split(",")[1], r.key(), "edge key is the destination id");
            Integer before = partitionOfKey.putIfAbsent(r.key(), r.partition());
            assertEquals(
                    before == null ? r.partition() : before,
                    r.partition(),
                    "one partition per destination");
            perDestination.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
        }
        for (Map.Entry<String, List<String>> e : perDestination.entrySet()) {
            List<String> inFileOrder =
                    EDGES.stream().filter(l -> l.endsWith("," + e.getKey())).toList();
            assertEquals(inFileOrder, sortedByOffsetWithin(edges, e.getKey()));
        }

        List<ConsumerRecord<String, String>> nodes =
                LocalKafkaBrokerTest.consume(bootstrap, "tiny-nodes", 5);
        assertEquals(5, nodes.size());
        for (ConsumerRecord<String, String> r : nodes) {
            assertEquals(
                    NODES.get(Integer.parseInt(r.key())),
                    r.value(),
                    "node key is the id, value verbatim");
        }
    }

    /** A Planetoid folder is streamed from its reader as node lines and edge lines. */
    @Test
    void loadsAnotherFormatAsTheProjectsLines() throws Exception {
        Path dir = Path.of("src", "test", "resources", "formats", "tiny-citeseer-planetoid");
        String bootstrap = broker.bootstrapServers();
        KafkaTopics.ensure(bootstrap, 2, "planetoid-edges", "planetoid-nodes");
        DatasetLoader.Result result =
                new DatasetLoader(bootstrap)
                        .progress(false)
                        .load(dir, FormatOptions.defaults(), "planetoid-edges", "planetoid-nodes");
        assertEquals(12, result.nodes());
        assertEquals(12, result.edges());
        assertEquals(0, result.unkeyed());
        List<ConsumerRecord<String, String>> nodes =
                LocalKafkaBrokerTest.consume(bootstrap, "planetoid-nodes", 12);
        Map<String, String> byKey = new HashMap<>();
        nodes.forEach(r -> byKey.put(r.key(), r.value()));
        assertEquals("{\"id\":8,\"split\":\"none\",\"features\":[0,0,0,0]}", byKey.get("8"));
        assertEquals(
                "{\"id\":11,\"label\":0,\"split\":\"test\",\"features\":[1,1,0,1]}",
                byKey.get("11"));
        for (ConsumerRecord<String, String> r :
                LocalKafkaBrokerTest.consume(bootstrap, "planetoid-edges", 12)) {
            assertEquals(r.value().split(",")[1], r.key(), "edge key is the destination id");
        }
    }

    @Test
    void linesWithoutReadableIdAreSentUnkeyed() throws Exception {
        Path dir =
                dataset(
                        "unkeyed",
                        List.of(NODES.get(0), "{\"id\":\"x\"}"),
                        List.of("0,1", "zero,one", ""));
        String bootstrap = broker.bootstrapServers();
        KafkaTopics.ensure(bootstrap, 1, "unkeyed-edges", "unkeyed-nodes");
        DatasetLoader.Result result =
                new DatasetLoader(bootstrap)
                        .progress(false)
                        .load(dir, "unkeyed-edges", "unkeyed-nodes");
        assertEquals(2, result.nodes());
        assertEquals(2, result.edges());
        assertEquals(2, result.unkeyed());
        List<ConsumerRecord<String, String>> edges =
                LocalKafkaBrokerTest.consume(bootstrap, "unkeyed-edges", 2);
        assertEquals("zero,one", edges.get(1).value());
        assertNull(edges.get(1).key());
    }

    @Test
    void missingTopicIsAClearError() throws Exception {
        Path dir = dataset("notopic", NODES, EDGES);
        BrokerException e =
                assertThrows(
                        BrokerException.class,
                        () ->
                                new DatasetLoader(broker.bootstrapServers())
                                        .progress(false)
                                        .load(dir, "nope-edges", "nope-nodes"));
        assertTrue(e.getMessage().contains("topic 'nope-nodes' does not exist"), e.getMessage());
    }

    @Test
    void scansDatasetInfo() throws Exception {
        DatasetInfo info = DatasetInfo.scan(dataset("info", NODES, EDGES));
        assertEquals(5, info.nodes());
        assertEquals(12, info.edges());
        assertEquals(3, info.featureDim());
        assertEquals(3, info.numClasses());
        assertEquals(4, info.labelledNodes());
        assertEquals(
                Map.of(Split.TRAIN, 2L, Split.VAL, 1L, Split.TEST, 1L, Split.NONE, 1L),
                info.splitCounts());
        assertEquals(3, info.nodeFormat(false).featureDim());
    }

    @Test
    void datasetInfoReportsMissingAndMalformedInput() throws Exception {
        Path absent = Path.of("target", "test-work", "no-such-dataset");
        DatasetException e = assertThrows(DatasetException.class, () -> DatasetInfo.scan(absent));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());

        Path noEdges = TestDirs.fresh("dataset-noedges");
        Files.write(noEdges.resolve(DatasetInfo.NODES_FILE), NODES);
        e = assertThrows(DatasetException.class, () -> DatasetInfo.scan(noEdges));
        assertTrue(e.getMessage().contains("has no edges.csv"), e.getMessage());

        List<String> badNodes = new ArrayList<>(NODES);
        badNodes.set(2, "{\"id\":2,\"features\":[0,1]}");
        e =
                assertThrows(
                        DatasetException.class,
                        () -> DatasetInfo.scan(dataset("badnodes", badNodes, EDGES)));
        assertTrue(
                e.getMessage()
                        .contains("nodes.jsonl line 3: wrong feature dimension: expected 3, got 2"),
                e.getMessage());

        List<String> badEdges = new ArrayList<>(EDGES);
        badEdges.set(4, "2,-3");
        e =
                assertThrows(
                        DatasetException.class,
                        () -> DatasetInfo.scan(dataset("badedges", NODES, badEdges)));
        assertTrue(
                e.getMessage().contains("edges.csv line 5: dst must be non-negative"),
                e.getMessage());

        e =
                assertThrows(
                        DatasetException.class,
                        () -> DatasetInfo.scan(dataset("nonodes", List.of(""), EDGES)));
        assertTrue(e.getMessage().contains("has no nodes"), e.getMessage());
    }

    /**
     * The bundled Cora folder (or {@code -Dgnnstream.cora.dir}) scans to the numbers of its README.
     */
    @Test
    void scansCoraWhenAvailable() throws Exception {
        Path cora = Path.of(System.getProperty("gnnstream.cora.dir", "../data/cora"));
        assumeTrue(Files.isDirectory(cora), "no Cora folder at " + cora.toAbsolutePath());
        DatasetInfo info = DatasetInfo.scan(cora);
        assertEquals(2708, info.nodes());
        assertEquals(10556, info.edges());
        assertEquals(1433, info.featureDim());
        assertEquals(7, info.numClasses());
        assertEquals(
                Map.of(Split.TRAIN, 140L, Split.VAL, 500L, Split.TEST, 1000L, Split.NONE, 1068L),
                info.splitCounts());
    }

    private static List<String> sortedByOffsetWithin(
            List<ConsumerRecord<String, String>> records, String key) {
        return records.stream()
                .filter(r -> key.equals(r.key()))
                .sorted((a, b) -> Long.compare(a.offset(), b.offset()))
                .map(ConsumerRecord::value)
                .toList();
    }

    private static Path dataset(String name, List<String> nodes, List<String> edges)
            throws Exception {
        Path dir = TestDirs.fresh("dataset-" + name);
        Files.write(dir.resolve(DatasetInfo.NODES_FILE), nodes);
        Files.write(dir.resolve(DatasetInfo.EDGES_FILE), edges);
        return dir;
    }
}
