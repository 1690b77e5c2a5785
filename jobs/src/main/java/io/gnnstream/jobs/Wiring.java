package io.gnnstream.jobs;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.messages.VertexDeletion;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.NodeUpdate;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.util.Collector;

/** Key selectors and adapters that wire the topology; named classes keep their types explicit. */
public final class Wiring {

    private Wiring() {}

    /**
     * Graph updates belong to the vertex whose state they change; a request goes to the subtask
     * owning its partition, addressed by the partition's anchor.
     */
    public static final class StoreInputKey implements KeySelector<GraphStoreInput, VertexKey> {
        private static final long serialVersionUID = 1L;
        private final VertexPartitioner partitioner;

        public StoreInputKey(VertexPartitioner partitioner) {
            this.partitioner = partitioner;
        }

        @Override
        public VertexKey getKey(GraphStoreInput input) {
            return input.storeKey(partitioner);
        }
    }

    public static final class SpecKey implements KeySelector<BatchSpec, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(BatchSpec spec) {
            return spec.batchId;
        }
    }

    public static final class ResponseKey implements KeySelector<SampleResponse, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(SampleResponse response) {
            return response.batchId;
        }
    }

    /**
     * The replica router's key: the vertex whose replicas an update changes (an edge's source, a
     * node), or for an edge bundle the anchor of its route.
     */
    public static final class ReplicaSourceKey implements KeySelector<GraphStoreInput, VertexKey> {
        private static final long serialVersionUID = 1L;
        private final VertexPartitioner partitioner;

        public ReplicaSourceKey(VertexPartitioner partitioner) {
            this.partitioner = partitioner;
        }

        @Override
        public VertexKey getKey(GraphStoreInput input) {
            if (input instanceof GraphStoreInput.Update update) {
                GraphUpdate u = update.update();
                return partitioner.keyOf(u.edge != null ? u.edge.src : u.node.id);
            }
            return input.storeKey(partitioner);
        }
    }

    /**
     * Node records for the GraphStore and the replica router (both of {@code parallelism}
     * subtasks): an upsert as it is, keyed by its vertex; a deletion as one {@link VertexDeletion}
     * per site, keyed by the site's first partition (docs/design.md, "Vertex deletion").
     */
    public static final class NodeToStoreInput
            implements FlatMapFunction<NodeUpdate, GraphStoreInput> {
        private static final long serialVersionUID = 1L;
        private final int[] routes;

        public NodeToStoreInput(VertexPartitioner partitioner, int parallelism) {
            this.routes = VertexDeletion.routes(partitioner.numPartitions(), parallelism);
        }

        @Override
        public void flatMap(NodeUpdate node, Collector<GraphStoreInput> out) {
            if (!node.delete) {
                out.collect(GraphStoreInput.of(GraphUpdate.of(node)));
                return;
            }
            for (int route : routes) {
                out.collect(GraphStoreInput.of(new VertexDeletion(node.id, route)));
            }
        }
    }

    /** Brings the graph events of all store subtasks to the single scheduler's loop head. */
    public static final class GatherEvents implements MapFunction<GraphEvent, GraphEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public GraphEvent map(GraphEvent event) {
            return event;
        }
    }

    /**
     * Keys that reach chosen subtasks: {@code keyOf(i)} is the smallest non-negative integer that
     * Flink's key-group assignment sends to subtask {@code i} of {@code parallelism} (at {@code
     * maxParallelism}). Keyed edges route by it where a custom partitioner would do: Flink
     * checkpoints custom-partitioned edges aligned, and an aligned barrier that blocks a channel of
     * a loop deadlocks the loop.
     */
    public static final class SubtaskKeys implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final int[] keys;

        public SubtaskKeys(int maxParallelism, int parallelism) {
            keys = new int[parallelism];
            java.util.Arrays.fill(keys, -1);
            int found = 0;
            for (int k = 0; found < parallelism; k++) {
                int subtask =
                        KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                k, maxParallelism, parallelism);
                if (keys[subtask] < 0) {
                    keys[subtask] = k;
                    found++;
                }
            }
        }

        public int keyOf(int subtask) {
            return keys[subtask];
        }

        public int parallelism() {
            return keys.length;
        }
    }

    /**
     * Routes a batch part to the subtask of its trainer rank. A part of a rank beyond the current
     * count (of a batch begun before a restore at fewer ranks) goes to rank {@code trainer mod T},
     * which drops it.
     */
    public static final class PartTrainer implements KeySelector<MiniBatchPart, Integer> {
        private static final long serialVersionUID = 1L;
        private final SubtaskKeys ranks;

        public PartTrainer(SubtaskKeys ranks) {
            this.ranks = ranks;
        }

        @Override
        public Integer getKey(MiniBatchPart part) {
            return ranks.keyOf(part.trainer % ranks.parallelism());
        }
    }

    /** Routes a gradient contribution to reducer subtask {@code chunk % reducers}. */
    public static final class ChunkReducer implements KeySelector<GradientChunk, Integer> {
        private static final long serialVersionUID = 1L;
        private final SubtaskKeys reducers;

        public ChunkReducer(SubtaskKeys reducers) {
            this.reducers = reducers;
        }

        @Override
        public Integer getKey(GradientChunk chunk) {
            return reducers.keyOf(chunk.chunk % reducers.parallelism());
        }
    }

    /** Lets no record through: the input of an iteration that carries its feedback only. */
    public static final class NoRecords<T> implements FilterFunction<T> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean filter(T value) {
            return false;
        }
    }

    /**
     * Passes records on unchanged: changes a stream's parallelism where a feedback edge needs it.
     */
    public static final class Identity<T> implements MapFunction<T, T> {
        private static final long serialVersionUID = 1L;

        @Override
        public T map(T value) {
            return value;
        }
    }

    /** One prediction per vertex from the trainer's per-block records. */
    public static final class SplitPredictions
            implements FlatMapFunction<PredictionBatch, Prediction> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(PredictionBatch batch, Collector<Prediction> out) {
            for (Prediction p : batch.split()) {
                out.collect(p);
            }
        }
    }
}
