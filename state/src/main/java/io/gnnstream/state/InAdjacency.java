package io.gnnstream.state;

import com.carrotsearch.hppc.IntHashSet;
import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.LongIntHashMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;

/**
 * In-neighbour list of the current vertex, laid out for keyed state (RocksDB).
 *
 * <p>Neighbours occupy dense slots {@code 0..degree-1}. The last 1 to {@link #BLOCK_SIZE} of them
 * live in a <em>tail</em> value together with the degree ({@code [degree, n...]}); the slots before
 * it are full blocks ({@code block index -> long[BLOCK_SIZE]}). Most vertices have fewer than
 * {@code BLOCK_SIZE} in-neighbours, so an insert or a sample costs one read (and an insert one
 * write) of a single value. Above {@code BLOCK_SIZE} neighbours a reverse index {@code neighbour ->
 * slot} keeps the duplicate check and deletes O(1); below it the tail is scanned instead, which is
 * cheaper than an index lookup per edge. The index is built lazily, by one scan, the first time a
 * vertex needs it (a delete, or an insert of few neighbours into many), and kept up to date from
 * then on, marked by {@link #INDEXED} in the tail's header: a bulk load, whose inserts check
 * duplicates against a scan of the present neighbours, writes no index entry at all (index writes
 * would be a large share of the GraphStore's ingestion work), and the build costs one write per
 * neighbour already present, so inserts and deletes stay O(1) amortised.
 *
 * <p>Insert appends to the tail and moves a full tail into the blocks (O(1)); delete moves the last
 * neighbour into the freed slot (O(1)); uniform sampling of {@code k} neighbours without
 * replacement draws {@code k} distinct slots (Floyd's algorithm) and reads only the blocks holding
 * them, so a hub with millions of neighbours costs at most {@code k} block reads. Slot order
 * depends only on the order of updates for this vertex, which the loaders keep stable by keying
 * edge records by destination.
 *
 * <p>Tail and blocks are stored as little-endian bytes and read in place: a sample of {@code k}
 * neighbours decodes {@code k} longs, not the whole tail or block (decoding whole {@code long[]}
 * values element by element would cost the GraphStore time on every sample).
 *
 * <p>Operates on whatever key is current in the keyed backend; callers switch keys.
 */
public final class InAdjacency {

    public static final int BLOCK_SIZE = 64;

    /**
     * Present neighbours read per new one, up to which the duplicate check scans them all instead
     * of looking each new neighbour up in the index: about what an index lookup (a RocksDB point
     * read) costs against reading a 64-neighbour block in a prefix scan and hashing its entries.
     */
    static final int SCAN_PER_NEW_NEIGHBOUR = 16;

    /**
     * Flag in the tail's header word (above the degree in its low 32 bits): the index holds every
     * neighbour of this vertex. Without it the vertex has no index entries.
     */
    static final long INDEXED = 1L << 32;

    /** Up to this many draws a linear scan beats hashing when checking for repeats. */
    private static final int SMALL_SAMPLE = 32;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    public static final ValueStateDescriptor<byte[]> TAIL =
            new ValueStateDescriptor<>("adj-tail", BytePrimitiveArraySerializer.INSTANCE);
    public static final MapStateDescriptor<Integer, byte[]> BLOCKS =
            new MapStateDescriptor<>(
                    "adj-blocks", IntSerializer.INSTANCE, BytePrimitiveArraySerializer.INSTANCE);
    public static final MapStateDescriptor<Long, Integer> SLOTS =
            new MapStateDescriptor<>("adj-slots", LongSerializer.INSTANCE, IntSerializer.INSTANCE);

    private final ValueState<byte[]> tail;
    private final MapState<Integer, byte[]> blocks;
    private final MapState<Long, Integer> slots;
    private long blocksRead;

    private InAdjacency(
            ValueState<byte[]> tail,
            MapState<Integer, byte[]> blocks,
            MapState<Long, Integer> slots) {
        this.tail = tail;
        this.blocks = blocks;
        this.slots = slots;
    }

    /**
     * The adjacency over the states {@link #TAIL}, {@link #BLOCKS} and {@link #SLOTS} of {@code
     * store}.
     */
    public static InAdjacency of(KeyedStateStore store) {
        return new InAdjacency(
                store.getState(TAIL), store.getMapState(BLOCKS), store.getMapState(SLOTS));
    }

    public int degree() throws Exception {
        return degreeOf(tail.value());
    }

