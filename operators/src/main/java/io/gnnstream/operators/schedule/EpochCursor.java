package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.internal.StepStarts;
import io.gnnstream.state.Mix;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Where training is in its shuffled passes over the training vertices, and the step count. Each
 * epoch sorts the training vertices known at its start and permutes them with a generator seeded by
 * {@code (seed, epoch)}, so the order does not depend on arrival order. Where each step began is
 * kept ({@link StepStarts}) for as long as a restore at another trainer count may rewind to it.
 */
final class EpochCursor {

    private final long seed;
    private long epoch;
    private long[] order;
    private int position;
    private long steps;
    private final StepStarts starts;

    private EpochCursor(long seed, SchedulerState s) {
        this.seed = seed;
        this.epoch = s.epoch;
        this.order = s.epochOrder;
        this.position = s.epochPosition;
        this.steps = s.trainSteps;
        this.starts = StepStarts.restore(s.stepStarts, s.earlierEpochOrders);
    }

    static EpochCursor load(long seed, SchedulerState s) {
        return new EpochCursor(seed, s);
    }

    void store(SchedulerState s) {
        s.epoch = epoch;
        s.epochOrder = order;
        s.epochPosition = position;
        s.trainSteps = steps;
        s.stepStarts = starts.starts();
        s.earlierEpochOrders = starts.orders();
    }

    /** Training steps cut so far. */
    long steps() {
        return steps;
    }

    /**
     * Cuts the next step's seeds, up to {@code width} of the epoch's order (its last step takes
     * what is left); starts the next epoch from {@code train} when fewer than {@code minimum} are
     * left. Null when the new epoch has fewer than {@code minimum} seeds.
     */
    long[] next(int width, int minimum, Supplier<long[]> train) {
        long startEpoch = epoch;
        int startPosition = position;
        if (order == null || order.length - position < minimum) {
            starts.epochEnds(epoch, order);
            order = order(seed, epoch++, train.get());
            position = 0;
            if (order.length < minimum) {
                return null;
            }
        }
        int end = (int) Math.min(order.length, position + (long) width);
        starts.record(++steps, startEpoch, startPosition);
        long[] slice = Arrays.copyOfRange(order, position, end);
        position = end;
        return slice;
    }

    /** Forgets where the steps before {@code step} began. */
    void dropStartsBefore(long step) {
        starts.dropBefore(step);
    }

    /**
     * Continues after step {@code k}: the position goes back to where step {@code k + 1} began
     * (when it was cut) and the count to {@code k}; the kept step starts are cleared.
     *
     * @throws IllegalStateException if where step {@code k + 1} began is not known
     */
    void continueAfter(long k) {
        if (k < steps) {
            StepStarts.StepStart start = starts.startOf(k + 1);
            if (start == null) {
                throw new IllegalStateException(
                        "no record of where step "
                                + (k + 1)
                                + " began; the schedule cannot continue after step "
                                + k);
            }
            if (start.epoch != epoch) {
                order = start.epoch == 0 ? null : starts.orderOf(start.epoch);
                if (start.epoch != 0 && order == null) {
                    throw new IllegalStateException(
                            "no order of epoch "
                                    + start.epoch
                                    + " in which step "
                                    + (k + 1)
                                    + " began");
                }
            }
            epoch = start.epoch;
            position = start.position;
        }
        steps = k;
        starts.clear();
    }

    /** Epoch {@code epoch}'s order: {@code train} (sorted) shuffled in place, returned. */
    static long[] order(long seed, long epoch, long[] train) {
        return shuffled(train, new SplittableRandom(Mix.seed(seed, 0x5EED, epoch)));
    }

    private static long[] shuffled(long[] values, SplittableRandom random) {
        for (int i = values.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
        return values;
    }
}
