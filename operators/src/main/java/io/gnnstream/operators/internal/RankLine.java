package io.gnnstream.operators.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.TrainerProgress;

/**
 * The per-rank metrics line a trainer rank writes for {@code MetricsMerger}: the field names, and
 * builders that keep the trainer's side short. Counts are raw sums over the window since the rank's
 * previous line (no rates, no ratios), so that the merger can add them up across ranks.
 *
 * <pre>{@code
 * ObjectNode line = RankLine.train(rank, ranks, step, elapsedS, model.checksum());
 * RankLine.window(line, seeds, correct, lossSum, steps, busyS, wallS, sampledEdges, edgesIngested,
 *         vertices, allreduceS);
 * // an evaluation round: RankLine.eval(...) instead of train(...), plus
 * RankLine.evalTotals(line, valCorrect, valTotal, valLossSum, testCorrect, testTotal, testLossSum,
 *         finalRound, evalS, firstStepS);
 * emit(line.toString());
 * }</pre>
 */
public final class RankLine {

    public static final String RANK = "rank";
    public static final String RANKS = "ranks";
    public static final String TYPE = "type";
    public static final String STEP = "step";
    public static final String ELAPSED_S = "elapsed_s";

    /** Hex string of the rank's 64-bit parameter hash ({@link Long#toHexString}). */
    public static final String CHECKSUM = "checksum";

    public static final String SEEDS = "seeds";
    public static final String CORRECT = "correct";
    public static final String LOSS_SUM = "loss_sum";
    public static final String STEPS = "steps";
    public static final String BUSY_S = "busy_s";
    public static final String WALL_S = "wall_s";
    public static final String SAMPLED_EDGES = "sampled_edges";
    public static final String EDGES_INGESTED = "edges_ingested";
    public static final String VERTICES = "vertices";
    public static final String ALLREDUCE_S = "allreduce_s";

    /**
     * The graph's halo replicas and ingested edges between partitions, as of the window's last
     * step.
     */
    public static final String REPLICAS = "replicas";

    public static final String CUT_EDGES_INGESTED = "cut_edges_ingested";

    /** Training batches completed in the window, and the sampling-loop traffic of building them. */
    public static final String TRAFFIC_BATCHES = "traffic_batches";

    public static final String LOOP_REQUESTS = "loop_requests";
    public static final String LOOP_REQUEST_VERTICES = "loop_request_vertices";
    public static final String LOOP_BYTES = "loop_bytes";
    public static final String FEATURE_BYTES = "feature_bytes";

    /**
     * Of the loop and feature bytes, those that left a site (see {@code
     * MiniBatch#remoteLoopBytes}).
     */
    public static final String REMOTE_BYTES = "remote_bytes";

    public static final String REMOTE_REQUESTS = "remote_requests";

    public static final String VAL_CORRECT = "val_correct";
    public static final String VAL_TOTAL = "val_total";
    public static final String VAL_LOSS_SUM = "val_loss_sum";
    public static final String TEST_CORRECT = "test_correct";
    public static final String TEST_TOTAL = "test_total";
    public static final String TEST_LOSS_SUM = "test_loss_sum";
    public static final String FINAL_ROUND = "final_round";

    /**
     * Seconds this rank has spent in evaluation rounds so far (from a round's start to its end).
     */
    public static final String EVAL_S = "eval_s";

    /** Seconds from this rank's start to its first training step. */
    public static final String FIRST_STEP_S = "first_step_s";

    /**
     * True on an evaluation line that no other rank's line joins: the round of the step the ranks
     * restored after a restore at another trainer count, which rank 0 runs again while the other
     * ranks reported that step before the restore.
     */
    public static final String ALONE = "alone";

    /**
     * On evaluation lines with {@code --select best-val}: the parameters kept are the best
     * validation round's, which the merger's final line then names ({@code selected_step}, {@code
     * selected_checksum}, {@code selected_test_acc}).
     */
    public static final String SELECT = "select";

    /**
     * True on a rank's line of the final round when a serving round follows it ({@code --select
     * best-val} with predictions): the merger's final line waits for the serving round's line.
     */
    public static final String SERVING_FOLLOWS = "serving_follows";

    /**
     * On rank 0's line of the serving round (flagged {@link #ALONE}): the step whose model the
     * serving round computed with, the kept one; the merger's final line names it ({@code
     * served_step}).
     */
    public static final String SERVED_STEP = "served_step";

    /** Values of {@link #TYPE}. */
    public static final String TRAIN = "train";

    public static final String EVAL = "eval";

    /**
     * A line of {@code prediction-tombstones}, not of a rank: the freshness of the incremental
     * predictions passed on since its last line ({@link #freshness}).
     */
    public static final String FRESHNESS = "freshness";

    public static final String FRESHNESS_P50_MS = "freshness_p50_ms";
    public static final String FRESHNESS_P99_MS = "freshness_p99_ms";
    public static final String INCREMENTAL_PREDICTIONS = "incremental_predictions";

