package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.LayerOutputs;
import java.util.BitSet;

/**
 * The pin records of one round as they arrive ({@link LayerOutputs#pins}): rank 0's parameter
 * chunks and every rank's record. Complete once each of the round's ranks has sent all its records;
 * a record of a newer round starts over, one of an older round is ignored. Rank 0 computes every
 * round, so its records name the round's ranks: after a restore at another trainer count, a round
 * issued again all on rank 0 completes with rank 0's records alone (they name one rank), whatever
 * the old ranks' records of that round said.
 */
final class PinAssembly {

    private long step = -1;
    private int trainers;
    private float[] params;
    private BitSet chunks = new BitSet();
    private BitSet ranks = new BitSet();

    PinAssembly() {}

    PinAssembly(long step, int trainers, float[] params, BitSet chunks, BitSet ranks) {
        this.step = step;
        this.trainers = trainers;
        this.params = params;
        this.chunks = chunks;
        this.ranks = ranks;
    }

    /** Takes {@code record}; true when the round's pin is complete. */
    boolean add(LayerOutputs record) {
        if (record.step < step) {
            return false;
        }
        if (record.step > step) {
            step = record.step;
            trainers = record.dim;
            params = null;
            chunks = new BitSet();
            ranks = new BitSet();
        }
        int rank = record.roundIndex;
        if (rank == 0) {
            trainers = record.dim;
            int total = (int) record.vertices[1];
            if (params == null) {
                params = new float[total];
            }
            System.arraycopy(
                    record.values, 0, params, (int) record.vertices[0], record.values.length);
            chunks.set(record.part);
            if (chunks.cardinality() == record.parts) {
                ranks.set(0);
            }
        } else {
            ranks.set(rank);
        }
        return params != null && ranks.nextClearBit(0) >= trainers;
    }

    long step() {
        return step;
    }

    int trainers() {
        return trainers;
    }

    /** Rank 0's parameters (partly filled until complete), or null. */
    float[] parameters() {
        return params;
    }

    BitSet chunks() {
        return chunks;
    }

    BitSet ranks() {
        return ranks;
    }
}
