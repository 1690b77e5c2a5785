package io.gnnstream.partitioning;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.Mix;
import io.gnnstream.state.records.EdgeUpdate;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.aggregators.LongSumAggregator;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.DataSet;
import org.apache.flink.api.java.ExecutionEnvironment;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.graph.Graph;
import org.apache.flink.graph.Vertex;
import org.apache.flink.graph.pregel.ComputeFunction;
import org.apache.flink.graph.pregel.MessageIterator;
import org.apache.flink.graph.pregel.VertexCentricConfiguration;
import org.apache.flink.types.LongValue;
import org.apache.flink.types.NullValue;
import org.apache.flink.util.Collector;

/**
 * Balanced label propagation in the style of Spinner (Martella et al., ICDE 2017) as a Flink Gelly
 * vertex-centric iteration over the undirected graph. Every vertex starts in its hash partition
 * (the job's {@link HashPartitioner}). In each superstep a vertex counts its neighbours' partitions
 * (their labels of the previous superstep, sent as messages) and scores each partition {@code l} as
 * {@code neighbours in l / degree - load(l) / capacity}, with the loads of the previous superstep
 * from an aggregator and capacity = {@code slack x vertices / partitions}. Supersteps alternate
 * between two phases, as in Spinner: in the even ones a vertex whose best partition is another one
 * asks to move there (a demand aggregator counts the requests per partition); in the odd ones it
 * moves with probability {@code (capacity - load) / demand} of that partition, so that the
 * partitions do not overflow on average. The coin is a hash of (seed, vertex, superstep), so a run
 * is repeatable. Every vertex sends its label to all neighbours and to itself every superstep (the
 * self-message keeps vertices without neighbours' changes active, so that the loads count every
 * vertex).
 */
public final class BalancedLabelPropagation {

    static final String LOAD = "load-";
    static final String DEMAND = "demand-";

    private final int partitions;
    private final int supersteps;
    private final double slack;
    private final long seed;

    public BalancedLabelPropagation(int partitions, int supersteps, double slack, long seed) {
        if (partitions < 1 || partitions > 1024) {
            throw new IllegalArgumentException(
                    "--partitions must be in [1, 1024], got " + partitions);
        }
        if (supersteps < 1) {
            throw new IllegalArgumentException("--supersteps must be positive, got " + supersteps);
        }
        if (!(slack >= 1.0)) {
            throw new IllegalArgumentException("slack must be at least 1, got " + slack);
        }
        this.partitions = partitions;
        this.supersteps = supersteps;
        this.slack = slack;
        this.seed = seed;
    }

    /**
     * Runs the iteration on the edges of {@code edgesFile} (lines in the job's edge format;
     * removals and unreadable lines are skipped) with {@code vertices} vertices that have edges;
     * returns (vertex id, partition) of every vertex with an edge.
     */
    public List<Tuple2<Long, Integer>> run(ExecutionEnvironment env, Path edgesFile, long vertices)
            throws Exception {
        DataSet<Tuple2<Long, Long>> edges =
                env.readTextFile(edgesFile.toAbsolutePath().toString())
                        .flatMap(new ParseEdges())
                        .name("parse-edges");
        Graph<Long, Integer, NullValue> graph =
                Graph.fromTuple2DataSet(edges, new InitialPartition(partitions), env)
                        .getUndirected();
        VertexCentricConfiguration config = new VertexCentricConfiguration();
        config.setName("balanced-label-propagation");
        for (int l = 0; l < partitions; l++) {
            config.registerAggregator(LOAD + l, new LongSumAggregator());
            config.registerAggregator(DEMAND + l, new LongSumAggregator());
        }
        double capacity = slack * vertices / partitions;
        Graph<Long, Integer, NullValue> result =
                graph.runVertexCentricIteration(
                        new Propagate(partitions, capacity, seed), null, supersteps, config);
        return result.getVertices().map(new ToTuple()).name("assignment").collect();
    }

    /** The job's hash partition: the start of the propagation. */
    static final class InitialPartition implements MapFunction<Long, Integer> {
        private static final long serialVersionUID = 1L;
        private final HashPartitioner hash;

