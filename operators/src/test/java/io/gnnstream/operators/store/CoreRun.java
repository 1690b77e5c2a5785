package io.gnnstream.operators.store;

import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link StoreScenario} on the {@link GraphStore} alone, on a {@link MemoryStateStore}, fed
 * as the operator feeds it; a restore starts a new store from deep copies of the state.
 */
final class CoreRun {

    private MemoryStateStore state = new MemoryStateStore();
    private MemoryListState<Integer> haloSites = new MemoryListState<>();
    private GraphStore store;
    private final StoreOutputs out = new StoreOutputs();

    private CoreRun() throws Exception {
        store = start(false);
    }

    /** The scenario's outputs, one line per record, and a line per step. */
    static List<String> run(StoreScenario scenario) throws Exception {
        return new CoreRun().steps(scenario);
    }

    private GraphStore start(boolean restored) throws Exception {
        return new GraphStore(
                StoreScenario.PARTITIONER,
                StoreScenario.CONFIG,
                GraphStoreOperator.siteOf(
                        StoreScenario.PARTITIONS,
                        StoreScenario.PARTITIONS,
                        StoreScenario.PARALLELISM,
                        StoreScenario.SUBTASK),
                state,
                state::setCurrentKey,
                state::keys,
                haloSites,
                restored,
                null);
    }

    private List<String> steps(StoreScenario scenario) throws Exception {
        List<String> lines = new ArrayList<>();
        int n = 0;
        for (StoreScenario.Step step : scenario.steps()) {
            lines.add("step " + n++);
            switch (step.action()) {
                case INPUT -> apply(step.input());
                case TIMER -> store.publishSizes(out);
                case SNAPSHOT -> store.snapshot();
                case RESTORE -> {
                    store.snapshot();
                    state = state.copy();
                    haloSites = haloSites.copy();
                    store = start(true);
                }
            }
            drain(lines);
        }
        return lines;
    }

    /** As the operator dispatches an input (it drains after each request; this at the end). */
    private void apply(GraphStoreInput input) throws Exception {
        if (input instanceof GraphStoreInput.Requests bundle) {
            for (SampleRequest request : bundle.requests()) {
                if (store.accepts(request)) {
                    store.answer(request, out);
                }
            }
        } else if (input instanceof GraphStoreInput.Outputs outputs) {
            if (store.accepts(outputs.outputs())) {
                store.write(outputs.outputs(), out);
            }
        } else if (input instanceof GraphStoreInput.Update update) {
            store.applyUpdate(input.storeKey(StoreScenario.PARTITIONER), update.update(), out);
        } else if (input instanceof GraphStoreInput.Edges edges) {
            store.applyEdges(edges.bundle());
        } else if (input instanceof GraphStoreInput.Replica replica) {
            store.applyReplica(replica.message());
        } else {
            store.applyDeletion(((GraphStoreInput.Deletion) input).deletion().vertex, out);
        }
    }

    private void drain(List<String> lines) throws Exception {
        for (MiniBatchPart part : out.parts()) {
            lines.add(StoreScenario.part(part));
        }
        for (SampleResponse response : out.responses()) {
            lines.add(StoreScenario.response(response));
        }
        for (GraphEvent event : out.events()) {
            lines.add(StoreScenario.event(event));
        }
        for (PredictionBatch d : out.deletions()) {
            lines.add(StoreScenario.deleted(d.vertices[0], d.step));
        }
        out.clear();
    }
}
