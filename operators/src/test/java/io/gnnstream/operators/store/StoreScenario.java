package io.gnnstream.operators.store;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.messages.VertexDeletion;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * One input sequence for a GraphStore subtask (subtask 0 of 2, partitions 0 to 3 of 8): node
 * updates, edge bundles with duplicates and removals, single edges, halo replica messages, sample
 * requests by row and by vertex (with a heartbeat and a malformed one), split changes, the
 * statistics timer, two deletions, layer outputs (one record for another parallelism) and a layer
 * request aggregated at the owner, a snapshot, a restore, and a request that reads the whole stored
 * graph. Its outputs are written as lines, one output record each, so that two runs compare line by
 * line.
 */
final class StoreScenario {

    static final int PARTITIONS = 8;
    static final int PARALLELISM = 2;
    static final int SUBTASK = 0;
    static final int DIM = 3;
    static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);
    static final GraphStoreConfig CONFIG =
            new GraphStoreConfig(42L, DIM, 1000L, 4096, 4096, 5, 16)
                    .withHalo(true)
                    .withLayerRowCache(4096)
                    .withLayerRootWidths(2);

    /**
     * What the driver does at a step: an input, the statistics timer at a time, a snapshot, or a
     * restore from a snapshot taken then.
     */
    record Step(GraphStoreInput input, long timer, Action action) {
        static Step of(GraphStoreInput input) {
            return new Step(input, -1, Action.INPUT);
        }

        static Step timer(long time) {
            return new Step(null, time, Action.TIMER);
        }

        static Step of(Action action) {
            return new Step(null, -1, action);
        }
    }

    enum Action {
        INPUT,
        TIMER,
        SNAPSHOT,
        RESTORE
    }

    /** Vertices of the subtask's partitions (0 to 3), and of the other subtask's. */
    final long[] owned = vertices(true, 40);

    final long[] other = vertices(false, 20);

    private final List<Step> steps = new ArrayList<>();

    StoreScenario() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 30; i++) {
            input(GraphStoreInput.of(GraphUpdate.of(node(owned[i], i, Split.values()[i % 4]))));
        }
        for (int b = 0; b < 4; b++) {
            int n = b == 0 ? 120 : 30;
            long[] sources = new long[n];
            long[] ops = new long[n];
            for (int i = 0; i < n; i++) {
                long src =
                        random.nextInt(3) == 0
                                ? other[random.nextInt(other.length)]
                                : owned[random.nextInt(owned.length)];
                long dst = b == 0 && i < 100 ? owned[0] : owned[random.nextInt(20)];
                sources[i] = b == 0 && i < 90 ? 5000 + i : src;
                ops[i] = EdgeBundle.op(dst, b > 1 && random.nextInt(3) == 0);
            }
            input(GraphStoreInput.of(new EdgeBundle(0, sources, ops)));
        }
        input(GraphStoreInput.of(GraphUpdate.of(EdgeUpdate.add(other[3], owned[1]))));
        input(GraphStoreInput.of(GraphUpdate.of(EdgeUpdate.add(other[4], owned[1]))));
        input(
                GraphStoreInput.of(
                        GraphUpdate.of(
                                new EdgeUpdate(
                                        other[4], owned[1], true, EdgeUpdate.NO_TIMESTAMP))));
        for (int i = 0; i < 10; i++) {
            input(
                    GraphStoreInput.of(
                            ReplicaMessage.create(
                                    other[i],
                                    0,
                                    VertexRecord.encode(node(other[i], i, Split.TRAIN)))));
        }
        input(GraphStoreInput.of(ReplicaMessage.create(other[10], 0, null)));
        input(
                GraphStoreInput.of(
                        ReplicaMessage.push(
                                other[0], 0, VertexRecord.encode(node(other[0], 77, Split.VAL)))));
        input(GraphStoreInput.of(ReplicaMessage.drop(other[9], 0)));
        input(GraphStoreInput.of(ReplicaMessage.drop(other[15], 0)));
        input(requests(1));
        input(GraphStoreInput.of(GraphUpdate.of(node(owned[2], 50, Split.NONE))));
        input(GraphStoreInput.of(GraphUpdate.of(node(owned[3], 51, Split.values()[3 % 4]))));
        input(GraphStoreInput.of(GraphUpdate.of(node(owned[35], 52, Split.TRAIN))));
        input(requests(2));
        steps.add(Step.timer(2000));
        input(GraphStoreInput.of(new VertexDeletion(owned[5], 0)));
        input(GraphStoreInput.of(new VertexDeletion(other[1], 0)));
        input(requests(3));
        steps.add(Step.timer(4000));
        input(GraphStoreInput.of(outputs(new long[] {owned[0], owned[1], owned[2], owned[5]})));
        long[] rest = new long[15];
        for (int i = 0; i < rest.length; i++) {
            rest[i] = owned[3 + i];
        }
        input(GraphStoreInput.of(outputs(rest)));
        input(GraphStoreInput.of(outputs(new long[] {owned[20], other[2]})));
        input(GraphStoreInput.of(layerRequest()));
        steps.add(Step.of(Action.SNAPSHOT));
        input(requests(4));
        steps.add(Step.timer(6000));
        input(GraphStoreInput.of(GraphUpdate.of(node(owned[7], 60, Split.TEST))));
        steps.add(Step.of(Action.RESTORE));
        steps.add(Step.timer(8000));
        input(requests(5));
        input(GraphStoreInput.of(new VertexDeletion(owned[6], 0)));
        input(GraphStoreInput.of(audit()));
    }

    List<Step> steps() {
        return steps;
    }

    private void input(GraphStoreInput input) {
        steps.add(Step.of(input));
    }

    private static NodeUpdate node(long id, int i, Split split) {
        return new NodeUpdate(id, new float[] {i, i + 0.5f, -i}, i % 3, split);
    }

    private GraphStoreInput requests(long batch) {
        SampleRequest byRow =
                SampleRequest.sampleOnly(batch, batch, 1, 0, 0, 5, slice(owned, 0, 10))
                        .withFeatures(
                                batch,
                                0,
                                1,
                                0,
                                new long[] {owned[0], owned[1], owned[2], owned[3], owned[5]},
                                new int[] {0, 1, 2, 3, 4});
        byRow.neighbourPart = 1;
        SampleRequest all =
                SampleRequest.sampleOnly(batch, batch, 2, 0, 1, -1, slice(owned, 10, 15))
                        .withFeatures(
                                batch,
                                1,
                                1,
                                2,
                                new long[] {owned[10], owned[35], owned[2]},
                                new int[] {5, 6, 7});
        all.neighbourPart = 3;
        SampleRequest malformed =
                SampleRequest.sampleOnly(batch, batch, 2, 0, 2, 3, slice(owned, 0, 2));
        malformed.featurePart = 4;
        malformed.featureVertices = new long[] {owned[0]};
        malformed.featureRows = new int[0];
        SampleRequest sampleOnly =
                SampleRequest.sampleOnly(batch, batch + 10, 3, 0, 3, 2, slice(owned, 0, 20));
        return GraphStoreInput.of(byRow, SampleRequest.heartbeat(0), malformed, all, sampleOnly);
    }

    /**
     * Every owned vertex's whole in-adjacency and record (by row), and the neighbours' records held
     * here (by vertex): the stored graph as answers.
     */
    private SampleRequest audit() {
        int[] rows = new int[owned.length];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = i;
        }
        SampleRequest r =
                SampleRequest.sampleOnly(99, 99, 1, 0, 0, -1, owned.clone())
                        .withFeatures(99, 0, 1, 0, owned.clone(), rows);
        r.neighbourPart = 1;
        return r;
    }

    private static LayerOutputs outputs(long[] vertices) {
        LayerOutputs o = new LayerOutputs();
        o.step = 100;
        o.layer = 1;
        o.route = 0;
        o.dim = 4;
        o.vertices = vertices;
        o.values = new float[vertices.length * o.dim];
        for (int i = 0; i < o.values.length; i++) {
            o.values[i] = i * 0.25f - 1;
        }
        return o;
    }

    private SampleRequest layerRequest() {
        SampleRequest r =
                SampleRequest.sampleOnly(7, 100, 1, 0, 0, -1, slice(owned, 0, 5))
                        .withFeatures(
                                9,
                                1,
                                1,
                                0,
                                new long[] {
                                    owned[0], owned[1], owned[2], owned[3], owned[4], owned[6],
                                    owned[5]
                                },
                                new int[] {0, 1, 2, 3, 4, 5, 6});
        r.layerInput = 1;
        r.layerDim = 4;
        r.layerRootRows = 5;
        return r;
    }

    private static long[] slice(long[] values, int from, int to) {
        long[] out = new long[to - from];
        System.arraycopy(values, from, out, 0, out.length);
        return out;
    }

    private static long[] vertices(boolean owned, int n) {
        long[] out = new long[n];
        for (long v = 1, i = 0; i < n; v++) {
            if ((PARTITIONER.partition(v) < PARTITIONS / 2) == owned) {
                out[(int) i++] = v;
            }
        }
        return out;
    }

    // ---- trace ------------------------------------------------------------------------------

    static String response(SampleResponse r) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SampleResponseSerializer.INSTANCE.serialize(r, out);
        return "response " + HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    /** A feature part with its cache epoch (random per incarnation) as 1 when it has one. */
    static String part(MiniBatchPart p) throws IOException {
        MiniBatchPart copy = MiniBatchPartSerializer.INSTANCE.copy(p);
        copy.cacheEpoch = copy.cacheEpoch == MiniBatchPart.NO_CACHE ? 0 : 1;
        DataOutputSerializer out = new DataOutputSerializer(256);
        MiniBatchPartSerializer.INSTANCE.serialize(copy, out);
        return "part " + HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    static String event(GraphEvent e) {
        return String.join(
                " ",
                "event",
                String.valueOf(e.kind),
                String.valueOf(e.partition),
                String.valueOf(e.vertex),
                String.valueOf(e.split),
                String.valueOf(e.vertices),
                String.valueOf(e.edges),
                String.valueOf(e.edgesIngested),
                String.valueOf(e.replicas),
                String.valueOf(e.cutEdgesIngested),
                String.valueOf(e.step),
                String.valueOf(e.layer),
                String.valueOf(e.roundIndex),
                String.valueOf(e.part),
                String.valueOf(e.parts));
    }

    static String deleted(long vertex, long step) {
        return "deleted " + vertex + " " + step;
    }
}
