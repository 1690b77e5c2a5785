package io.gnnstream.benchmarks;

import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link InAdjacency} (tail value plus 64-neighbour blocks) on a real RocksDB keyed backend, next
 * to a naive layout: one {@code ListState<Long>} per vertex, appended with {@code add()} and read
 * whole to sample. Also the cost of one per-vertex feature read, which bounds the sampling loop
 * once neighbours are chosen. Every operation includes switching the current key.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class AdjacencyBenchmarks {

    static final ListStateDescriptor<Long> LIST =
            new ListStateDescriptor<>("adj-list", LongSerializer.INSTANCE);
    static final ValueStateDescriptor<byte[]> FEATURES =
            new ValueStateDescriptor<>("vertex-attributes", BytePrimitiveArraySerializer.INSTANCE);

    /** Both layouts holding the same 10^5 edges, spread over vertices of exactly {@code degree}. */
    @State(Scope.Thread)
    public static class Sampling {

        static final int EDGES = 100_000;

        @Param({"8", "64", "1000", "100000"})
        int degree;

        @Param({"10", "25"})
        int fanout;

        KeyedRocksDb db;
        InAdjacency blocks;
        ListState<Long> list;
        int vertices;
        final SplittableRandom random = new SplittableRandom(1);

        @Setup(Level.Trial)
        public void setup() throws Exception {
            db = new KeyedRocksDb();
            blocks = InAdjacency.of(db.store());
            list = db.store().getListState(LIST);
            vertices = EDGES / degree;
            long neighbour = 0;
            for (int v = 0; v < vertices; v++) {
                db.setKey(v);
                for (int i = 0; i < degree; i++, neighbour++) {
                    blocks.add(neighbour);
                    list.add(neighbour);
                }
            }
            db.compact(InAdjacency.TAIL, InAdjacency.BLOCKS, InAdjacency.SLOTS, LIST);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            db.close();
        }
    }

    /** Both layouts, empty at the start of the trial; every insert brings a new neighbour id. */
    public abstract static class Inserting {

        KeyedRocksDb db;
        InAdjacency blocks;
        ListState<Long> list;
        long edges;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            db = new KeyedRocksDb();
            blocks = InAdjacency.of(db.store());
            list = db.store().getListState(LIST);
        }

        /** Switches to the vertex of the next edge and returns the edge's (new) neighbour. */
        abstract long next();

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            db.close();
        }
    }

    /**
     * {@link #VERTICES} vertices in a random order in which each of them gets {@link #PER_VERTEX}
     * neighbours per pass, so degrees stay low and RocksDB sees no locality.
     */
    @State(Scope.Thread)
    public static class ManyVertices extends Inserting {

        static final int VERTICES = 100_000;
        static final int PER_VERTEX = 10;

        final int[] order = new int[VERTICES * PER_VERTEX];

        public ManyVertices() {
            SplittableRandom random = new SplittableRandom(2);
            for (int i = 0; i < order.length; i++) {
                int j = random.nextInt(i + 1);
                order[i] = order[j];
                order[j] = i % VERTICES;
            }
        }

        @Override
        long next() {
            db.setKey(order[(int) (edges % order.length)]);
            return edges++;
        }

        @TearDown(Level.Trial)
        public void report() {
            System.out.printf(
                    "%n%,d edges inserted, mean degree %.1f%n", edges, (double) edges / VERTICES);
        }
    }

    /** One vertex whose degree grows by every insert. */
    @State(Scope.Thread)
    public static class Hub extends Inserting {

        @Override
        long next() {
            db.setKey(0);
            return edges++;
        }

        @TearDown(Level.Trial)
        public void report() {
            System.out.printf("%nhub degree %,d%n", edges);
        }
    }

    /**
     * One {@link VertexRecord} of 128 features per vertex, read for random vertices: 10^4 records
     * (5 MiB) fit Flink's default 8 MiB RocksDB block cache, 10^5 do not.
     */
    @State(Scope.Thread)
    public static class Features {

        static final int DIM = 128;

        @Param({"10000", "100000"})
        int vertices;

        KeyedRocksDb db;
        ValueState<byte[]> attributes;
        final SplittableRandom random = new SplittableRandom(3);

        @Setup(Level.Trial)
        public void setup() throws Exception {
            db = new KeyedRocksDb();
            attributes = db.store().getState(FEATURES);
            float[] features = new float[DIM];
            for (int v = 0; v < vertices; v++) {
                for (int i = 0; i < DIM; i++) {
                    features[i] = (float) random.nextGaussian();
                }
                db.setKey(v);
                attributes.update(
                        VertexRecord.encode(new NodeUpdate(v, features, v % 7, Split.TRAIN)));
            }
            db.compact(FEATURES);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            db.close();
        }
    }

    @Benchmark
    public long[] sampleBlocks(Sampling s) throws Exception {
        s.db.setKey(s.random.nextInt(s.vertices));
        return s.blocks.sample(s.fanout, s.random);
    }

    /**
     * The naive sample: deserialize the whole list, then choose the same slots as the block layout.
     */
    @Benchmark
    public long[] sampleList(Sampling s) throws Exception {
        s.db.setKey(s.random.nextInt(s.vertices));
        List<Long> all = new ArrayList<>();
        for (Long neighbour : s.list.get()) {
            all.add(neighbour);
        }
        int k = Math.min(s.fanout, all.size());
        int[] slots = k == all.size() ? null : InAdjacency.chooseSlots(all.size(), k, s.random);
        long[] out = new long[k];
        for (int i = 0; i < k; i++) {
            out[i] = all.get(slots == null ? i : slots[i]);
        }
        return out;
    }

    @Benchmark
    public boolean insertManyBlocks(ManyVertices s) throws Exception {
        return s.blocks.add(s.next());
    }

    /** Appends without a duplicate check: the list's add is a RocksDB merge, never a read. */
    @Benchmark
    public void insertManyList(ManyVertices s) throws Exception {
        s.list.add(s.next());
    }

    @Benchmark
    public boolean insertHubBlocks(Hub s) throws Exception {
        return s.blocks.add(s.next());
    }

    @Benchmark
    public void insertHubList(Hub s) throws Exception {
        s.list.add(s.next());
    }

    @Benchmark
    public byte[] featureGet(Features s) throws Exception {
        s.db.setKey(s.random.nextInt(s.vertices));
        return s.attributes.value();
    }
}
