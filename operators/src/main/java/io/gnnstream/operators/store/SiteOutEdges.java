package io.gnnstream.operators.store;

import com.carrotsearch.hppc.BitMixer;
import com.carrotsearch.hppc.ByteArrayList;
import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.sorting.IndirectSort;
import io.gnnstream.state.VertexKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;

/**
 * The out-edges of this site's vertices, grouped by source, so incremental predictions find the
 * vertices that have {@code u} as an in-neighbour (docs/design.md, "Incremental predictions").
 *
 * <p>Sources are hashed into a fixed number of buckets, chosen when the index is built (an eighth
 * of the edge buffer, at least {@link #MIN_BUCKETS}) and kept under the holder's anchor. A bucket
 * is a list of blocks under {@code VertexKey(holder, bucket)}; a block is a run of records {@code
 * source, target} ({@code source, -1 - target} for a removal) in the order the changes came.
 * Changes are staged on the heap until {@link #STAGED_PER_BUCKET} per bucket wait, a read or a
 * snapshot; then each bucket they touch gets one block (a RocksDB merge, no read), so ingestion
 * pays a write per about {@link #STAGED_PER_BUCKET} edges instead of one per edge. A read of a
 * source's targets replays its bucket's records and caches every source's targets it found on the
 * heap (in the clock order of {@link VertexValueCache}, until a change of the source is written); a
 * bucket is rewritten as one block of its live edges when a read finds many removals in it or when
 * {@link #COMPACT_AFTER_REMOVALS} removals were appended to it since, and its blocks are joined
 * into one when a read finds many of them. Kept with the adjacency once {@link #build} ran; made
 * for one parallelism.
 */
final class SiteOutEdges {

    static final ListStateDescriptor<long[]> STATE =
            new ListStateDescriptor<>(
                    "site-out-edge-blocks", LongPrimitiveArraySerializer.INSTANCE);

    /** Under the holder's anchor: the number of buckets, present once the index is built. */
    static final ValueStateDescriptor<Integer> BUCKETS =
            new ValueStateDescriptor<>("site-out-edge-buckets", IntSerializer.INSTANCE);

    /** The index's layout before blocks: a map entry per edge under its source. */
    static final MapStateDescriptor<Long, Boolean> LEGACY =
            new MapStateDescriptor<>(
                    "site-out-edges", LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);

    static final ValueStateDescriptor<Boolean> LEGACY_BUILT =
            new ValueStateDescriptor<>("site-out-edges-built", BooleanSerializer.INSTANCE);

    static final int MIN_BUCKETS = 1024;

    /** Removals appended to a bucket (since this subtask last rewrote it) that rewrite it. */
    static final int COMPACT_AFTER_REMOVALS = 256;

    /**
     * A read rewrites the bucket once its removals are at least this fraction (its inverse) of its
     * records: below that, replaying them costs less than rewriting the bucket at every read.
     */
    static final int COMPACT_AT_REMOVED_SHARE = 8;

    /** Blocks a read tolerates before it rewrites the bucket. */
    static final int COMPACT_AFTER_BLOCKS = 64;

    /**
     * Staged changes per bucket, on average, at which they are written: the edges a merge carries
     * while edges stream in. The heap they take is bounded by {@link #MAX_STAGED}.
     */
    static final int STAGED_PER_BUCKET = 32;

    /** Staged changes that are written at once whatever the bucket count (17 bytes each). */
    static final int MAX_STAGED = 1 << 20;

    /**
     * Cache bytes a bucket's read may add per long of its records where it caches all its sources
     * (a target's 8 bytes, and an entry's overhead shared by a source's records).
     */
    private static final int FILL_BYTES_PER_RECORD = 8;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final KeyedStateStore store;
    private final ListState<long[]> blocks;
    private final ValueState<Integer> bucketState;
    private final CurrentKey keys;
    private final int holder;
    private final int preferredBuckets;
    private int buckets;
    private int[] removalsSince;

    /** Staged changes at which {@link #stage} writes them. */
    private int stagedBound = MAX_STAGED;

    /** Staged changes: source, target and whether it is an addition, in arrival order. */
    private final LongArrayList stagedSources = new LongArrayList();

    private final LongArrayList stagedTargets = new LongArrayList();
    private final ByteArrayList stagedAdds = new ByteArrayList();

    /**
     * Each source's targets as a bucket's read found them (little-endian longs, ascending), until a
     * change of the source is written; null where there is no cache.
     */
    private final VertexValueCache cache;

    private final long cacheBytes;

    /**
     * @param bufferEdges the edge buffer's capacity, from which a new index takes its bucket count
     * @param cacheBytes heap for the targets of the sources read last (0: none)
     */
    SiteOutEdges(
            KeyedStateStore store, CurrentKey keys, int holder, int bufferEdges, long cacheBytes) {
        this(store, keys, holder, bufferEdges, cacheBytes, MIN_BUCKETS);
    }

