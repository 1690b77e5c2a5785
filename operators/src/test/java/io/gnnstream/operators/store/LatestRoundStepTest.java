package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A deletion names the latest round whose requests the GraphStore answered (a training step's
 * requests name none), so that the tombstone stage drops that round's predictions of the vertex; a
 * restored GraphStore names the one it had answered at the snapshot (state {@code
 * latest-round-step}), not step 0, since a rank may still predict the vertex from a block it read
 * before the checkpoint.
 */
@Timeout(30)
class LatestRoundStepTest {

    private static final int PARTITIONS = 4;
    private final VertexPartitioner partitioner = new HashPartitioner(PARTITIONS);
    private final GraphStoreConfig config = new GraphStoreConfig(1, 2, 250, 1 << 12, 1 << 12, 4, 0);
    private final StoreOutputs out = new StoreOutputs();
    private MemoryStateStore state = new MemoryStateStore();

    @Test
    void aRestoredStoreDeletesAtTheRoundItHadAnswered() throws Exception {
        GraphStore store = start(false);
        for (long v = 1; v <= 2; v++) {
            node(store, v);
        }
        SampleRequest round = SampleRequest.sampleOnly(9, 9, 1, 0, 0, -1, new long[] {1, 2});
        round.evalNeighbourhood = true;
        store.answer(round, out);
        store.applyDeletion(1, out);
        assertEquals(9, lastDeletionStep());

        store.snapshot();
        state = state.copy();
        store = start(true);
        store.applyDeletion(2, out);
        assertEquals(9, lastDeletionStep());
    }

    /**
     * A training step's requests name no round: the round of that step may read the vertex after
     * its deletion (created again), and its prediction is then fresh.
     */
    @Test
    void aTrainingStepsRequestsNameNoRound() throws Exception {
        GraphStore store = start(false);
        for (long v = 1; v <= 2; v++) {
            node(store, v);
        }
        SampleRequest round = SampleRequest.sampleOnly(5, 5, 1, 0, 0, -1, new long[] {1, 2});
        round.evalNeighbourhood = true;
        store.answer(round, out);
        store.answer(SampleRequest.sampleOnly(9, 9, 1, 0, 0, 4, new long[] {1, 2}), out);
        store.applyDeletion(1, out);
        assertEquals(5, lastDeletionStep());
    }

    private long lastDeletionStep() {
        var deletions = out.deletions();
        return deletions.get(deletions.size() - 1).step;
    }

    private GraphStore start(boolean restored) throws Exception {
        return new GraphStore(
                partitioner,
                config,
                Site.whole(PARTITIONS),
                state,
                state::setCurrentKey,
                state::keys,
                null,
                restored,
                null);
    }

    private void node(GraphStore store, long v) throws Exception {
        store.applyUpdate(
                partitioner.keyOf(v),
                GraphUpdate.of(new NodeUpdate(v, new float[] {v, 0}, 0, Split.TRAIN)),
                out);
    }
}
