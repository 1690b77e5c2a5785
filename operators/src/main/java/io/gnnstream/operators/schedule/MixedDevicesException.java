package io.gnnstream.operators.schedule;

/**
 * Contributions to one all-reduce sum come from ranks whose models run on different kinds of device
 * ({@code GradientChunk#device}): replicas of different kinds round differently, so their
 * parameters would drift apart however the sums are formed. Retrying does not help.
 */
public final class MixedDevicesException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** Rank {@code rankA} runs on {@code kindA}, rank {@code rankB} on {@code kindB}. */
    public MixedDevicesException(int rankA, String kindA, int rankB, String kindB) {
        super(
                "trainer ranks run on different kinds of device: rank "
                        + rankA
                        + " on "
                        + kindA
                        + ", rank "
                        + rankB
                        + " on "
                        + kindB
                        + "; replicas of different kinds round differently and cannot stay"
                        + " bit-identical: give every rank the same --device and GPU model");
    }
}