    /** Adds {@code neighbour}; returns false (and changes nothing) if it is already present. */
    public boolean add(long neighbour) throws Exception {
        return addAll(new long[] {neighbour}) == 1;
    }

    /**
     * Adds {@code neighbours} in order, skipping those already present (also repeats within the
     * array); returns how many were added. Reads and writes the tail once for the whole array, so
     * buffered edges of one vertex cost one read-modify-write instead of one per edge, and writes
     * the new index entries of an indexed vertex in one write batch.
     *
     * <p>When the vertex reaches more than {@link #BLOCK_SIZE} neighbours, the duplicate check
     * reads all present neighbours (the blocks in one prefix scan) into a set if it had at most
     * {@code BLOCK_SIZE} or at most {@link #SCAN_PER_NEW_NEIGHBOUR} per new one, and otherwise
     * looks each new neighbour up in the index, building the index first if the vertex has none.
     */
    public int addAll(long[] neighbours) throws Exception {
        byte[] t = tail.value();
        int d = degreeOf(t);
        boolean indexed = isIndexed(t);
        int added = 0;
        byte[] next =
                t == null
                        ? new byte[(1 + Math.min(neighbours.length, BLOCK_SIZE)) * Long.BYTES]
                        : Arrays.copyOf(
                                t,
                                (1 + Math.min(count(t) - 1 + neighbours.length, BLOCK_SIZE))
                                        * Long.BYTES);
        int inTail = d - (d == 0 ? 0 : (d - 1) / BLOCK_SIZE * BLOCK_SIZE);
        boolean scan =
                d + neighbours.length > BLOCK_SIZE
                        && (d <= BLOCK_SIZE
                                || d <= (long) SCAN_PER_NEW_NEIGHBOUR * neighbours.length);
        LongHashSet present = scan ? presentNeighbours(t, d) : null;
        if (!scan && d > BLOCK_SIZE && !indexed) {
            buildIndex(t, d);
            indexed = true;
        }
        Map<Long, Integer> newSlots = new HashMap<>();
        for (long neighbour : neighbours) {
            boolean duplicate;
            if (present != null) {
                duplicate = !present.add(neighbour);
            } else if (d <= BLOCK_SIZE) {
                duplicate = indexInTail(next, inTail, neighbour) >= 0;
            } else {
                duplicate = newSlots.containsKey(neighbour) || slots.contains(neighbour);
            }
            if (duplicate) {
                continue;
            }
            if (inTail == BLOCK_SIZE) {
                blocks.put(
                        d / BLOCK_SIZE - 1,
                        Arrays.copyOfRange(next, Long.BYTES, (1 + BLOCK_SIZE) * Long.BYTES));
                inTail = 0;
            }
            set(next, 1 + inTail, neighbour);
            inTail++;
            if (indexed) {
                newSlots.put(neighbour, d);
            }
            d++;
            added++;
        }
        if (!newSlots.isEmpty()) {
            slots.putAll(newSlots);
        }
        if (added > 0) {
            byte[] value = Arrays.copyOf(next, (1 + inTail) * Long.BYTES);
            set(value, 0, header(d, indexed));
            tail.update(value);
        }
        return added;
    }

    /** All {@code d} neighbours of the current vertex, whose tail is {@code t}, as a set. */
    private LongHashSet presentNeighbours(byte[] t, int d) throws Exception {
        LongHashSet out = new LongHashSet(d);
        byte[] all = allNeighbours(t);
        for (int s = 0; s < d; s++) {
            out.add(get(all, 1 + s));
        }
        return out;
    }

    /**
     * Writes the index of the current vertex, whose tail is {@code t} and degree {@code d}: every
     * neighbour with its slot. The caller marks the tail {@link #INDEXED} when it next writes it.
     */
    private void buildIndex(byte[] t, int d) throws Exception {
        Map<Long, Integer> index = new HashMap<>(2 * d);
        byte[] all = allNeighbours(t);
        for (int s = 0; s < d; s++) {
            index.put(get(all, 1 + s), s);
        }
        slots.putAll(index);
    }

