package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pin assembly's and the pause's rules and the incremental-prediction state's encoding, apart
 * from the GraphStore (the protocol simulation runs them end to end: {@code
 * IncrementalSimulationTest}).
 */
@Timeout(30)
class IncrementalStateTest {

    private static final float[] PARAMS = {1f, 2f, 3f};

    @Test
    void aRoundOfEveryRankIsPinnedOnceEachRankSent() {
        PinAssembly a = new PinAssembly();
        assertFalse(add(a, LayerOutputs.pins(7, 1, 2, null, new int[] {0})));
        assertTrue(add(a, LayerOutputs.pins(7, 0, 2, PARAMS, new int[] {0})));
        assertArrayEquals(PARAMS, a.parameters());
    }

    @Test
    void rankZeroAloneNamesOneRankWhateverTheOldRanksSent() {
        PinAssembly a = new PinAssembly();
        // Old rank 2 of 3 had scored its share before the restore at another trainer count.
        assertFalse(add(a, LayerOutputs.pins(7, 2, 3, null, new int[] {0})));
        // The round issued again all on rank 0: its records name one rank.
        assertTrue(add(a, LayerOutputs.pins(7, 0, 1, PARAMS, new int[] {0})));
    }

    @Test
    void anOlderRoundsPinEndsNoPauseOfANewerRound() throws Exception {
        ModelConfig model =
                ModelConfig.builder()
                        .modelType(ModelType.SAGE)
                        .inFeatures(2)
                        .hidden(4)
                        .numClasses(3)
                        .numLayers(2)
                        .seed(1)
                        .build();
        IncrementalPredictions inc = engine(model);
        float[] params = GnnModel.create(model).parameterVector();
        inc.roundRuns(5);
        inc.roundRuns(6);
        assertTrue(inc.paused());
        for (LayerOutputs pin : LayerOutputs.pins(5, 0, 1, params, new int[] {0})) {
            inc.pin(pin);
        }
        assertEquals(5, inc.pinnedStep());
        assertTrue(inc.paused(), "round 6 still reads the graph and writes rows");
        for (LayerOutputs pin : LayerOutputs.pins(6, 0, 1, params, new int[] {0})) {
            inc.pin(pin);
        }
        assertFalse(inc.paused());
        assertEquals(6, inc.state().newestRound());
    }

    @Test
    void stateRoundTripsAndReadsVersionOne() throws Exception {
        PinAssembly partial = new PinAssembly(9, 2, new float[] {4f}, bits(0), bits(1));
        IncrementalState s =
                new IncrementalState(
                        7,
                        3,
                        PARAMS,
                        true,
                        true,
                        9,
                        new long[][] {{5, 6}, {}},
                        new long[][] {{50, 60}, {}},
                        new long[] {9, RoundArrivals.NEXT_ROUND},
                        new long[][] {{11}, {12, 13}},
                        new long[][] {{110}, {120, 130}},
                        partial,
                        new byte[] {FanOuts.VERSION, 0, 0, 0, 0});
        IncrementalState d = IncrementalState.decode(s.encode());
        assertEquals(9, d.newestRound());
        assertEquals(3, d.generation());
        assertArrayEquals(s.fanOuts(), d.fanOuts());
        assertArrayEquals(s.arrivalRounds(), d.arrivalRounds());
        assertArrayEquals(s.arrived()[1], d.arrived()[1]);
        assertArrayEquals(s.arrivedAt()[1], d.arrivedAt()[1]);
        assertArrayEquals(s.pending()[0], d.pending()[0]);
        assertEquals(9, d.assembly().step());

        IncrementalState v1 = IncrementalState.decode(versionOne(7, true));
        assertEquals(7, v1.pinnedStep());
        assertEquals(2, v1.generation());
        assertArrayEquals(PARAMS, v1.pinnedParams());
        assertTrue(v1.paused(), "a paused state of version 1 stays paused");
        assertEquals(7, v1.newestRound(), "version 1 has no newest round: the pinned one");
        assertEquals(0, v1.arrivalRounds().length);
        assertEquals(2, v1.pending().length);
        assertEquals(-1, v1.assembly().step());
    }

    private static IncrementalPredictions engine(ModelConfig model) {
        VertexPartitioner partitioner = new HashPartitioner(4);
        MemoryStateStore state = new MemoryStateStore();
        LayerOutputStore rows =
                new LayerOutputStore(state, partitioner, state::setCurrentKey, 1 << 10, j -> 0);
        NeighbourSums sums =
                new NeighbourSums(state, partitioner, state::setCurrentKey, 2, 1 << 10);
        IncrementalPredictions.Graph none =
                new IncrementalPredictions.Graph() {
                    @Override
                    public long[] inNeighbours(long v) {
                        return new long[0];
                    }

                    @Override
                    public long[] outNeighbours(long u) {
                        return new long[0];
                    }

                    @Override
                    public float[] features(long v) {
                        return null;
                    }

                    @Override
                    public int label(long v) {
                        return MiniBatch.ABSENT;
                    }
                };
        return new IncrementalPredictions(model, false, -1, rows, sums, none, () -> 0L);
    }

    private static boolean add(PinAssembly a, List<LayerOutputs> records) {
        boolean done = false;
        for (LayerOutputs r : records) {
            done = a.add(r);
        }
        return done;
    }

    private static BitSet bits(int i) {
        BitSet b = new BitSet();
        b.set(i);
        return b;
    }

    /** A state as version 1 wrote it: pinned at generation 2, no marks, no pin records. */
    private static byte[] versionOne(long pinned, boolean paused) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(1);
        out.writeLong(pinned);
        out.writeLong(2);
        out.writeInt(PARAMS.length);
        for (float f : PARAMS) {
            out.writeFloat(f);
        }
        out.writeBoolean(paused);
        out.writeBoolean(true);
        out.writeInt(2);
        out.writeInt(0);
        out.writeInt(0);
        out.writeLong(-1);
        out.writeInt(0);
        out.writeInt(-1);
        out.writeInt(0);
        out.writeInt(0);
        out.flush();
        return bytes.toByteArray();
    }
}
