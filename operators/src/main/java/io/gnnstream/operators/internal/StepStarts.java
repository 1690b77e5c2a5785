package io.gnnstream.operators.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduler's record of where each issued training step began in the epoch order, for the steps
 * that not every rank has acknowledged and the last acknowledged ones (which a restored rank can
 * still be behind). A restore at another trainer count continues with the step after the one the
 * ranks restored; the scheduler rewinds its epoch position to where that step began and cuts the
 * next steps for the new number of ranks (docs/design.md, "Checkpoints and restore", "Another
 * trainer count"). The orders of earlier epochs in which such a step began are kept as well.
 * Entries are ascending by step; the checkpointed forms are {@link StepStart} and {@link
 * EpochOrder}.
 */
public final class StepStarts {

    private final List<StepStart> starts = new ArrayList<>();

    /** Orders of epochs other than the current one, by epoch counter. */
    private final Map<Long, long[]> orders = new HashMap<>();

    /** The record checkpointed as {@code starts} and {@code orders} (either may be null: none). */
    public static StepStarts restore(StepStart[] starts, EpochOrder[] orders) {
        StepStarts out = new StepStarts();
        if (starts != null) {
            out.starts.addAll(List.of(starts));
        }
        if (orders != null) {
            for (EpochOrder o : orders) {
                out.orders.put(o.epoch, o.order);
            }
        }
        return out;
    }

    /** Step {@code step} begins at {@code position} of the epoch whose counter is {@code epoch}. */
    public void record(long step, long epoch, int position) {
        if (!starts.isEmpty() && starts.get(starts.size() - 1).step >= step) {
            throw new IllegalStateException(
                    "step " + step + " recorded after step " + starts.get(starts.size() - 1).step);
        }
        starts.add(new StepStart(step, epoch, position));
    }

    /**
     * The epoch of counter {@code epoch} ends: its order is kept while a recorded step began in it.
     */
    public void epochEnds(long epoch, long[] order) {
        if (order != null) {
            orders.put(epoch, order);
        }
    }

    /**
     * Forgets the steps before {@code step} (every rank applied them) and the orders no step needs.
     */
    public void dropBefore(long step) {
        int n = 0;
        while (n < starts.size() && starts.get(n).step < step) {
            n++;
        }
        if (n > 0) {
            starts.subList(0, n).clear();
        }
        if (!orders.isEmpty()) {
            orders.keySet().removeIf(epoch -> starts.stream().noneMatch(s -> s.epoch == epoch));
        }
    }

    /** Forgets everything. */
    public void clear() {
        starts.clear();
        orders.clear();
    }

    /** Where {@code step} began, or null when it is not recorded. */
    public StepStart startOf(long step) {
        for (StepStart s : starts) {
            if (s.step == step) {
                return s;
            }
        }
        return null;
    }

    /** The kept order of the ended epoch of counter {@code epoch}, or null. */
    public long[] orderOf(long epoch) {
        return orders.get(epoch);
    }

    /** Recorded steps, for tests and logs. */
    public int size() {
        return starts.size();
    }

    public StepStart[] starts() {
        return starts.toArray(new StepStart[0]);
    }

    public EpochOrder[] orders() {
        List<EpochOrder> out = new ArrayList<>();
        orders.forEach((epoch, order) -> out.add(new EpochOrder(epoch, order)));
        out.sort((a, b) -> Long.compare(a.epoch, b.epoch));
        return out.toArray(new EpochOrder[0]);
    }

    /**
     * Where a training step began: the scheduler's epoch counter (the number of epochs begun so
     * far) and position in that epoch's order, before the step took its seeds. A Flink POJO.
     */
    public static class StepStart {
        public long step;
        public long epoch;
        public int position;

        public StepStart() {}

        public StepStart(long step, long epoch, int position) {
            this.step = step;
            this.epoch = epoch;
            this.position = position;
        }
    }

    /** The order of the epoch of counter {@code epoch}. A Flink POJO. */
    public static class EpochOrder {
        public long epoch;
        public long[] order;

        public EpochOrder() {}

        public EpochOrder(long epoch, long[] order) {
            this.epoch = epoch;
            this.order = order;
        }
    }
}