    /**
     * The current vertex's neighbours in slot order, laid out as a tail holding all of them: the
     * tail {@code t} itself when it does, else its header, the blocks (read in one prefix scan) and
     * its neighbours.
     */
    private byte[] allNeighbours(byte[] t) throws Exception {
        if (!readsBlocks(t)) {
            return t;
        }
        int d = degreeOf(t);
        int inBlocks = d - (count(t) - 1);
        byte[] all = new byte[(1 + d) * Long.BYTES];
        for (Map.Entry<Integer, byte[]> block : blocks.entries()) {
            System.arraycopy(
                    block.getValue(),
                    0,
                    all,
                    (1 + block.getKey() * BLOCK_SIZE) * Long.BYTES,
                    BLOCK_SIZE * Long.BYTES);
        }
        blocksRead += inBlocks / BLOCK_SIZE;
        System.arraycopy(t, 0, all, 0, Long.BYTES);
        System.arraycopy(
                t, Long.BYTES, all, (1 + inBlocks) * Long.BYTES, (d - inBlocks) * Long.BYTES);
        return all;
    }

    /**
     * Removes {@code neighbour}; returns false if it was not present. Above {@link #BLOCK_SIZE}
     * neighbours this builds the vertex's index first if it has none.
     */
    public boolean remove(long neighbour) throws Exception {
        byte[] t = tail.value();
        int d = degreeOf(t);
        int slot;
        if (d > BLOCK_SIZE) {
            if (!isIndexed(t)) {
                buildIndex(t, d);
            }
            Integer indexedSlot = slots.get(neighbour);
            if (indexedSlot == null) {
                if (!isIndexed(t)) {
                    set(t, 0, header(d, true));
                    tail.update(t);
                }
                return false;
            }
            slot = indexedSlot;
        } else {
            int i = indexInTail(t, neighbour);
            if (i < 0) {
                return false;
            }
            slot = i - 1;
        }
        int last = d - 1;
        int inTail = count(t) - 1;
        int inBlocks = d - inTail;
        long moved = get(t, inTail);
        if (slot != last) {
            if (slot >= inBlocks) {
                set(t, 1 + slot - inBlocks, moved);
            } else {
                byte[] block = readBlock(slot / BLOCK_SIZE);
                set(block, slot % BLOCK_SIZE, moved);
                blocks.put(slot / BLOCK_SIZE, block);
            }
            if (d > BLOCK_SIZE) {
                slots.put(moved, slot);
            }
        }
        if (d > BLOCK_SIZE) {
            slots.remove(neighbour);
        }
        if (last == 0) {
            tail.clear();
            return true;
        }
        byte[] next;
        if (inTail == 1) {
            int lastBlock = inBlocks / BLOCK_SIZE - 1;
            byte[] block = readBlock(lastBlock);
            blocks.remove(lastBlock);
            next = new byte[(1 + BLOCK_SIZE) * Long.BYTES];
            System.arraycopy(block, 0, next, Long.BYTES, block.length);
        } else {
            next = Arrays.copyOf(t, t.length - Long.BYTES);
        }
        if (last == BLOCK_SIZE) {
            slots.clear();
        }
        set(next, 0, header(last, last > BLOCK_SIZE));
        tail.update(next);
        return true;
    }

    /**
     * Applies additions ({@code op >= 0}: neighbour {@code op}) and removals ({@code op < 0}:
     * neighbour {@code -1 - op}) in order, exactly as {@link #addAll} and {@link #remove} one after
     * the other would (same slots); returns the change of the degree. Additions alone go to {@link
     * #addAll}. With removals, a vertex without an index whose blocks cost at most {@link
     * #SCAN_PER_NEW_NEIGHBOUR} reads per operation is read whole (tail and blocks in one prefix
     * scan), changed in memory and written back: the tail and the blocks that changed. Others (an
     * indexed vertex, or few operations on a hub) apply the runs of additions and each removal in
     * turn.
     */
    public int applyAll(long[] ops) throws Exception {
        int additions = 0;
        for (long op : ops) {
            additions += op >= 0 ? 1 : 0;
        }
        if (additions == ops.length) {
            return addAll(ops);
        }
        byte[] t = tail.value();
        int d = degreeOf(t);
        if (!isIndexed(t) && d / BLOCK_SIZE <= (long) SCAN_PER_NEW_NEIGHBOUR * ops.length) {
            return applyInMemory(t, d, ops, additions);
        }
        int change = 0;
        for (int i = 0; i < ops.length; ) {
            if (ops[i] < 0) {
                change -= remove(-1 - ops[i]) ? 1 : 0;
                i++;
                continue;
            }
            int j = i;
            while (j < ops.length && ops[j] >= 0) {
                j++;
            }
            change += addAll(Arrays.copyOfRange(ops, i, j));
            i = j;
        }
        return change;
    }

