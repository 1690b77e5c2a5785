package io.gnnstream.jobs;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Decides when a failure repeats: the job's failures, each with the time the JobManager recorded it
 * and its cause's key ({@link FailureCause#key}), and its progress (a completed checkpoint at a
 * time the JobManager recorded, or a training step further than any before) come in; the streak is
 * the failures in a row with the same key and no progress between them. It is {@link #exhausted}
 * once it holds {@code limit} failures: the job failed the same way at that many restores in a row
 * without getting further, and will again.
 *
 * <p>Progress may be learnt after a later failure (the JobManager's views are cached for a few
 * seconds), so {@link #progressAt} drops the failures before that time from the streak instead of
 * clearing it; {@link #progress} (a training step further than any before, seen by the client)
 * clears it. A failure of the environment ({@link FailureCause#environmental}: a lost TaskManager,
 * missing slots, a network or RPC timeout, an expired checkpoint, a retriable Kafka error) ends the
 * streak and starts none: those are what Flink's restarts with growing delays are for.
 */
final class FailureStreak {

    private final int limit;

    /** JobManager times of the streak's failures, oldest first. */
    private final Deque<Long> times = new ArrayDeque<>();

    /** JobManager time of the latest progress known. */
    private long progressedAt = Long.MIN_VALUE;

    private String key;
    private String description;

    /** {@code limit}: failures in a row that end the job; 0: never. */
    FailureStreak(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        this.limit = limit;
    }

    /**
     * A failure at JobManager time {@code at}; failures come in the order of their times. One from
     * before the latest progress ({@link #progressAt}) is past and ignored.
     */
    void failure(long at, FailureCause cause) {
        if (at < progressedAt) {
            return;
        }
        if (cause.environmental()) {
            times.clear();
            key = null;
            description = null;
            return;
        }
        if (!cause.key().equals(key)) {
            times.clear();
            key = cause.key();
        }
        description = cause.description();
        times.addLast(at);
    }

    /** Progress at JobManager time {@code at}: the failures before it no longer count. */
    void progressAt(long at) {
        progressedAt = Math.max(progressedAt, at);
        while (!times.isEmpty() && times.peekFirst() < at) {
            times.removeFirst();
        }
    }

    /** Progress after every failure so far. */
    void progress() {
        times.clear();
    }

    /** Failures in the current streak. */
    int length() {
        return times.size();
    }

    /** Whether the streak has reached the limit. */
    boolean exhausted() {
        return limit > 0 && times.size() >= limit;
    }

    /** The streak's cause in one line, or null before a failure. */
    String description() {
        return times.isEmpty() ? null : description;
    }
}
