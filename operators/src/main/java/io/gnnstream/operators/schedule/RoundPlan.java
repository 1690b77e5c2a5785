package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;

/**
 * The evaluation round in progress: layer-wise full-neighbour inference in {@code numLayers} passes
 * of one-hop blocks of {@code evalBatchSize} destinations. Passes {@code 1..L-1} cover every vertex
 * known at the round's start; the last pass covers the validation vertices, then the test vertices,
 * then (with {@code predictAll}) all the others. Blocks of a pass go to the ranks in turn (all to
 * rank 0 after a restore at another trainer count), and a pass may start only once every block of
 * the pass before has had its outputs stored ({@link RoundWrites}).
 */
final class RoundPlan {

    private final SchedulerConfig config;
    private long step;
    private long[] val;
    private long[] test;
    private long[] others;
    private int next;
    private int size;
    private boolean last;
    private boolean onRankZero;
    private final RoundWrites writes;

    /**
     * Issued blocks whose outputs were not stored, to be issued again under their ranks' credit, in
     * order; derived again after a restore ({@link #unwritten}), so never stored.
     */
    private final java.util.LinkedHashSet<Integer> again = new java.util.LinkedHashSet<>();

    /** Every vertex of the round in ascending order, derived from the round's sets. */
    private long[] all;

    private RoundPlan(SchedulerConfig config, SchedulerState s) {
        this.config = config;
        this.step = s.roundStep;
        this.val = s.roundVal;
        this.test = s.roundTest;
        this.others = s.roundOthers;
        this.next = s.roundNext;
        this.size = s.roundSize;
        this.last = s.roundFinal;
        this.onRankZero = s.roundOnRankZero;
        this.writes = RoundWrites.of(s.roundWrites);
    }

    static RoundPlan load(SchedulerConfig config, SchedulerState s) {
        return new RoundPlan(config, s);
    }

    void store(SchedulerState s) {
        s.roundStep = step;
        s.roundVal = val;
        s.roundTest = test;
        s.roundOthers = others;
        s.roundNext = next;
        s.roundSize = size;
        s.roundFinal = last;
        s.roundOnRankZero = onRankZero;
        s.roundWrites = writes.encoded();
    }

    /** Starts the round of step {@code step} over the vertices {@code seeds} knows now. */
    void begin(long step, boolean last, SeedSets seeds) {
        this.step = step;
        this.val = seeds.val();
        this.test = seeds.test();
        this.others = seeds.rest();
        this.next = 0;
        this.onRankZero = false;
        this.all = null;
        again.clear();
        writes.clear();
        int lastPass =
                chunks(val.length)
                        + chunks(test.length)
                        + (config.predictAll ? chunks(others.length) : 0);
        this.size = Math.max(1, (config.numLayers - 1) * chunks(all().length) + lastPass);
        this.last = last;
    }

    /** Issues the round again from its first block, all blocks to rank 0. */
    void restartOnRankZero() {
        next = 0;
        all = null;
        again.clear();
        writes.clear();
        onRankZero = true;
    }

    /** Sends every block of the round to rank 0 (a round begun for another trainer count). */
    void allOnRankZero() {
        onRankZero = true;
    }

    /** No round in progress. */
    void cancel() {
        next = 0;
        size = 0;
        again.clear();
    }

    long step() {
        return step;
    }

    int size() {
        return size;
    }

    int next() {
        return next;
    }

    boolean onRankZero() {
        return onRankZero;
    }

    /** Blocks of the round not yet issued. */
    boolean pending() {
        return next < size;
    }

    /** Vertices of the round. */
    int vertices() {
        return all().length;
    }

    /**
     * Records that the GraphStore stored part {@code part} of {@code parts} of block {@code
     * roundIndex}'s outputs for the round of step {@code step}; true if that is new.
     */
    boolean written(long step, int roundIndex, int part, int parts) {
        return step == this.step && size > 0 && writes.ack(roundIndex, part, parts);
    }

    /** Queues block {@code i} to be issued again; false if it is queued already. */
    boolean issueAgain(int i) {
        return again.add(i);
    }

    /**
     * The first queued block still without stored outputs (queued blocks stored since are dropped),
     * or -1.
     */
    int nextAgain() {
        var it = again.iterator();
        while (it.hasNext()) {
            int i = it.next();
            if (!writes.written(i)) {
                return i;
            }
            it.remove();
        }
        return -1;
    }