    /**
     * {@link #applyAll} on the whole list in memory: an addition appends a neighbour not present, a
     * removal moves the last neighbour into the freed slot.
     */
    private int applyInMemory(byte[] t, int d, long[] ops, int additions) throws Exception {
        byte[] all = t == null ? null : allNeighbours(t);
        long[] list = new long[d + additions];
        LongIntHashMap slotOf = new LongIntHashMap(2 * (d + additions));
        for (int i = 0; i < d; i++) {
            list[i] = get(all, 1 + i);
            slotOf.put(list[i], i);
        }
        int n = d;
        for (long op : ops) {
            long v = op >= 0 ? op : -1 - op;
            int at = slotOf.getOrDefault(v, -1);
            if (op >= 0 && at < 0) {
                slotOf.put(v, n);
                list[n++] = v;
            } else if (op < 0 && at >= 0) {
                slotOf.remove(v);
                long moved = list[--n];
                if (at != n) {
                    list[at] = moved;
                    slotOf.put(moved, at);
                }
            }
        }
        int oldBlocks = d == 0 ? 0 : (d - (count(t) - 1)) / BLOCK_SIZE;
        if (n == 0) {
            if (t != null) {
                clear();
            }
            return -d;
        }
        int inTail = (n - 1) % BLOCK_SIZE + 1;
        int newBlocks = (n - inTail) / BLOCK_SIZE;
        for (int b = 0; b < newBlocks; b++) {
            boolean same = b < oldBlocks;
            for (int i = 0; same && i < BLOCK_SIZE; i++) {
                same = get(all, 1 + b * BLOCK_SIZE + i) == list[b * BLOCK_SIZE + i];
            }
            if (!same) {
                byte[] block = new byte[BLOCK_SIZE * Long.BYTES];
                for (int i = 0; i < BLOCK_SIZE; i++) {
                    set(block, i, list[b * BLOCK_SIZE + i]);
                }
                blocks.put(b, block);
            }
        }
        for (int b = newBlocks; b < oldBlocks; b++) {
            blocks.remove(b);
        }
        byte[] next = new byte[(1 + inTail) * Long.BYTES];
        set(next, 0, header(n, false));
        for (int i = 0; i < inTail; i++) {
            set(next, 1 + i, list[newBlocks * BLOCK_SIZE + i]);
        }
        tail.update(next);
        return n - d;
    }

    /** Every neighbour, in slot order. */
    public long[] neighbours() throws Exception {
        return sample(tail.value(), -1, null);
    }

    /** Removes every neighbour (and the index, if the vertex has one). */
    public void clear() throws Exception {
        byte[] t = tail.value();
        if (t == null) {
            return;
        }
        if (degreeOf(t) > count(t) - 1) {
            blocks.clear();
        }
        if (isIndexed(t)) {
            slots.clear();
        }
        tail.clear();
    }

    /**
     * Samples up to {@code fanout} distinct neighbours uniformly ({@code fanout < 0}: all of them),
     * in slot order. Reads only the blocks that hold the chosen slots.
     */
    public long[] sample(int fanout, SplittableRandom random) throws Exception {
        return sample(tail.value(), fanout, random);
    }

    /**
     * The current vertex's tail value as stored (degree and last neighbours), or null without
     * neighbours; with at most {@code flatDegree} neighbours, all of them laid out as one tail
     * (read with the blocks in one prefix scan), so sampling it reads no blocks. Callers that cache
     * it pass it back to {@link #sample(byte[], int, SplittableRandom)} and must drop it whenever
     * they change this vertex's adjacency.
     */
    public byte[] tail(int flatDegree) throws Exception {
        byte[] t = tail.value();
        return degreeOf(t) > flatDegree ? t : allNeighbours(t);
    }

    /** The degree recorded in {@code tail}, a value read by {@link #tail(int)} (null: none). */
    public static int degree(byte[] tail) {
        return degreeOf(tail);
    }

    /**
     * Every neighbour in slot order, from a tail read earlier by {@link #tail(int)}; the blocks, if
     * {@link #readsBlocks} says so, in one prefix scan of the current key, which must then be the
     * tail's vertex.
     */
    public long[] neighbours(byte[] t) throws Exception {
        int d = degreeOf(t);
        byte[] all = d == 0 ? null : allNeighbours(t);
        long[] out = new long[d];
        for (int s = 0; s < d; s++) {
            out[s] = get(all, 1 + s);
        }
        return out;
    }

