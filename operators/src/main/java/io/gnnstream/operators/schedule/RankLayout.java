package io.gnnstream.operators.schedule;

/**
 * Numbering of a <em>layout</em>: the trainer ranks of one trainer count, from the start of the job
 * or from a restore at another trainer count (docs/design.md, "Checkpoints and restore", "Another
 * trainer count"). Layout 0 is the job's first; every restore at another count starts the next one.
 * The scheduler and the trainers both keep the layout in their state and derive the same numbers
 * from it:
 *
 * <ul>
 *   <li>Sequence numbers: layout 0 numbers each rank's batches from 0; layout {@code L > 0} from
 *       {@code L << 40} plus the step the ranks restored. A batch, credit or part of an earlier
 *       layout thus has a lower sequence number than any of the current one (a layout issues far
 *       fewer than 2<sup>40</sup> batches), so trainers ignore it as done and the scheduler as
 *       stale, and a rank's first credit tells the scheduler the restored step.
 *   <li>All-reduce rounds: a rank's gradient chunks carry {@code (L << 40) | step} as their step,
 *       so that reducers never sum a contribution of an earlier layout with one of the current
 *       layout; for layout 0 it is the step itself.
 * </ul>
 */
public final class RankLayout {

    /** Bits below a layout's part of sequence numbers and all-reduce rounds. */
    public static final int SHIFT = 40;

    private RankLayout() {}

    /** The lowest sequence number of {@code layout} (0 for the job's first layout). */
    public static long seqBase(int layout) {
        return (long) layout << SHIFT;
    }

    /**
     * The first sequence number of every rank in {@code layout} when the ranks restored {@code
     * step}.
     */
    public static long firstSeq(int layout, long step) {
        return layout == 0 ? 0 : seqBase(layout) + step;
    }

    /** The step a rank of {@code layout} restored, from the sequence number of its first credit. */
    public static long restoredStep(int layout, long processedSeq) {
        return processedSeq + 1 - seqBase(layout);
    }

    /** The all-reduce round of {@code step} in {@code layout}. */
    public static long round(int layout, long step) {
        return seqBase(layout) | step;
    }
}