    /** Block {@code i}, taken from the queue of blocks to issue again. */
    BatchSpec takeAgain(int i) {
        again.remove(i);
        return block(i);
    }

    /** Block {@code next()} of the round, which it then passes. */
    BatchSpec take() {
        return block(next++);
    }

    /** Block {@code i} of the round. */
    BatchSpec block(int i) {
        BatchSpec spec = new BatchSpec();
        spec.step = step;
        spec.roundIndex = i;
        spec.roundSize = size;
        spec.finalRound = last;
        int perPass = blocksPerPass();
        if (i < (config.numLayers - 1) * perPass) {
            spec.layer = i / perPass + 1;
            spec.kind = MiniBatch.Kind.INFER;
            spec.seeds = chunk(all(), i % perPass);
            return spec;
        }
        spec.layer = config.numLayers;
        spec.roundShare = lastPassShare(rankOf(i));
        i -= (config.numLayers - 1) * perPass;
        int valChunks = chunks(val.length);
        int testChunks = chunks(test.length);
        if (i < valChunks) {
            spec.kind = MiniBatch.Kind.EVAL_VAL;
            spec.seeds = chunk(val, i);
        } else if (i < valChunks + testChunks || !config.predictAll) {
            spec.kind = MiniBatch.Kind.EVAL_TEST;
            spec.seeds = chunk(test, i - valChunks);
        } else {
            spec.kind = MiniBatch.Kind.INFER;
            spec.seeds = chunk(others, i - valChunks - testChunks);
        }
        return spec;
    }

    /** The pass (1-based model layer) of block {@code i}. */
    int passOf(int i) {
        int per = blocksPerPass();
        return i >= (config.numLayers - 1) * per ? config.numLayers : i / per + 1;
    }

    /** Blocks of a pass go to the ranks in turn. */
    int rankOf(int i) {
        return onRankZero ? 0 : (i - (passOf(i) - 1) * blocksPerPass()) % config.scale.trainers();
    }

    /** Of the last pass's blocks, those of {@code rank}. */
    int lastPassShare(int rank) {
        int n = size - (config.numLayers - 1) * blocksPerPass();
        int ranks = onRankZero ? 1 : config.scale.trainers();
        return rank >= ranks ? 0 : n / ranks + (rank < n % ranks ? 1 : 0);
    }

    /**
     * Block {@code i} may be issued: the pass before its own has stored all its outputs, which it
     * reads (docs/design.md, "Evaluation").
     */
    boolean ready(int i) {
        int pass = passOf(i);
        if (pass == 1) {
            return true;
        }
        int per = blocksPerPass();
        return writes.allWritten((pass - 2) * per, (pass - 1) * per);
    }

    /**
     * The issued blocks of the current hidden-layer pass whose outputs are not stored, in order;
     * empty when the current pass is the last (its outputs are not stored).
     */
    int[] unwritten() {
        if (size == 0 || next == 0 || next > size || config.numLayers < 2) {
            return new int[0];
        }
        int pass = passOf(next - 1);
        if (pass >= config.numLayers) {
            return new int[0];
        }
        int from = (pass - 1) * blocksPerPass();
        return java.util.stream.IntStream.range(from, next)
                .filter(i -> !writes.written(i))
                .toArray();
    }

    private int blocksPerPass() {
        return chunks(all().length);
    }

    private long[] all() {
        if (all == null) {
            long[] rest = others == null ? new long[0] : others;
            long[] a = new long[val.length + test.length + rest.length];
            System.arraycopy(val, 0, a, 0, val.length);
            System.arraycopy(test, 0, a, val.length, test.length);
            System.arraycopy(rest, 0, a, val.length + test.length, rest.length);
            Arrays.sort(a);
            all = a;
        }
        return all;
    }

    private int chunks(int n) {
        return (n + config.evalBatchSize - 1) / config.evalBatchSize;
    }

    private long[] chunk(long[] seeds, int i) {
        int from = Math.min(seeds.length, i * config.evalBatchSize);
        return Arrays.copyOfRange(seeds, from, Math.min(seeds.length, from + config.evalBatchSize));
    }
}
