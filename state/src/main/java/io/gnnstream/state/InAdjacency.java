package io.gnnstream.state;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;

/**
 * In-neighbour list of the current vertex, laid out for keyed state (RocksDB).
 *
 * <p>Neighbours occupy dense slots {@code 0..degree-1}, stored in fixed-size blocks
 * ({@code block index -> long[BLOCK_SIZE]}), plus a reverse index {@code neighbour -> slot}.
 * Insert appends to the last block (O(1)); delete moves the last neighbour into the freed slot
 * (O(1)); uniform sampling of {@code k} neighbours without replacement draws {@code k} distinct
 * slots (Floyd's algorithm) and reads only the blocks holding them, so a hub with millions of
 * neighbours costs at most {@code k} block reads. Slot order depends only on the order of
 * updates for this vertex, which the loaders keep stable by keying edge records by destination.
 *
 * <p>Operates on whatever key is current in the keyed backend; callers switch keys.
 */
public final class InAdjacency {

    public static final int BLOCK_SIZE = 64;

    /** Up to this many draws a linear scan beats hashing when checking for repeats. */
    private static final int SMALL_SAMPLE = 32;

    public static final ValueStateDescriptor<Integer> DEGREE =
            new ValueStateDescriptor<>("adj-degree", IntSerializer.INSTANCE);
    public static final MapStateDescriptor<Integer, long[]> BLOCKS =
            new MapStateDescriptor<>("adj-blocks", IntSerializer.INSTANCE, LongPrimitiveArraySerializer.INSTANCE);
    public static final MapStateDescriptor<Long, Integer> SLOTS =
            new MapStateDescriptor<>("adj-slots", LongSerializer.INSTANCE, IntSerializer.INSTANCE);

    private final ValueState<Integer> degree;
    private final MapState<Integer, long[]> blocks;
    private final MapState<Long, Integer> slots;
    private long blocksRead;

    public InAdjacency(ValueState<Integer> degree, MapState<Integer, long[]> blocks, MapState<Long, Integer> slots) {
        this.degree = degree;
        this.blocks = blocks;
        this.slots = slots;
    }

    public int degree() throws Exception {
        Integer d = degree.value();
        return d == null ? 0 : d;
    }

    /** Adds {@code neighbour}; returns false (and changes nothing) if it is already present. */
    public boolean add(long neighbour) throws Exception {
        if (slots.contains(neighbour)) {
            return false;
        }
        int d = degree();
        int blockIndex = d / BLOCK_SIZE;
        long[] block = d % BLOCK_SIZE == 0 ? new long[BLOCK_SIZE] : readBlock(blockIndex);
        block[d % BLOCK_SIZE] = neighbour;
        blocks.put(blockIndex, block);
        slots.put(neighbour, d);
        degree.update(d + 1);
        return true;
    }

    /** Removes {@code neighbour}; returns false if it was not present. */
    public boolean remove(long neighbour) throws Exception {
        Integer slot = slots.get(neighbour);
        if (slot == null) {
            return false;
        }
        int last = degree() - 1;
        long[] lastBlock = readBlock(last / BLOCK_SIZE);
        long moved = lastBlock[last % BLOCK_SIZE];
        if (slot != last) {
            long[] target = slot / BLOCK_SIZE == last / BLOCK_SIZE ? lastBlock : readBlock(slot / BLOCK_SIZE);
            target[slot % BLOCK_SIZE] = moved;
            blocks.put(slot / BLOCK_SIZE, target);
            slots.put(moved, slot);
        }
        if (last % BLOCK_SIZE == 0) {
            blocks.remove(last / BLOCK_SIZE);
        } else if (slot / BLOCK_SIZE != last / BLOCK_SIZE) {
            lastBlock[last % BLOCK_SIZE] = 0L;
            blocks.put(last / BLOCK_SIZE, lastBlock);
        }
        slots.remove(neighbour);
        if (last == 0) {
            degree.clear();
        } else {
            degree.update(last);
        }
        return true;
    }

    /**
     * Samples up to {@code fanout} distinct neighbours uniformly ({@code fanout < 0}: all of them),
     * in slot order. Reads only the blocks that hold the chosen slots.
     */
    public long[] sample(int fanout, SplittableRandom random) throws Exception {
        int d = degree();
        if (d == 0) {
            return new long[0];
        }
        if (fanout < 0 || fanout >= d) {
            long[] all = new long[d];
            for (int b = 0; b * BLOCK_SIZE < d; b++) {
                long[] block = readBlock(b);
                System.arraycopy(block, 0, all, b * BLOCK_SIZE, Math.min(BLOCK_SIZE, d - b * BLOCK_SIZE));
            }
            return all;
        }
        int[] chosen = chooseSlots(d, fanout, random);
        long[] out = new long[fanout];
        int currentIndex = -1;
        long[] current = null;
        for (int i = 0; i < fanout; i++) {
            int b = chosen[i] / BLOCK_SIZE;
            if (b != currentIndex) {
                current = readBlock(b);
                currentIndex = b;
            }
            out[i] = current[chosen[i] % BLOCK_SIZE];
        }
        return out;
    }

    /** Total number of blocks read by this instance, for tests and metrics. */
    public long blocksRead() {
        return blocksRead;
    }

    /**
     * Floyd's algorithm: a uniformly random {@code k}-subset of {@code [0, n)} with exactly
     * {@code k} draws, returned sorted.
     */
    public static int[] chooseSlots(int n, int k, SplittableRandom random) {
        int[] chosen = new int[k];
        Set<Integer> large = k > SMALL_SAMPLE ? new HashSet<>(2 * k) : null;
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

    private long[] readBlock(int index) throws Exception {
        blocksRead++;
        long[] block = blocks.get(index);
        if (block == null) {
            throw new IllegalStateException("adjacency block " + index + " missing for degree " + degree());
        }
        return block;
    }
}
