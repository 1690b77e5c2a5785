package io.gnnstream.operators;

import static io.gnnstream.operators.internal.RankLine.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.internal.RankLine;
import io.gnnstream.operators.internal.TrainingGauges;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the per-rank metrics lines ({@link RankLine}) of the T trainer ranks into the user-facing
 * metrics lines (JSON). With data-parallel training the T ranks are replicas of one model that take
 * the same steps, each on its share of the seeds; the user wants one line per step, not T. Lines
 * are keyed by (type, step) and buffered until every rank 0..T-1 has sent its line for the key; a
 * second line of a rank for a pending key replaces the first. Then one line is emitted in the
 * trainer's single-rank format (counts summed over ranks, rates over the longest window, busy and
 * all-reduce time averaged), plus {@code allreduce_s}, {@code checksums} (rank order), {@code
 * replicas_identical} and {@code ranks}. An evaluation line flagged {@link RankLine#ALONE} (rank
 * 0's round of the restored step after a restore at another trainer count) is merged on its own,
 * with {@code ranks} 1. Keys are emitted in the order they complete. The best validation accuracy
 * is tracked across evaluation rounds, and after the first merged round flagged {@code final_round}
 * a final line follows, as {@link TrainerOperator} writes it today; where those lines say a serving
 * round follows ({@link RankLine#SERVING_FOLLOWS}), the final line is held until rank 0's line of
 * the serving round ({@link RankLine#SERVED_STEP}) and then names the step whose model serves. A
 * {@link RankLine#FRESHNESS} line of {@code prediction-tombstones} is no rank's: the next merged
 * line carries its figures (incremental predictions' freshness since the line before), and is
 * otherwise not kept.
 *
 * <p>At least once: after a restore the ranks go back to their checkpointed progress and repeat
 * steps and lines, so a step whose merged line was already emitted (before or after the checkpoint)
 * can be emitted again; consumers keep the last line per (type, step). The final line is emitted
 * once per checkpointed history (the flag is state). Pending lines of another number of ranks
 * (restored at another trainer count) are dropped at the restore. Malformed lines are logged,
 * counted ({@code malformedRankLines}) and dropped. Runs with parallelism 1.
 *
 * <p>Checkpointed (one {@link State} POJO in operator list state): the lines of the pending keys,
 * the best-validation fields, the held final line and the finished flag. At most {@value
 * #MAX_PENDING_KEYS} keys are pending: beyond that the key of the oldest step is dropped ({@code
 * droppedPendingKeys}), so a rank line lost for good cannot grow the state without bound.
 */
public class MetricsMerger extends AbstractStreamOperator<String>
        implements OneInputStreamOperator<String, String> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(MetricsMerger.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int MAX_PENDING_KEYS = 1000;

    private final int ranks;
    private final int maxPendingKeys;

    private transient ListState<State> state;
    private transient Map<Key, JsonNode[]> pending;

    /**
     * Best validation and the finished flag ({@code pendingLines} unused: {@link #pending} holds
     * them).
     */
    private transient State progress;

    private transient Counter malformed;
    private transient Counter dropped;
    private transient TrainingGauges gauges;

    /** The latest freshness line not yet carried by a merged line, or null. */
    private transient JsonNode freshness;

    /** Merges the lines of {@code scale}'s ranks. */
    public MetricsMerger(JobScale scale) {
        this(scale, MAX_PENDING_KEYS);
    }

    MetricsMerger(JobScale scale, int maxPendingKeys) {
        if (maxPendingKeys < 1) {
            throw new IllegalArgumentException("maxPendingKeys must be positive");
        }
        this.ranks = scale.trainers();
        this.maxPendingKeys = maxPendingKeys;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "metrics-merger", TypeInformation.of(State.class)));
        pending = new LinkedHashMap<>();
        progress = new State();
        for (State s : state.get()) {
            progress = s;
        }
        int otherRanks = 0;
        for (String text : progress.pendingLines == null ? new String[0] : progress.pendingLines) {
            JsonNode line = ofOtherRanks(text) ? null : parse(text);
            if (line != null) {
                buffer(line);
            } else {
                otherRanks++;
            }
        }
        if (otherRanks > 0) {
            LOG.info(
                    "Dropped {} pending rank lines of a checkpoint of another number of ranks",
                    otherRanks);
        }
        progress.pendingLines = null;
    }

    @Override
    public void open() throws Exception {
        super.open();
        malformed = getMetricGroup().counter("malformedRankLines");
        dropped = getMetricGroup().counter("droppedPendingKeys");
        gauges = new TrainingGauges(getMetricGroup());
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        State s = new State();
        s.pendingLines =
                pending.values().stream()
                        .flatMap(Arrays::stream)
                        .filter(Objects::nonNull)
                        .map(JsonNode::toString)
                        .toArray(String[]::new);
        s.bestValAcc = progress.bestValAcc;
        s.bestValTestAcc = progress.bestValTestAcc;
        s.bestValStep = progress.bestValStep;
        s.bestValChecksum = progress.bestValChecksum;
        s.finished = progress.finished;
        s.pendingFinal = progress.pendingFinal;
        state.update(List.of(s));
    }

    @Override
    public void processElement(StreamRecord<String> element) {
        JsonNode freshnessLine = freshnessLine(element.getValue());
        if (freshnessLine != null) {
            freshness = freshnessLine;
            return;
        }
        JsonNode line = parse(element.getValue());
        if (line == null) {
            malformed.inc();
            return;
        }
        Key key = Key.of(line);
        if (line.path(ALONE).asBoolean(false)) {
            pending.remove(key);
            merge(key, new JsonNode[] {line});
            return;
        }
        JsonNode[] lines = buffer(line);
        if (Arrays.stream(lines).allMatch(Objects::nonNull)) {
            pending.remove(key);
            merge(key, lines);
        } else if (pending.size() > maxPendingKeys) {
            Key oldest =
                    pending.keySet().stream()
                            .min((a, b) -> Long.compare(a.step, b.step))
                            .orElseThrow();
            pending.remove(oldest);
            dropped.inc();
            LOG.warn(
                    "More than {} metrics steps pending: dropping {} step {}, a rank line of it is"
                            + " missing",
                    maxPendingKeys,
                    oldest.type,
                    oldest.step);
        }
    }

    /**
     * Puts the line in its key's slot of its rank (replacing an earlier one); returns the key's
     * lines.
     */
    private JsonNode[] buffer(JsonNode line) {
        JsonNode[] lines = pending.computeIfAbsent(Key.of(line), k -> new JsonNode[ranks]);
        lines[line.get(RANK).asInt()] = line;
        return lines;
    }

    private void merge(Key key, JsonNode[] lines) {
        int count = lines.length;
        double wall = Math.max(1e-9, max(lines, WALL_S));
        double seeds = sum(lines, SEEDS);
        double trainerRate = 0;
        double busy = 0;
        boolean finalRound = false;
        boolean servingFollows = false;
        String select = null;
        ArrayNode checksums = JSON.createArrayNode();
        for (JsonNode l : lines) {
            double busyS = l.path(BUSY_S).asDouble();
            trainerRate += busyS == 0 ? 0.0 : l.path(SEEDS).asDouble() / busyS;
            busy += Math.min(1.0, busyS / Math.max(1e-9, l.path(WALL_S).asDouble()));
            checksums.add(l.path(CHECKSUM).asText());
            finalRound |= l.path(FINAL_ROUND).asBoolean(false);
            servingFollows |= l.path(RankLine.SERVING_FOLLOWS).asBoolean(false);
            select = l.has(SELECT) ? l.path(SELECT).asText() : select;
        }
        String checksum = lines[0].path(CHECKSUM).asText();
        boolean identical =
                Arrays.stream(lines).allMatch(l -> l.path(CHECKSUM).asText().equals(checksum));
        double elapsed = max(lines, ELAPSED_S);
        ObjectNode out =
                JSON.createObjectNode()
                        .put("step", key.step)
                        .put("elapsed_s", elapsed)
                        .put("loss", ratio(sum(lines, LOSS_SUM), seeds))
                        .put("train_acc", ratio(sum(lines, CORRECT), seeds))
                        .put("seeds_per_s", seeds / wall)
                        .put("trainer_seeds_per_s", trainerRate)
                        .put("busy", busy / count)
                        .put("batches_per_s", sum(lines, STEPS) / wall)
                        .put("sampled_edges_per_s", sum(lines, SAMPLED_EDGES) / wall)
                        .put("edges_ingested", (long) max(lines, EDGES_INGESTED))
                        .put("vertices", (long) max(lines, VERTICES));
        double vertices = max(lines, VERTICES);
        double edgesIngested = max(lines, EDGES_INGESTED);
        if (vertices > 0 && edgesIngested > 0) {
            out.put("replication_factor", max(lines, REPLICAS) / vertices)
                    .put("edge_cut", max(lines, CUT_EDGES_INGESTED) / edgesIngested);
        }
        double trafficBatches = sum(lines, TRAFFIC_BATCHES);
        if (trafficBatches > 0) {
            out.put("requests_per_batch", sum(lines, LOOP_REQUESTS) / trafficBatches)
                    .put(
                            "request_vertices_per_batch",
                            sum(lines, LOOP_REQUEST_VERTICES) / trafficBatches)
                    .put("loop_bytes_per_batch", sum(lines, LOOP_BYTES) / trafficBatches)
                    .put("feature_bytes_per_batch", sum(lines, FEATURE_BYTES) / trafficBatches)
                    .put("remote_requests_per_batch", sum(lines, REMOTE_REQUESTS) / trafficBatches)
                    .put("remote_bytes_per_batch", sum(lines, REMOTE_BYTES) / trafficBatches);
        }
        if (EVAL.equals(key.type) && lines[0].has(RankLine.SERVED_STEP)) {
            served(lines[0], checksum);
            return;
        }
        double valAcc = 0;
        double testAcc = 0;
        if (EVAL.equals(key.type)) {
            valAcc = ratio(sum(lines, VAL_CORRECT), sum(lines, VAL_TOTAL));
            testAcc = ratio(sum(lines, TEST_CORRECT), sum(lines, TEST_TOTAL));
            out.put("eval_s", max(lines, EVAL_S))
                    .put("val_acc", valAcc)
                    .put("test_acc", testAcc)
                    .put("val_loss", ratio(sum(lines, VAL_LOSS_SUM), sum(lines, VAL_TOTAL)))
                    .put("test_loss", ratio(sum(lines, TEST_LOSS_SUM), sum(lines, TEST_TOTAL)));
            if (valAcc > progress.bestValAcc) {
                progress.bestValAcc = valAcc;
                progress.bestValTestAcc = testAcc;
                progress.bestValStep = key.step;
                progress.bestValChecksum = checksum;
            }
        }
        if (freshness != null) {
            out.put(FRESHNESS_P50_MS, freshness.path(FRESHNESS_P50_MS).asLong())
                    .put(FRESHNESS_P99_MS, freshness.path(FRESHNESS_P99_MS).asLong())
                    .put(INCREMENTAL_PREDICTIONS, freshness.path(INCREMENTAL_PREDICTIONS).asLong());
            freshness = null;
        }
        out.put("allreduce_s", sum(lines, ALLREDUCE_S) / count)
                .put("checksum", checksum)
                .<ObjectNode>set("checksums", checksums)
                .put("replicas_identical", identical)
                .put("ranks", count);
        gauges.update(out);
        output.collect(new StreamRecord<>(out.toString()));
        if (EVAL.equals(key.type) && finalRound && !progress.finished) {
            ObjectNode last =
                    JSON.createObjectNode()
                            .put("final", true)
                            .put("step", key.step)
                            .put("elapsed_s", elapsed)
                            .put("first_step_s", max(lines, FIRST_STEP_S))
                            .put("eval_s", max(lines, EVAL_S))
                            .put("test_acc", testAcc)
                            .put("val_acc", valAcc)
                            .put("best_val_acc", progress.bestValAcc)
                            .put("best_val_test_acc", progress.bestValTestAcc)
                            .put("best_val_step", progress.bestValStep)
                            .put("best_val_checksum", progress.bestValChecksum)
                            .put("checksum", checksum)
                            .<ObjectNode>set("checksums", checksums)
                            .put("replicas_identical", identical);
            if (select != null) {
                // The ranks keep, export and serve the best validation round's parameters.
                last.put(SELECT, select)
                        .put("selected_step", progress.bestValStep)
                        .put("selected_checksum", progress.bestValChecksum)
                        .put("selected_val_acc", progress.bestValAcc)
                        .put("selected_test_acc", progress.bestValTestAcc);
            }
            if (servingFollows) {
                // Emitted once the serving round has written the kept model's predictions.
                progress.pendingFinal = last.toString();
                return;
            }
            progress.finished = true;
            output.collect(new StreamRecord<>(last.toString()));
        }
    }

    /**
     * Rank 0's line of the serving round: the final line, held since the final round, follows with
     * the step whose model serves ({@code served_step}) and its checksum ({@code served_checksum}).
     */
    private void served(JsonNode line, String checksum) {
        if (progress.finished || progress.pendingFinal == null) {
            return;
        }
        ObjectNode last;
        try {
            last = (ObjectNode) JSON.readTree(progress.pendingFinal);
        } catch (Exception e) {
            throw new IllegalStateException("the held final line is no JSON object", e);
        }
        last.put("served_step", line.path(RankLine.SERVED_STEP).asLong())
                .put("served_checksum", checksum);
        progress.finished = true;
        progress.pendingFinal = null;
        output.collect(new StreamRecord<>(last.toString()));
    }

    /** The line if it is a {@link RankLine#FRESHNESS} line, else null. */
    private static JsonNode freshnessLine(String text) {
        if (text == null || !text.contains(FRESHNESS_P50_MS)) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(text);
            return n.isObject() && FRESHNESS.equals(n.path(TYPE).asText()) ? n : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** True for a checkpointed line that another number of ranks wrote. */
    private boolean ofOtherRanks(String text) {
        try {
            JsonNode n = JSON.readTree(text);
            return n.has(RANKS) && n.path(RANKS).asInt() != ranks;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * The line as a JSON object, or null (logged) when it is not a rank line this merger can use.
     */
    private JsonNode parse(String text) {
        String problem;
        JsonNode n = null;
        try {
            n = text == null ? null : JSON.readTree(text);
            problem =
                    n == null || !n.isObject()
                            ? "not a JSON object"
                            : !n.path(RANK).isIntegralNumber() || !n.path(STEP).isIntegralNumber()
                                    ? "no rank or step"
                                    : !TRAIN.equals(n.path(TYPE).asText())
                                                    && !EVAL.equals(n.path(TYPE).asText())
                                            ? "no type"
                                            : n.get(RANK).asLong() < 0
                                                            || n.get(RANK).asLong() >= ranks
                                                    ? "rank out of range"
                                                    : n.has(RANKS) && n.path(RANKS).asInt() != ranks
                                                            ? "ranks is not " + ranks
                                                            : null;
        } catch (Exception e) {
            problem = "not JSON: " + e.getMessage();
        }
        if (problem == null) {
            return n;
        }
        String shown = text == null || text.length() <= 200 ? text : text.substring(0, 200) + "...";
        LOG.warn("Dropping malformed rank line ({}): {}", problem, shown);
        return null;
    }

    /** Malformed lines dropped so far, for tests. */
    long malformedRankLines() {
        return malformed.getCount();
    }

    /** Keys waiting for lines of some ranks, for tests. */
    int pendingKeys() {
        return pending.size();
    }

    private static double sum(JsonNode[] lines, String field) {
        return Arrays.stream(lines).mapToDouble(l -> l.path(field).asDouble()).sum();
    }

    private static double max(JsonNode[] lines, String field) {
        return Arrays.stream(lines).mapToDouble(l -> l.path(field).asDouble()).max().orElse(0);
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0.0 : a / b;
    }

    private record Key(String type, long step) {
        static Key of(JsonNode line) {
            return new Key(line.get(TYPE).asText(), line.get(STEP).asLong());
        }
    }

    /** Checkpointed state of the merger (Flink POJO). */
    public static class State {
        /** Rank lines of the pending keys, key by key in arrival order of the keys. */
        public String[] pendingLines;

        public double bestValAcc = -1;
        public double bestValTestAcc;
        public long bestValStep;

        /** The parameter checksum of the best validation round (null in older state). */
        public String bestValChecksum;

        public boolean finished;

        /**
         * The final line, held until the serving round's line arrives (null: none held, also in
         * older state).
         */
        public String pendingFinal;

        public State() {}
    }
}
