package io.gnnstream.jobs.internal;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;

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
            return input.update != null
                    ? partitioner.keyOf(input.update.ownerVertex())
                    : VertexKey.anchor(input.requests[0].route);
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

    public static final class EdgeToStoreInput implements MapFunction<EdgeUpdate, GraphStoreInput> {
        private static final long serialVersionUID = 1L;

        @Override
        public GraphStoreInput map(EdgeUpdate edge) {
            return GraphStoreInput.of(GraphUpdate.of(edge));
        }
    }

    public static final class NodeToStoreInput implements MapFunction<NodeUpdate, GraphStoreInput> {
        private static final long serialVersionUID = 1L;

        @Override
        public GraphStoreInput map(NodeUpdate node) {
            return GraphStoreInput.of(GraphUpdate.of(node));
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

    /** Sends a record to the subtask its key names (a rank or a chunk id, modulo the subtasks). */
    public static final class ToRank implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int numPartitions) {
            return Math.floorMod(key, numPartitions);
        }
    }

    /** The trainer rank a batch part is for. */
    public static final class PartTrainer implements KeySelector<MiniBatchPart, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(MiniBatchPart part) {
            return part.trainer;
        }
    }

    /** The chunk a gradient contribution is for (reducer subtask = chunk modulo reducers). */
    public static final class ChunkId implements KeySelector<GradientChunk, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(GradientChunk chunk) {
            return chunk.chunk;
        }
    }

    /** Passes records on unchanged: changes a stream's parallelism where a feedback edge needs it. */
    public static final class Identity<T> implements MapFunction<T, T> {
        private static final long serialVersionUID = 1L;

        @Override
        public T map(T value) {
            return value;
        }
    }
}
