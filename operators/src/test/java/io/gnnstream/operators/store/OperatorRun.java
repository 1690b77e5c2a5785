package io.gnnstream.operators.store;

import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Runs a {@link StoreScenario} on the GraphStore operator in Flink's keyed harness on RocksDB. */
final class OperatorRun {

    private OperatorRun() {}

    /** The scenario's outputs, one line per record, and a line per step. */
    static List<String> run(StoreScenario scenario) throws Exception {
        List<String> lines = new ArrayList<>();
        var h = harness();
        try {
            h.open();
            int n = 0;
            for (StoreScenario.Step step : scenario.steps()) {
                lines.add("step " + n++);
                switch (step.action()) {
                    case INPUT -> h.processElement(new StreamRecord<>(step.input()));
                    case TIMER -> h.setProcessingTime(step.timer());
                    case SNAPSHOT -> h.snapshot(n, n);
                    case RESTORE -> {
                        OperatorSubtaskState state = h.snapshot(n, n);
                        drain(h, lines);
                        h.close();
                        h = harness();
                        h.initializeState(state);
                        h.open();
                    }
                }
                drain(h, lines);
            }
        } finally {
            h.close();
        }
        return lines;
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness() throws Exception {
        KeySelector<GraphStoreInput, VertexKey> key = OperatorRun::keyOf;
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new GraphStoreOperator(StoreScenario.PARTITIONER, StoreScenario.CONFIG),
                        key,
                        VertexKeyTypeInfo.INSTANCE,
                        StoreScenario.PARTITIONS,
                        StoreScenario.PARALLELISM,
                        StoreScenario.SUBTASK);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
        rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
        h.setStateBackend(rocksDb);
        return h;
    }

    private static void drain(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            List<String> lines)
            throws Exception {
        Queue<StreamRecord<MiniBatchPart>> parts = h.getSideOutput(GraphStoreOperator.FEATURES);
        while (parts != null && !parts.isEmpty()) {
            lines.add(StoreScenario.part(parts.poll().getValue()));
        }
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                lines.add(StoreScenario.response((SampleResponse) r.getValue()));
            }
        }
        h.getOutput().clear();
        Queue<StreamRecord<GraphEvent>> events = h.getSideOutput(GraphStoreOperator.EVENTS);
        while (events != null && !events.isEmpty()) {
            lines.add(StoreScenario.event(events.poll().getValue()));
        }
        Queue<StreamRecord<PredictionBatch>> predicted =
                h.getSideOutput(GraphStoreOperator.PREDICTIONS);
        while (predicted != null && !predicted.isEmpty()) {
            PredictionBatch b = predicted.poll().getValue();
            if (b.isDeletion()) {
                lines.add(StoreScenario.deleted(b.vertices[0], b.step));
            }
        }
    }

    private static VertexKey keyOf(GraphStoreInput in) {
        return in.storeKey(StoreScenario.PARTITIONER);
    }
}
