package io.gnnstream.operators.assembly;

import com.carrotsearch.hppc.LongIntHashMap;
import java.util.Arrays;

/**
 * A batch's node numbering: its vertices in the order they were first reached, and each vertex's
 * number. The map is primitive, since boxed lookups would be the assembler's main cost.
 */
final class NodeNumbering {

    private long[] nodes;
    private int size;
    private final LongIntHashMap index;

    /** Room for {@code capacity} nodes up front: growing is a noticeable share of the work. */
    NodeNumbering(int capacity) {
        this.nodes = new long[capacity];
        this.index = new LongIntHashMap(capacity);
    }

    /** Nodes numbered so far. */
    int size() {
        return size;
    }

    /** The vertex of node {@code n}. */
    long vertex(int n) {
        return nodes[n];
    }

    /** The number of a vertex already numbered (0 for one that is not). */
    int get(long vertex) {
        return index.get(vertex);
    }

    /** The number of {@code vertex}, numbering it next if it is new. */
    int numberOf(long vertex) {
        int slot = index.indexOf(vertex);
        if (index.indexExists(slot)) {
            return index.indexGet(slot);
        }
        if (size == nodes.length) {
            nodes = Arrays.copyOf(nodes, nodes.length * 2);
        }
        nodes[size] = vertex;
        index.indexInsert(slot, vertex, size);
        return size++;
    }

    /** Vertex ids of the node numbers {@code numbers[from..to-1]}. */
    long[] vertices(int[] numbers, int from, int to) {
        long[] out = new long[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = nodes[numbers[i]];
        }
        return out;
    }

    /** The vertices of all nodes, in number order. */
    long[] ids() {
        return Arrays.copyOf(nodes, size);
    }
}
