package io.gnnstream.benchmarks;

import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.state.serialization.BulkArrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeutils.base.array.FloatPrimitiveArraySerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Micro-benchmarks of the state and serialization pieces the sampling loop spends its time in, each
 * next to the straightforward alternative: bulk array serialization against Flink's element-wise
 * array serializer (a mini-batch's features), a vertex record's feature copy, and the slot choice
 * behind O(fanout) neighbour sampling of a hub.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class StateBenchmarks {

    @Param({"128", "262144"})
    int floats;

    private float[] features;
    private byte[] bulkBytes;
    private byte[] flinkBytes;
    private byte[] record;
    private byte[] gather;
    private final DataOutputSerializer out = new DataOutputSerializer(1 << 20);
    private final SplittableRandom random = new SplittableRandom(1);

    @Setup
    public void setup() throws Exception {
        features = new float[floats];
        for (int i = 0; i < floats; i++) {
            features[i] = (float) random.nextGaussian();
        }
        out.clear();
        BulkArrays.writeFloats(features, out);
        bulkBytes = out.getCopyOfBuffer();
        out.clear();
        FloatPrimitiveArraySerializer.INSTANCE.serialize(features, out);
        flinkBytes = out.getCopyOfBuffer();
        record = VertexRecord.encode(new NodeUpdate(7, features, 3, Split.TRAIN));
        gather = new byte[floats * Float.BYTES];
    }

    @Benchmark
    public int writeBulk() throws Exception {
        out.clear();
        BulkArrays.writeFloats(features, out);
        return out.length();
    }

    @Benchmark
    public int writeFlinkElementWise() throws Exception {
        out.clear();
        FloatPrimitiveArraySerializer.INSTANCE.serialize(features, out);
        return out.length();
    }

    @Benchmark
    public float[] readBulk() throws Exception {
        return BulkArrays.readFloats(new DataInputDeserializer(bulkBytes));
    }

    @Benchmark
    public float[] readFlinkElementWise() throws Exception {
        return FloatPrimitiveArraySerializer.INSTANCE.deserialize(
                new DataInputDeserializer(flinkBytes));
    }

    @Benchmark
    public byte[] gatherFromVertexRecord() {
        VertexRecord.copyFeatureBytes(record, gather, 0);
        return gather;
    }

    /**
     * Slot choice for fanout 25 from a hub of 10^6 neighbours: cost must not depend on the degree.
     */
    @Benchmark
    public int[] chooseSlotsOfHub() {
        return InAdjacency.chooseSlots(1_000_000, 25, random);
    }
}