    /** As above, with at least {@code minBuckets} buckets in a new index (tests take few). */
    SiteOutEdges(
            KeyedStateStore store,
            CurrentKey keys,
            int holder,
            int bufferEdges,
            long cacheBytes,
            int minBuckets) {
        this.store = store;
        this.blocks = store.getListState(STATE);
        this.bucketState = store.getState(BUCKETS);
        this.keys = keys;
        this.holder = holder;
        this.preferredBuckets = Math.max(minBuckets, bufferEdges / 8);
        this.cache = cacheBytes > 0 ? new VertexValueCache(cacheBytes) : null;
        this.cacheBytes = cacheBytes;
    }

    boolean isOn() {
        return buckets > 0;
    }

    /**
     * Turns the index on, built from one {@code scan} of the adjacency where it is missing; a
     * missing index's predecessor in a restored savepoint (one map entry per edge) is dropped.
     */
    void build(boolean[] owned, OutEdgeIndex.AdjacencyScan scan, StoredKeys stored)
            throws Exception {
        keys.set(VertexKey.anchor(holder));
        Integer bucketCount = bucketState.value();
        if (bucketCount != null) {
            on(bucketCount);
            return;
        }
        List<VertexKey> legacy = stored.of(LEGACY.getName(), k -> true);
        if (!legacy.isEmpty()) {
            MapState<Long, Boolean> map = store.getMapState(LEGACY);
            for (VertexKey k : legacy) {
                keys.set(k);
                map.clear();
            }
            keys.set(VertexKey.anchor(holder));
            store.getState(LEGACY_BUILT).clear();
        }
        on(preferredBuckets);
        scan.scan(
                owned,
                (vertex, in) -> {
                    for (long u : in) {
                        stage(u, vertex.vertex(), true);
                    }
                });
        writeStaged();
        keys.set(VertexKey.anchor(holder));
        bucketState.update(buckets);
    }

    private void on(int bucketCount) {
        buckets = bucketCount;
        removalsSince = new int[bucketCount];
        stagedBound = (int) Math.min(MAX_STAGED, (long) STAGED_PER_BUCKET * bucketCount);
    }

    /**
     * Stages the addition ({@code add}) or removal of {@code source -> target}, written once enough
     * wait or at {@link #writeStaged}; nothing is staged while the index is off.
     */
    void stage(long source, long target, boolean add) throws Exception {
        if (!isOn()) {
            return;
        }
        stagedSources.add(source);
        stagedTargets.add(target);
        stagedAdds.add(add ? (byte) 1 : (byte) 0);
        if (stagedSources.size() >= stagedBound) {
            writeStaged();
        }
    }

    /** Stages the removal of every out-edge of {@code source} (a deleted vertex) to {@code to}. */
    void clear(long source, long[] to) throws Exception {
        for (long w : to) {
            stage(source, w, false);
        }
    }

    /**
     * Appends the staged changes, one block per bucket, the buckets in order (a counting sort that
     * keeps the changes' order within a bucket).
     */
    void writeStaged() throws Exception {
        int n = stagedSources.size();
        if (n == 0) {
            return;
        }
        long[] src = stagedSources.buffer;
        long[] dst = stagedTargets.buffer;
        byte[] add = stagedAdds.buffer;
        int[] bucketOf = new int[n];
        int[] start = new int[buckets + 1];
        for (int i = 0; i < n; i++) {
            bucketOf[i] = bucket(src[i]);
            start[bucketOf[i] + 1]++;
        }
        for (int b = 0; b < buckets; b++) {
            start[b + 1] += start[b];
        }
        long[] records = new long[2 * n];
        int[] next = Arrays.copyOf(start, buckets);
        int[] removals = new int[buckets];
        for (int i = 0; i < n; i++) {
            int at = 2 * next[bucketOf[i]]++;
            records[at] = src[i];
            records[at + 1] = add[i] != 0 ? dst[i] : -1 - dst[i];
            removals[bucketOf[i]] += add[i] != 0 ? 0 : 1;
        }
        if (cache != null) {
            for (int i = 0; i < n; i++) {
                cache.invalidate(src[i]);
            }
        }
        stagedSources.clear();
        stagedTargets.clear();
        stagedAdds.clear();
        for (int b = 0; b < buckets; b++) {
            if (start[b + 1] == start[b]) {
                continue;
            }
            keys.set(new VertexKey(holder, b));
            blocks.add(Arrays.copyOfRange(records, 2 * start[b], 2 * start[b + 1]));
            removalsSince[b] += removals[b];
            if (removalsSince[b] >= COMPACT_AFTER_REMOVALS) {
                compact(b, liveEdges(read()));
            }
        }
    }

