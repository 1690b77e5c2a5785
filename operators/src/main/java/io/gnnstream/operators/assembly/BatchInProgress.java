package io.gnnstream.operators.assembly;

/** A batch an assembler is building: its builder, and when it last made progress. */
final class BatchInProgress {

    final BatchBuilder builder;

    /** Processing time of the batch's last response, start or re-send. */
    long lastProgress;

    BatchInProgress(BatchBuilder builder, long lastProgress) {
        this.builder = builder;
        this.lastProgress = lastProgress;
    }
}