        InitialPartition(int partitions) {
            this.hash = new HashPartitioner(partitions);
        }

        @Override
        public Integer map(Long vertex) {
            return hash.partition(vertex);
        }
    }

    /** Edge lines to (src, dst) of the added edges. */
    static final class ParseEdges implements FlatMapFunction<String, Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;
        private transient EdgeFormat format;

        @Override
        public void flatMap(String line, Collector<Tuple2<Long, Long>> out) {
            if (line.isBlank()) {
                return;
            }
            if (format == null) {
                format = new EdgeFormat();
            }
            try {
                EdgeUpdate e = format.parse(line);
                if (!e.remove && e.src != e.dst) {
                    out.collect(Tuple2.of(e.src, e.dst));
                }
            } catch (InvalidRecordException bad) {
                // counted by GraphEdges, which reads the same file
            }
        }
    }

    static final class ToTuple
            implements MapFunction<Vertex<Long, Integer>, Tuple2<Long, Integer>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Long, Integer> map(Vertex<Long, Integer> v) {
            return Tuple2.of(v.getId(), v.getValue());
        }
    }

    /**
     * One superstep of a vertex (see the class comment). Messages: a neighbour's label, or {@code
     * -1 - label} from itself.
     */
    static final class Propagate extends ComputeFunction<Long, Integer, NullValue, Integer> {
        private static final long serialVersionUID = 1L;
        private final int partitions;
        private final double capacity;
        private final long seed;
        private transient int[] counts;
        private transient long[] load;
        private transient long[] demand;
        private transient LongSumAggregator[] loadAggregators;
        private transient LongSumAggregator[] demandAggregators;

        Propagate(int partitions, double capacity, long seed) {
            this.partitions = partitions;
            this.capacity = capacity;
            this.seed = seed;
        }

        @Override
        public void preSuperstep() {
            counts = new int[partitions];
            load = new long[partitions];
            demand = new long[partitions];
            loadAggregators = new LongSumAggregator[partitions];
            demandAggregators = new LongSumAggregator[partitions];
            for (int l = 0; l < partitions; l++) {
                loadAggregators[l] = getIterationAggregator(LOAD + l);
                demandAggregators[l] = getIterationAggregator(DEMAND + l);
                if (getSuperstepNumber() > 1) {
                    load[l] = this.<LongValue>getPreviousIterationAggregate(LOAD + l).getValue();
                    demand[l] =
                            this.<LongValue>getPreviousIterationAggregate(DEMAND + l).getValue();
                }
            }
        }

        @Override
        public void compute(Vertex<Long, Integer> vertex, MessageIterator<Integer> messages) {
            int label = vertex.getValue();
            int degree = 0;
            java.util.Arrays.fill(counts, 0);
            for (int m : messages) {
                if (m >= 0) {
                    counts[m]++;
                    degree++;
                }
            }
            if (getSuperstepNumber() > 1 && degree > 0) {
                int best = label;
                double bestScore = score(label, degree);
                for (int l = 0; l < partitions; l++) {
                    if (counts[l] > 0 && l != label) {
                        double s = score(l, degree);
                        if (s > bestScore) {
                            best = l;
                            bestScore = s;
                        }
                    }
                }
                if (best != label && getSuperstepNumber() % 2 == 0) {
                    demandAggregators[best].aggregate(1);
                } else if (best != label) {
                    double room = capacity - load[best];
                    double p = room <= 0 ? 0 : Math.min(1.0, room / Math.max(1, demand[best]));
                    long key = vertex.getId() * 0x9E3779B97F4A7C15L + getSuperstepNumber();
                    double coin = (Mix.mix64(seed ^ Mix.mix64(key)) >>> 11) * 0x1.0p-53;
                    if (coin < p) {
                        label = best;
                        setNewVertexValue(label);
                    }
                }
            }
            loadAggregators[label].aggregate(1);
            sendMessageToAllNeighbors(label);
            sendMessageTo(vertex.getId(), -1 - label);
        }

        private double score(int l, int degree) {
            return (double) counts[l] / degree - load[l] / capacity;
        }
    }
}