    /**
     * Whether sampling from {@code tail} reads blocks, so needs its vertex to be the current key.
     */
    public static boolean readsBlocks(byte[] tail) {
        return degreeOf(tail) > 0 && degreeOf(tail) > count(tail) - 1;
    }

    /**
     * {@link #sample(int, SplittableRandom)} from a tail read earlier by {@link #tail(int)} (null
     * or empty: no neighbours); blocks, if {@link #readsBlocks} says so, are read from the current
     * key, which must then be the tail's vertex.
     */
    public long[] sample(byte[] t, int fanout, SplittableRandom random) throws Exception {
        int d = degreeOf(t);
        if (d == 0) {
            return new long[0];
        }
        int inBlocks = d - (count(t) - 1);
        if (fanout < 0 || fanout >= d) {
            long[] all = new long[d];
            for (int s = 0; s < inBlocks; s += BLOCK_SIZE) {
                byte[] block = readBlock(s / BLOCK_SIZE);
                for (int i = 0; i < BLOCK_SIZE; i++) {
                    all[s + i] = get(block, i);
                }
            }
            for (int s = inBlocks; s < d; s++) {
                all[s] = get(t, 1 + s - inBlocks);
            }
            return all;
        }
        int[] chosen = chooseSlots(d, fanout, random);
        long[] out = new long[fanout];
        int currentIndex = -1;
        byte[] current = null;
        for (int i = 0; i < fanout; i++) {
            int s = chosen[i];
            if (s >= inBlocks) {
                out[i] = get(t, 1 + s - inBlocks);
                continue;
            }
            if (s / BLOCK_SIZE != currentIndex) {
                currentIndex = s / BLOCK_SIZE;
                current = readBlock(currentIndex);
            }
            out[i] = get(current, s % BLOCK_SIZE);
        }
        return out;
    }

    /**
     * Total number of full blocks read by this instance (the tail not counted), for tests and
     * metrics.
     */
    public long blocksRead() {
        return blocksRead;
    }

    /**
     * Floyd's algorithm: a uniformly random {@code k}-subset of {@code [0, n)} with exactly {@code
     * k} draws, returned sorted.
     */
    public static int[] chooseSlots(int n, int k, SplittableRandom random) {
        int[] chosen = new int[k];
        IntHashSet large = k > SMALL_SAMPLE ? new IntHashSet(2 * k) : null;
        int size = 0;
        for (int j = n - k; j < n; j++) {
            int t = random.nextInt(j + 1);
            boolean seen;
            if (large != null) {
                seen = !large.add(t);
                if (seen) {
                    large.add(j);
                }
            } else {
                seen = false;
                for (int i = 0; i < size && !seen; i++) {
                    seen = chosen[i] == t;
                }
            }
            chosen[size++] = seen ? j : t;
        }
        Arrays.sort(chosen);
        return chosen;
    }

    private static int degreeOf(byte[] t) {
        return t == null || t.length == 0 ? 0 : (int) get(t, 0);
    }

    private static boolean isIndexed(byte[] t) {
        return t != null && t.length > 0 && (get(t, 0) & INDEXED) != 0;
    }

    private static long header(int degree, boolean indexed) {
        return indexed ? degree | INDEXED : degree;
    }

    /** Position of {@code neighbour} in the tail (1-based, after the degree), or -1. */
    private static int indexInTail(byte[] t, long neighbour) {
        return t == null ? -1 : indexInTail(t, count(t) - 1, neighbour);
    }

    /**
     * Position of {@code neighbour} among the first {@code size} tail entries of {@code t}, or -1.
     */
    private static int indexInTail(byte[] t, int size, long neighbour) {
        for (int i = size; i >= 1; i--) {
            if (get(t, i) == neighbour) {
                return i;
            }
        }
        return -1;
    }

    private static int count(byte[] longs) {
        return longs.length / Long.BYTES;
    }

    private static long get(byte[] longs, int index) {
        return (long) LONGS.get(longs, index * Long.BYTES);
    }

    private static void set(byte[] longs, int index, long value) {
        LONGS.set(longs, index * Long.BYTES, value);
    }

    private byte[] readBlock(int index) throws Exception {
        blocksRead++;
        byte[] block = blocks.get(index);
        if (block == null) {
            throw new IllegalStateException("adjacency block " + index + " missing");
        }
        return block;
    }
}
