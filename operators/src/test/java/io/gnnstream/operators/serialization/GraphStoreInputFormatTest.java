package io.gnnstream.operators.serialization;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.VertexDeletion;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link GraphStoreInputSerializer} writes every kind of input as the committed fixture holds it
 * ({@code format/graph-store-input.hex}), and reads the fixture's bytes back to the same bytes: the
 * loop's records reach unaligned checkpoints as in-flight data in this format (docs/design.md,
 * "State compatibility"). The fixture of format 7 ({@code graph-store-input-v7.hex}, written by the
 * serializer before the input became one type per kind) reads as the same inputs without evaluation
 * neighbourhoods. Features' sums, a kind added within format 8, carry their incarnation; stamped
 * outputs, another, their sender's incarnation and last checkpoint.
 */
class GraphStoreInputFormatTest {

    private static final String FIXTURE = "/format/graph-store-input.hex";

    private static final String FIXTURE_V7 = "/format/graph-store-input-v7.hex";

    @Test
    void everyKindIsWrittenAsTheFixtureHoldsIt() throws Exception {
        Map<String, String> fixture = fixture(FIXTURE);
        Map<String, String> written = written(true);
        assertEquals(fixture.keySet(), written.keySet());
        for (Map.Entry<String, String> kind : written.entrySet()) {
            assertEquals(fixture.get(kind.getKey()), kind.getValue(), kind.getKey());
        }
    }

    @Test
    void theFixtureReadsBackToTheSameBytes() throws Exception {
        for (Map.Entry<String, String> kind : fixture(FIXTURE).entrySet()) {
            assertEquals(kind.getValue(), hex(read(kind.getValue())), kind.getKey());
        }
    }

    @Test
    void formatSevenReadsAsTheSameInputsWithoutEvaluationNeighbourhoods() throws Exception {
        Map<String, String> v7 = fixture(FIXTURE_V7);
        Map<String, String> written = written(false);
        written.remove("feature-sums"); // kinds format 7 did not have
        written.remove("stamped-outputs");
        assertEquals(written.keySet(), v7.keySet());
        for (Map.Entry<String, String> kind : v7.entrySet()) {
            assertEquals((byte) 7, HexFormat.of().parseHex(kind.getValue())[0], "format 7 fixture");
            assertEquals(written.get(kind.getKey()), hex(read(kind.getValue())), kind.getKey());
        }
    }

    private static GraphStoreInput read(String hex) throws IOException {
        return GraphStoreInputSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(HexFormat.of().parseHex(hex)));
    }

    /**
     * One input of every kind, by name, as hex; {@code eval}: the first request takes evaluation
     * neighbourhoods.
     */
    static Map<String, String> written(boolean eval) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, GraphStoreInput> e : samples(eval).entrySet()) {
            out.put(e.getKey(), hex(e.getValue()));
        }
        return out;
    }

    private static Map<String, GraphStoreInput> samples(boolean eval) {
        Map<String, GraphStoreInput> s = new LinkedHashMap<>();
        s.put("edge", GraphStoreInput.of(GraphUpdate.of(new EdgeUpdate(4, 5, false, 123L))));
        s.put(
                "edge-removal",
                GraphStoreInput.of(
                        GraphUpdate.of(new EdgeUpdate(6, 7, true, EdgeUpdate.NO_TIMESTAMP))));
        s.put(
                "node",
                GraphStoreInput.of(
                        GraphUpdate.of(
                                new NodeUpdate(9, new float[] {0.5f, -2f}, 3, Split.TRAIN))));
        s.put(
                "unlabelled-node",
                GraphStoreInput.of(
                        GraphUpdate.of(
                                new NodeUpdate(
                                        10, new float[0], NodeUpdate.NO_LABEL, Split.NONE))));
        SampleRequest full =
                SampleRequest.sampleOnly(11, 12, 2, 3, 1, 25, new long[] {4, 5})
                        .withFeatures(8, 1, 2, 3, new long[] {6, 7}, new int[] {9, 10});
        full.seq = 13;
        full.neighbourPart = 14;
        full.layerInput = 1;
        full.layerDim = 16;
        full.layerRootRows = 2;
        full.evalNeighbourhood = eval;
        s.put(
                "requests",
                GraphStoreInput.of(
                        full,
                        SampleRequest.sampleOnly(1, 7, 2, 5, 0, -1, new long[] {11}),
                        SampleRequest.heartbeat(6)));
        s.put(
                "replica-create",
                GraphStoreInput.of(ReplicaMessage.create(21, 8, new byte[] {1, 2, 3})));
        s.put("replica-create-absent", GraphStoreInput.of(ReplicaMessage.create(22, 8, null)));
        s.put("replica-push", GraphStoreInput.of(ReplicaMessage.push(23, 0, new byte[] {4})));
        s.put("replica-drop", GraphStoreInput.of(ReplicaMessage.drop(24, 16)));
        s.put(
                "edges",
                GraphStoreInput.of(
                        new EdgeBundle(
                                4,
                                new long[] {1, 2, 3},
                                new long[] {
                                    EdgeBundle.op(30, false),
                                    EdgeBundle.op(31, true),
                                    EdgeBundle.op(30, false)
                                })));
        LayerOutputs o = new LayerOutputs();
        o.step = 40;
        o.layer = 1;
        o.roundIndex = 2;
        o.part = 3;
        o.parts = 4;
        o.route = 5;
        o.dim = 2;
        o.vertices = new long[] {41, 42};
        o.values = new float[] {1f, 2f, 3f, -4f};
        s.put("layer-outputs", GraphStoreInput.of(o));
        s.put("deletion", GraphStoreInput.of(new VertexDeletion(50, 12)));
        LayerOutputs sums = new LayerOutputs();
        sums.step = 60;
        sums.layer = LayerOutputs.FEATURE_SUMS;
        sums.roundIndex = 1;
        sums.parts = 2;
        sums.route = 3;
        sums.dim = 3;
        sums.vertices = new long[] {61};
        sums.values = new float[] {0.5f, -1f, 2f};
        sums.incarnation = 0x123456789L;
        s.put("feature-sums", GraphStoreInput.of(sums));
        LayerOutputs stamped = new LayerOutputs();
        stamped.step = o.step;
        stamped.layer = o.layer;
        stamped.roundIndex = o.roundIndex;
        stamped.part = o.part;
        stamped.parts = o.parts;
        stamped.route = o.route;
        stamped.dim = o.dim;
        stamped.vertices = o.vertices;
        stamped.values = o.values;
        stamped.incarnation = 0x0A0B0C0DL;
        stamped.checkpoint = 77;
        s.put("stamped-outputs", GraphStoreInput.of(stamped));
        return s;
    }

    private static String hex(GraphStoreInput input) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        GraphStoreInputSerializer.INSTANCE.serialize(input, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    private static Map<String, String> fixture(String resource) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (InputStream in = GraphStoreInputFormatTest.class.getResourceAsStream(resource)) {
            for (String line :
                    new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] f = line.trim().split(" ");
                    out.put(f[0], f[1]);
                }
            }
        }
        return out;
    }
}
