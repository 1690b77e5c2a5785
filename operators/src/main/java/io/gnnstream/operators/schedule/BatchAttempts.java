package io.gnnstream.operators.schedule;

import io.gnnstream.operators.messages.BatchSpec;

/**
 * The assembler role's rules for a batch's attempts (docs/design.md, "Glossary" and
 * "BatchAssembler"), free of Flink. An assembler keeps the spec and the attempt number of an
 * unfinished batch as state and its partial subgraph on the heap only. A spec that comes again
 * while the batch is in progress is ignored; a restored batch whose partial subgraph was lost is
 * sampled again from hop 1 as a new attempt, at once if the scheduler issued it again (a newer
 * generation), else when its timer finds it; a batch that made no progress for the timeout sends
 * its pending requests again. Attempts of a newer generation are numbered above all attempts of
 * earlier ones, so the trainer can drop the parts of earlier attempts.
 */
public final class BatchAttempts {

    /** What a spec that arrives does. */
    public enum OnSpec {
        /** The batch is in progress, or a restored one of the same generation: nothing. */
        IGNORE,
        /** A new batch: start its first attempt. */
        START,
        /** A restored batch issued again: start the next attempt now. */
        RESTART
    }

    /** What a batch's timer does. */
    public enum OnTimer {
        /** The batch is finished or progressing. */
        NONE,
        /** Its partial subgraph was lost in a restore: start the next attempt. */
        RESTART,
        /** It made no progress for the timeout: send its pending requests again. */
        RESEND
    }

    /** What a trainer does with a part of a batch it is joining. */
    public enum OnPart {
        /** The first part seen, or one of a later attempt: join it, dropping any earlier one. */
        BEGIN,
        /** A part of the attempt being joined. */
        JOIN,
        /** A part of an earlier attempt (restored, or replayed from a checkpoint): dropped. */
        DROP
    }

    private BatchAttempts() {}

    /**
     * {@code spec} arrives for a batch that is {@code inProgress} on the heap or has the spec
     * {@code stored} in state (null: none).
     */
    public static OnSpec onSpec(BatchSpec spec, boolean inProgress, BatchSpec stored) {
        if (inProgress) {
            return OnSpec.IGNORE;
        }
        if (stored != null) {
            return spec.generation > stored.generation ? OnSpec.RESTART : OnSpec.IGNORE;
        }
        return OnSpec.START;
    }

    /**
     * The timer of a batch with spec {@code stored} (null: finished) fires; {@code idleMs} since
     * its last progress when {@code inProgress}.
     */
    public static OnTimer onTimer(
            BatchSpec stored, boolean inProgress, long idleMs, long timeoutMs) {
        if (stored == null) {
            return OnTimer.NONE;
        }
        if (!inProgress) {
            return OnTimer.RESTART;
        }
        return idleMs >= timeoutMs ? OnTimer.RESEND : OnTimer.NONE;
    }

    /** The first attempt of {@code spec}: above those of its earlier generations. */
    public static int first(BatchSpec spec) {
        return spec.generation << 16;
    }

    /** The attempt after {@code previous} (null: none yet) for {@code spec}. */
    public static int next(Integer previous, BatchSpec spec) {
        return Math.max(previous == null ? 0 : previous + 1, first(spec) + 1);
    }

    /**
     * A part of attempt {@code attempt} arrives for a batch whose parts of attempt {@code joining}
     * are being joined (null: none yet).
     */
    public static OnPart onPart(Integer joining, int attempt) {
        if (joining == null || joining < attempt) {
            return OnPart.BEGIN;
        }
        return joining > attempt ? OnPart.DROP : OnPart.JOIN;
    }
}