    /**
     * The targets of {@code source}'s out-edges on this site, ascending (staged changes first). A
     * read of the bucket caches the source's targets, and those of every source in it while the
     * cache has room.
     */
    long[] targets(long source) throws Exception {
        writeStaged();
        if (cache != null) {
            byte[] cached = cache.get(source);
            if (cached != null) {
                long[] targets = new long[cached.length / Long.BYTES];
                for (int i = 0; i < targets.length; i++) {
                    targets[i] = (long) LONGS.get(cached, i * Long.BYTES);
                }
                return targets;
            }
        }
        int b = bucket(source);
        keys.set(new VertexKey(holder, b));
        Bucket bucket = read();
        long[] targets;
        long[] live = null;
        if (cache == null) {
            targets = replay(bucket, source);
        } else if (cache.bytes() + (long) bucket.size * FILL_BYTES_PER_RECORD <= cacheBytes) {
            live = liveEdges(bucket);
            targets = cacheAll(live, source);
        } else {
            // A full cache takes the source read only: a bucket's sources would evict, at every
            // read, far more than the reads that follow would find.
            targets = replay(bucket, source);
            cache.put(source, encode(targets, targets.length));
        }
        if (bucket.removals * COMPACT_AT_REMOVED_SHARE >= bucket.size / 2) {
            compact(b, live != null ? live : liveEdges(bucket));
        } else if (bucket.blocks > COMPACT_AFTER_BLOCKS) {
            // Few removals: the blocks joined in their order say the same, without a sort.
            blocks.update(List.of(Arrays.copyOf(bucket.records, bucket.size)));
        }
        return targets;
    }

    /** {@code source}'s targets in {@code bucket}, ascending: its records replayed in order. */
    private static long[] replay(Bucket bucket, long source) {
        LongHashSet out = new LongHashSet();
        long[] r = bucket.records;
        for (int i = 0; i < bucket.size; i += 2) {
            if (r[i] == source) {
                if (r[i + 1] >= 0) {
                    out.add(r[i + 1]);
                } else {
                    out.remove(-1 - r[i + 1]);
                }
            }
        }
        long[] targets = out.toArray();
        Arrays.sort(targets);
        return targets;
    }

    /**
     * Caches the targets of every source of a bucket's {@code live} edges ({@link #liveEdges}) and
     * returns {@code source}'s.
     */
    private long[] cacheAll(long[] live, long source) {
        long[] wanted = null;
        long[] run = new long[16];
        for (int k = 0; k < live.length; ) {
            long u = live[k];
            int size = 0;
            for (; k < live.length && live[k] == u; k += 2) {
                if (size == run.length) {
                    run = Arrays.copyOf(run, 2 * size);
                }
                run[size++] = live[k + 1];
            }
            cache.put(u, encode(run, size));
            if (u == source) {
                wanted = Arrays.copyOf(run, size);
            }
        }
        if (wanted == null) {
            cache.put(source, new byte[0]); // none in the bucket: none to read next time either
            wanted = new long[0];
        }
        return wanted;
    }

    /**
     * {@code bucket}'s live edges as {@code source, target} pairs sorted by source, then target:
     * its records in a stable order by edge, so that the last of each edge's records says whether
     * it is there.
     */
    private static long[] liveEdges(Bucket bucket) {
        long[] r = bucket.records;
        int n = bucket.size / 2;
        int[] order = byEdge(r, n);
        long[] live = new long[2 * n];
        int kept = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            long t = target(r[2 * i + 1]);
            boolean lastOfEdge =
                    k + 1 == n
                            || r[2 * order[k + 1]] != r[2 * i]
                            || target(r[2 * order[k + 1] + 1]) != t;
            if (lastOfEdge && r[2 * i + 1] >= 0) {
                live[2 * kept] = r[2 * i];
                live[2 * kept + 1] = t;
                kept++;
            }
        }
        return Arrays.copyOf(live, 2 * kept);
    }

    private static byte[] encode(long[] targets, int n) {
        byte[] value = new byte[n * Long.BYTES];
        for (int i = 0; i < n; i++) {
            LONGS.set(value, i * Long.BYTES, targets[i]);
        }
        return value;
    }

    private static long target(long record) {
        return record >= 0 ? record : -1 - record;
    }

    /** Indices of the {@code n} records in {@code r} in a stable order by source, then target. */
    private static int[] byEdge(long[] r, int n) {
        return IndirectSort.mergesort(
                0,
                n,
                (x, y) -> {
                    int c = Long.compare(r[2 * x], r[2 * y]);
                    return c != 0 ? c : Long.compare(target(r[2 * x + 1]), target(r[2 * y + 1]));
                });
    }

    /** A bucket's records, read under the current key. */
    private record Bucket(long[] records, int size, int blocks, int removals) {}

    private Bucket read() throws Exception {
        Iterable<long[]> stored = blocks.get();
        LongArrayList all = new LongArrayList();
        int count = 0;
        int removals = 0;
        if (stored != null) {
            for (long[] block : stored) {
                all.add(block, 0, block.length);
                count++;
                for (int i = 1; i < block.length; i += 2) {
                    removals += block[i] < 0 ? 1 : 0;
                }
            }
        }
        return new Bucket(all.buffer, all.size(), count, removals);
    }

    /** Rewrites bucket {@code b} (the current key) as one block, its {@code live} edges. */
    private void compact(int b, long[] live) throws Exception {
        if (live.length == 0) {
            blocks.clear();
        } else {
            blocks.update(List.of(live));
        }
        removalsSince[b] = 0;
    }

    private int bucket(long source) {
        return (int) Long.remainderUnsigned(BitMixer.mix64(source), buckets);
    }
}
