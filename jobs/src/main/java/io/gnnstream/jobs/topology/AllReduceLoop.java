package io.gnnstream.jobs.topology;

import static io.gnnstream.jobs.topology.TopologySettings.LOOP_BUFFER_TIMEOUT_MS;

import io.gnnstream.jobs.Wiring;
import io.gnnstream.operators.BatchAssembler;
import io.gnnstream.operators.GradientReducer;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.TrainerOperator;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.IterativeStream.ConnectedIterativeStreams;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Builds loop 3, the all-reduce (docs/design.md, "Dataflow", "Data-parallel training"): the trainer
 * ranks on the batch parts, the gradient reducers, and the sums back to every rank on the feedback
 * edge; and the ranks' credits back to the scheduler, which close loop 2. {@link #open} builds the
 * ranks, {@link #close} the rest.
 */
public final class AllReduceLoop {

    private final TopologySettings settings;
    private final ConnectedIterativeStreams<MiniBatchPart, ReducedChunk> head;
    private final SingleOutputStreamOperator<Credit> trainer;

    private AllReduceLoop(
            TopologySettings settings,
            ConnectedIterativeStreams<MiniBatchPart, ReducedChunk> head,
            SingleOutputStreamOperator<Credit> trainer) {
        this.settings = settings;
        this.head = head;
        this.trainer = trainer;
    }

    /**
     * The trainer ranks on the batch heads and feature parts of {@code sampling}, each routed to
     * its rank, and the reducers' sums.
     */
    public static AllReduceLoop open(TopologySettings settings, SamplingLoop sampling) {
        return open(settings, sampling, null);
    }

    /**
     * {@link #open(TopologySettings, SamplingLoop)} with {@code normalization} (may be null), the
     * feature normalisation decided on the node topic, routed to rank 0 with the parts.
     */
    public static AllReduceLoop open(
            TopologySettings settings,
            SamplingLoop sampling,
            DataStream<MiniBatchPart> normalization) {
        JobScale scale = settings.scale();
        DataStream<MiniBatchPart> parts =
                sampling.requests()
                        .getSideOutput(BatchAssembler.BATCHES)
                        .union(sampling.store().getSideOutput(GraphStoreOperator.FEATURES));
        if (normalization != null) {
            parts = parts.union(normalization);
        }
        ConnectedIterativeStreams<MiniBatchPart, ReducedChunk> head =
                parts.keyBy(
                                new Wiring.PartTrainer(
                                        new Wiring.SubtaskKeys(
                                                scale.partitions(), scale.trainers())),
                                Types.INT)
                        .map(new Wiring.Identity<MiniBatchPart>())
                        .returns(MiniBatchPartSerializer.TYPE_INFO)
                        .uid("parts-to-ranks")
                        .name("parts-to-ranks")
                        .setParallelism(scale.trainers())
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS)
                        .iterate(0)
                        .withFeedbackType(TypeInformation.of(ReducedChunk.class));
        SingleOutputStreamOperator<Credit> trainer =
                head.transform(
                                "trainer",
                                TypeInformation.of(Credit.class),
                                new TrainerOperator(
                                                settings.trainerConfig()
                                                        .withStore(settings.partitioner()))
                                        .withFaults(settings.faults()))
                        .uid("trainer")
                        .setParallelism(scale.trainers())
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        return new AllReduceLoop(settings, head, trainer);
    }

    /**
     * The trainer ranks: credits, and gradients, layer outputs, predictions and metrics on side
     * outputs.
     */
    public SingleOutputStreamOperator<Credit> trainer() {
        return trainer;
    }

    /**
     * The reducers on the ranks' gradient chunks, whose sums close this loop, and the ranks'
     * credits, which close {@code sampling}'s loop 2.
     */
    public void close(SamplingLoop sampling) {
        JobScale scale = settings.scale();
        SingleOutputStreamOperator<ReducedChunk> sums =
                trainer.getSideOutput(TrainerOperator.GRADIENTS)
                        .keyBy(
                                new Wiring.ChunkReducer(
                                        new Wiring.SubtaskKeys(
                                                scale.partitions(), scale.reducers())),
                                Types.INT)
                        .transform(
                                "gradient-reducer",
                                TypeInformation.of(ReducedChunk.class),
                                new GradientReducer(scale).withFaults(settings.faults()))
                        .uid("gradient-reducer")
                        .setParallelism(scale.reducers())
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        head.closeWith(
                sums.broadcast()
                        .map(new Wiring.Identity<ReducedChunk>())
                        .returns(ReducedChunk.class)
                        .uid("sums-to-ranks")
                        .name("sums-to-ranks")
                        .setParallelism(scale.trainers())
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS));

        sampling.closeCredits(
                trainer.rebalance()
                        .map(new Wiring.Identity<Credit>())
                        .returns(Credit.class)
                        .uid("credits")
                        .name("credits")
                        .setParallelism(1)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS));
    }
}
