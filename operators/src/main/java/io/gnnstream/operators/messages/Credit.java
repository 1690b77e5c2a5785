package io.gnnstream.operators.messages;

/**
 * A trainer's acknowledgement that it has consumed its batches up to {@code processedSeq}. It is
 * absolute, not a delta, so a lost credit is repaired by the next one and duplicates are harmless.
 * The first credit of a rank restored at another trainer count names the step it restored ({@code
 * RankLayout#restoredStep}).
 */
public class Credit {

    public int trainer;
    public long processedSeq;

    public Credit() {}

    public Credit(int trainer, long processedSeq) {
        this.trainer = trainer;
        this.processedSeq = processedSeq;
    }
}
