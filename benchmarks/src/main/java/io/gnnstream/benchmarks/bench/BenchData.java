package io.gnnstream.benchmarks.bench;

import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import io.gnnstream.tools.SyntheticGraph;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The graph a streaming benchmark runs on, already produced into a local Kafka broker: the {@code
 * --dataset} folder, or a {@code --synthetic} graph generated once into {@code work/bench/} and
 * reused by later runs.
 */
final class BenchData implements AutoCloseable {

    static final Path WORK = Path.of("work", "bench");

    final Path dir;
    final DatasetInfo info;
    final LocalKafkaBroker broker;
    final String edgesTopic = "bench.edges";
    final String nodesTopic = "bench.nodes";

    private BenchData(Path dir, DatasetInfo info, LocalKafkaBroker broker) {
        this.dir = dir;
        this.info = info;
        this.broker = broker;
    }

    static BenchData prepare(BenchContext context, SyntheticSpec fallback, int topicPartitions)
            throws Exception {
        Path dir =
                context.dataset() != null
                        ? context.dataset()
                        : generated(
                                context.synthetic() != null ? context.synthetic() : fallback,
                                context.log());
        if (context.removalsOr(0) > 0) {
            dir = RemovalMix.of(dir, context.removals(), context.log());
        }
        DatasetInfo info = DatasetInfo.scan(dir);
        LocalKafkaBroker broker =
                LocalKafkaBroker.builder()
                        .workDir(WORK.resolve("kafka-" + ProcessHandle.current().pid()))
                        .port(0)
                        .start();
        BenchData data = new BenchData(dir, info, broker);
        KafkaTopics.ensure(
                broker.bootstrapServers(), topicPartitions, data.edgesTopic, data.nodesTopic);
        context.log().println("Producing " + info + " into a local broker");
        new DatasetLoader(broker.bootstrapServers()).load(dir, data.edgesTopic, data.nodesTopic);
        return data;
    }

    /** The parameters describing the graph, for a result's {@code params}. */
    Map<String, Object> graphParams() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("graph", dir.getFileName().toString());
        p.put("vertices", info.nodes());
        p.put("edges", info.edges());
        p.put("features", info.featureDim());
        return p;
    }

    private static Path generated(SyntheticSpec spec, PrintStream log) throws Exception {
        Path dir =
                WORK.resolve(
                        "synthetic-"
                                + spec.nodes()
                                + "-"
                                + spec.degree()
                                + "-"
                                + spec.features()
                                + "-"
                                + spec.classes());
        if (!Files.isRegularFile(dir.resolve("README.md"))) {
            log.println("Generating " + dir);
            new SyntheticGraph(
                            SyntheticGraphOptions.builder()
                                    .vertices(Math.toIntExact(spec.nodes()))
                                    .avgDegree(spec.degree())
                                    .features(spec.features())
                                    .classes(spec.classes())
                                    .build())
                    .overwrite(true)
                    .write(dir);
        }
        return dir;
    }

    /** Stops the broker and deletes its data: each run produces the whole graph again. */
    @Override
    public void close() throws IOException {
        broker.close();
        Directories.deleteRecursively(broker.workDir());
    }
}