    private static final ObjectMapper JSON = new ObjectMapper();

    private RankLine() {}

    /**
     * A {@link #FRESHNESS} line: the median and 99th percentile (ms) of the freshness of {@code
     * count} incremental predictions.
     */
    public static String freshness(long p50Ms, long p99Ms, long count) {
        return JSON.createObjectNode()
                .put(TYPE, FRESHNESS)
                .put(FRESHNESS_P50_MS, p50Ms)
                .put(FRESHNESS_P99_MS, p99Ms)
                .put(INCREMENTAL_PREDICTIONS, count)
                .toString();
    }

    /**
     * The head of a training line of rank {@code rank} of {@code ranks} after step {@code step}.
     */
    public static ObjectNode train(int rank, int ranks, long step, double elapsedS, long checksum) {
        return head(TRAIN, rank, ranks, step, elapsedS, checksum);
    }

    /**
     * The head of an evaluation line (the round following step {@code step}); add {@link
     * #evalTotals}.
     */
    public static ObjectNode eval(int rank, int ranks, long step, double elapsedS, long checksum) {
        return head(EVAL, rank, ranks, step, elapsedS, checksum);
    }

    /** The training window since the rank's previous line; returns {@code line}. */
    public static ObjectNode window(
            ObjectNode line,
            long seeds,
            long correct,
            double lossSum,
            int steps,
            double busyS,
            double wallS,
            long sampledEdges,
            long edgesIngested,
            long vertices,
            double allreduceS) {
        line.put(SEEDS, seeds);
        line.put(CORRECT, correct);
        line.put(LOSS_SUM, lossSum);
        line.put(STEPS, steps);
        line.put(BUSY_S, busyS);
        line.put(WALL_S, wallS);
        line.put(SAMPLED_EDGES, sampledEdges);
        line.put(EDGES_INGESTED, edgesIngested);
        line.put(VERTICES, vertices);
        line.put(ALLREDUCE_S, allreduceS);
        return line;
    }

    /** The graph's halo replicas and ingested edges between partitions; returns {@code line}. */
    public static ObjectNode placement(ObjectNode line, long replicas, long cutEdgesIngested) {
        line.put(REPLICAS, replicas);
        line.put(CUT_EDGES_INGESTED, cutEdgesIngested);
        return line;
    }

    /**
     * The sampling-loop traffic of the training batches completed in the window; returns {@code
     * line}.
     */
    public static ObjectNode traffic(
            ObjectNode line,
            long batches,
            long requests,
            long requestVertices,
            long loopBytes,
            long featureBytes,
            long remoteRequests,
            long remoteBytes) {
        line.put(TRAFFIC_BATCHES, batches);
        line.put(LOOP_REQUESTS, requests);
        line.put(LOOP_REQUEST_VERTICES, requestVertices);
        line.put(LOOP_BYTES, loopBytes);
        line.put(FEATURE_BYTES, featureBytes);
        line.put(REMOTE_REQUESTS, remoteRequests);
        line.put(REMOTE_BYTES, remoteBytes);
        return line;
    }

    /**
     * This rank's share of an evaluation round (loss sums over seeds, not means); returns {@code
     * line}.
     */
    public static ObjectNode evalTotals(
            ObjectNode line,
            long valCorrect,
            long valTotal,
            double valLossSum,
            long testCorrect,
            long testTotal,
            double testLossSum,
            boolean finalRound,
            double evalS,
            double firstStepS) {
        line.put(EVAL_S, evalS);
        line.put(FIRST_STEP_S, firstStepS);
        line.put(VAL_CORRECT, valCorrect);
        line.put(VAL_TOTAL, valTotal);
        line.put(VAL_LOSS_SUM, valLossSum);
        line.put(TEST_CORRECT, testCorrect);
        line.put(TEST_TOTAL, testTotal);
        line.put(TEST_LOSS_SUM, testLossSum);
        line.put(FINAL_ROUND, finalRound);
        return line;
    }

    /** The evaluation totals of {@code progress}'s round; returns {@code line}. */
    public static ObjectNode evalTotals(
            ObjectNode line, TrainerProgress progress, boolean finalRound) {
        return evalTotals(
                line,
                progress.valCorrect,
                progress.valTotal,
                progress.valLoss,
                progress.testCorrect,
                progress.testTotal,
                progress.testLoss,
                finalRound,
                progress.evalNanos / 1e9,
                progress.firstStepNanos / 1e9);
    }

    private static ObjectNode head(
            String type, int rank, int ranks, long step, double elapsedS, long checksum) {
        ObjectNode line = JSON.createObjectNode();
        line.put(RANK, rank);
        line.put(RANKS, ranks);
        line.put(TYPE, type);
        line.put(STEP, step);
        line.put(ELAPSED_S, elapsedS);
        line.put(CHECKSUM, Long.toHexString(checksum));
        return line;
    }
}
