package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.runtime.partitioner.ForwardPartitioner;
import org.junit.jupiter.api.Test;

/** The topology the job builds, inspected without running it. */
class TrainingJobTest {

    @Test
    void samplingLoopFlushesEveryRecordWhileIngestionKeepsTheJobsTimeout() {
        Map<String, StreamNode> nodes = streamGraphNodes();
        for (String loop :
                new String[] {"graph-store", "seed-scheduler", "batch-assembler", "trainer"}) {
            assertEquals(
                    TrainingJob.LOOP_BUFFER_TIMEOUT_MS, nodes.get(loop).getBufferTimeout(), loop);
        }
        for (String ingest :
                new String[] {"parse-edges", "parse-nodes", "edge-bundles", "node-updates"}) {
            assertEquals(
                    JobDefaults.BUFFER_TIMEOUT.toMillis(),
                    nodes.get(ingest).getBufferTimeout(),
                    ingest);
        }
    }

    @Test
    void everyStatefulOperatorHasAUid() {
        Map<String, StreamNode> nodes = streamGraphNodes();
        for (String stateful :
                new String[] {
                    "edges-source",
                    "nodes-source",
                    "graph-store",
                    "seed-scheduler",
                    "batch-assembler",
                    "trainer",
                    "dead-letter-sink",
                    "metrics-sink"
                }) {
            StreamNode node =
                    nodes.entrySet().stream()
                            .filter(e -> e.getKey().contains(stateful))
                            .map(Map.Entry::getValue)
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("no " + stateful));
            assertNotNull(node.getTransformationUID(), stateful);
        }
    }

    /**
     * The loops' tails leave their max parallelism to Flink (which fixes it to their parallelism
     * otherwise), so that a checkpoint restores at another parallelism or trainer count.
     */
    @Test
    void iterationTailsLeaveTheirMaxParallelismToFlink() {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration());
        env.setParallelism(2);
        new TrainingJob(configuration()).buildWithKafka(env);
        StreamGraph graph = TrainingJob.streamGraph(env);
        assertEquals(TrainingJob.JOB_NAME, graph.getJobName());
        assertEquals(3, graph.getIterationSourceSinkPairs().size(), "three loops");
        int tails = 0;
        for (JobVertex v : graph.getJobGraph().getVertices()) {
            if (v.getName().startsWith("IterationSink")) {
                assertEquals(JobVertex.MAX_PARALLELISM_DEFAULT, v.getMaxParallelism(), v.getName());
                tails++;
            }
        }
        assertEquals(3, tails);
    }

    /**
     * Flink keeps no channel state for an iteration head (it has no operator), so no record of a
     * head may be in flight behind an unaligned barrier at a checkpoint: every edge out of a head
     * is a forward edge, which Flink checkpoints aligned, into an operator of the head's
     * parallelism.
     */
    @Test
    void everyIterationHeadFeedsAForwardEdge() {
        for (int[] layout : new int[][] {{1, 1}, {2, 2}, {3, 2}}) {
            Configuration conf = configuration();
            conf.set(ModelOptions.TRAINERS, layout[1]);
            conf.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(layout[0]);
            new TrainingJob(conf).buildWithKafka(env);
            StreamGraph graph = TrainingJob.streamGraph(env);
            int heads = 0;
            for (StreamNode node : graph.getStreamNodes()) {
                if (!node.getOperatorName().startsWith("IterationSource")) {
                    continue;
                }
                heads++;
                assertFalse(node.getOutEdges().isEmpty(), node.getOperatorName());
                for (StreamEdge edge : node.getOutEdges()) {
                    String context =
                            edge + " at parallelism " + layout[0] + ", " + layout[1] + " trainers";
                    assertInstanceOf(ForwardPartitioner.class, edge.getPartitioner(), context);
                    assertEquals(
                            node.getParallelism(),
                            graph.getStreamNode(edge.getTargetId()).getParallelism(),
                            context);
                }
            }
            assertEquals(3, heads);
        }
    }

    /**
     * A restore from an unaligned checkpoint gives each input gate the in-flight data recorded for
     * the gate of that position, so every build of the job, in whatever JVM and after however many
     * other transformations, must give each vertex its inputs in the same order.
     */
    @Test
    void everyBuildGivesEachVertexItsInputsInTheSameOrder() {
        List<String> first = inputOrder();
        for (int i = 0; i < 17; i++) {
            StreamExecutionEnvironment.getExecutionEnvironment()
                    .fromData(1, 2)
                    .map(x -> x)
                    .returns(Integer.class);
            assertEquals(first, inputOrder(), "after " + (i + 1) + " other transformations");
        }
    }

    private static List<String> inputOrder() {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration());
        env.setParallelism(2);
        new TrainingJob(configuration()).buildWithKafka(env);
        List<String> order = new ArrayList<>();
        for (JobVertex v : TrainingJob.streamGraph(env).getJobGraph().getVertices()) {
            StringBuilder line = new StringBuilder(v.getName()).append(" <-");
            for (org.apache.flink.runtime.jobgraph.JobEdge e : v.getInputs()) {
                line.append(' ').append(e.getSource().getProducer().getName());
            }
            // Iteration heads and tails are named by the id of their loop, which each build counts
            // on.
            order.add(line.toString().replaceAll("(Iteration(Source|Sink))-\\d+", "$1"));
        }
        order.sort(null);
        return order;
    }

    /** A job configuration that builds: a broker address, 8 features, 3 classes. */
    static Configuration configuration() {
        Configuration conf =
                JobDefaults.apply(
                        new Configuration(), Path.of("checkpoints"), Duration.ofSeconds(30));
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, "localhost:9");
        conf.set(GraphOptions.NUM_FEATURES, 8);
        conf.set(GraphOptions.NUM_CLASSES, 3);
        return conf;
    }

    private static Map<String, StreamNode> streamGraphNodes() {
        Configuration conf =
                JobDefaults.apply(
                        new Configuration(), Path.of("checkpoints"), Duration.ofSeconds(30));
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, "localhost:9");
        conf.set(GraphOptions.NUM_FEATURES, 8);
        conf.set(GraphOptions.NUM_CLASSES, 3);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        new TrainingJob(conf).buildWithKafka(env);
        StreamGraph graph = env.getStreamGraph();
        Map<String, StreamNode> nodes = new HashMap<>();
        for (StreamNode node : graph.getStreamNodes()) {
            nodes.put(node.getOperatorName(), node);
        }
        return nodes;
    }
}
