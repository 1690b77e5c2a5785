package io.gnnstream.jobs.topology;

import static io.gnnstream.jobs.topology.TopologySettings.LOOP_BUFFER_TIMEOUT_MS;

import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.Wiring;
import io.gnnstream.operators.BatchAssembler;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.SeedScheduler;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.VertexKeyTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.IterativeStream;
import org.apache.flink.streaming.api.datastream.IterativeStream.ConnectedIterativeStreams;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Builds loop 1, the sampling loop (docs/design.md, "Dataflow"): the GraphStore, the seed scheduler
 * at the head of loop 2 and the batch assembler, whose sample requests go back to the GraphStore on
 * the feedback edge. {@link #open} builds the operators, {@link #close} the feedback edge once the
 * trainer's layer outputs are known, {@link #closeCredits} loop 2's.
 */
public final class SamplingLoop {

    private final IterativeStream<GraphStoreInput> head;
    private final SingleOutputStreamOperator<SampleResponse> store;
    private final ConnectedIterativeStreams<GraphEvent, Credit> creditHead;
    private final SingleOutputStreamOperator<GraphStoreInput> requests;
    private final int parallelism;

    private SamplingLoop(
            IterativeStream<GraphStoreInput> head,
            SingleOutputStreamOperator<SampleResponse> store,
            ConnectedIterativeStreams<GraphEvent, Credit> creditHead,
            SingleOutputStreamOperator<GraphStoreInput> requests,
            int parallelism) {
        this.head = head;
        this.store = store;
        this.creditHead = creditHead;
        this.requests = requests;
        this.parallelism = parallelism;
    }

    /**
     * The GraphStore on {@code input} and the loop's requests, the scheduler on its graph events
     * and loop 2's credits, and the assembler on the scheduler's specs and the GraphStore's
     * responses.
     */
    public static SamplingLoop open(TopologySettings settings, Ingest.GraphInput input) {
        ReadableConfig conf = settings.conf();
        int parallelism = settings.scale().parallelism();
        // The first head carries the requests only, across a forward edge into sampling-requests:
        // Flink keeps no channel state for an iteration head, so a record in flight on a keyed edge
        // out of it would be lost at a restore, and one cut in two would corrupt the channel
        // (docs/design.md, "Checkpoints and restore"). A forward edge is checkpointed aligned.
        IterativeStream<GraphStoreInput> head =
                input.bundles()
                        .filter(new Wiring.NoRecords<>())
                        .uid("sampling-loop-input")
                        .name("sampling-loop-input")
                        .setParallelism(parallelism)
                        .iterate(0);
        DataStream<GraphStoreInput> loopRequests =
                head.map(new Wiring.Identity<GraphStoreInput>())
                        .returns(GraphStoreInputSerializer.TYPE_INFO)
                        .uid("sampling-requests")
                        .name("sampling-requests")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        SingleOutputStreamOperator<SampleResponse> store =
                input.updates()
                        .union(loopRequests)
                        .keyBy(
                                new Wiring.StoreInputKey(settings.partitioner()),
                                VertexKeyTypeInfo.INSTANCE)
                        .transform(
                                "graph-store",
                                SampleResponseSerializer.TYPE_INFO,
                                new GraphStoreOperator(
                                                settings.partitioner(), settings.storeConfig())
                                        .withFaults(settings.faults()))
                        .uid("graph-store")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);

        DataStream<GraphEvent> events =
                store.getSideOutput(GraphStoreOperator.EVENTS)
                        .rebalance()
                        .map(new Wiring.GatherEvents())
                        .returns(GraphEvent.class)
                        .uid("graph-events")
                        .name("graph-events")
                        .setParallelism(1);
        ConnectedIterativeStreams<GraphEvent, Credit> creditHead =
                events.iterate(0).withFeedbackType(TypeInformation.of(Credit.class));
        SingleOutputStreamOperator<BatchSpec> specs =
                creditHead
                        .transform(
                                "seed-scheduler",
                                TypeInformation.of(BatchSpec.class),
                                new SeedScheduler(settings.schedulerConfig()))
                        .uid("seed-scheduler")
                        .setParallelism(1)
                        .setMaxParallelism(1)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);

        SingleOutputStreamOperator<GraphStoreInput> requests =
                specs.connect(store)
                        .keyBy(new Wiring.SpecKey(), new Wiring.ResponseKey(), Types.LONG)
                        .transform(
                                "batch-assembler",
                                GraphStoreInputSerializer.TYPE_INFO,
                                new BatchAssembler(
                                                settings.fanouts(),
                                                conf.get(GraphOptions.NUM_FEATURES),
                                                settings.partitioner(),
                                                parallelism,
                                                conf.get(SamplingOptions.BATCH_TIMEOUT_MS),
                                                conf.get(SamplingOptions.MAX_OUTSTANDING_VERTICES))
                                        .withHalo(settings.halo())
                                        .withLayerWidths(settings.roundRowWidths(false))
                                        .withEvalFanout(conf.get(SamplingOptions.EVAL_FANOUT)))
                        .uid("batch-assembler")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        return new SamplingLoop(head, store, creditHead, requests, parallelism);
    }

    /**
     * The GraphStore: sampled neighbours, and feature parts, events and deletions on side outputs.
     */
    public SingleOutputStreamOperator<SampleResponse> store() {
        return store;
    }

    /** The assembler: sample requests, and batch heads on {@link BatchAssembler#BATCHES}. */
    public SingleOutputStreamOperator<GraphStoreInput> requests() {
        return requests;
    }

    /**
     * Closes loop 1 with the assembler's requests and, where they do not go through a channel of
     * their own ({@code layerOutputs} not null), the trainer's layer outputs (docs/design.md,
     * "Evaluation").
     */
    public void close(DataStream<GraphStoreInput> layerOutputs) {
        if (layerOutputs == null) {
            head.closeWith(requests);
            return;
        }
        head.closeWith(
                requests.union(
                        layerOutputs
                                .rebalance()
                                .map(new Wiring.Identity<GraphStoreInput>())
                                .returns(GraphStoreInputSerializer.TYPE_INFO)
                                .uid("layer-outputs")
                                .name("layer-outputs")
                                .setParallelism(parallelism)
                                .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS)));
    }

    /** Closes loop 2: the ranks' {@code credits} reach the scheduler. */
    public void closeCredits(DataStream<Credit> credits) {
        creditHead.closeWith(credits);
    }
}
