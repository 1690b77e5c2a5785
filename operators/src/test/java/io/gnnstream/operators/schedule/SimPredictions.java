package io.gnnstream.operators.schedule;

import io.gnnstream.operators.PredictionTombstones;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.store.IncrementalPredictions;
import io.gnnstream.operators.store.StoreOutputs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The predictions of a {@link ProtocolSimulator} run with incremental predictions: every prediction
 * (a round's from a rank, an incremental one or a deletion from the GraphStore) goes, as it is
 * emitted, through the real {@link PredictionTombstones} into a map that stands for the compacted
 * predictions topic, and into another without the tombstone stage; incremental ones are checked as
 * they come ({@link #storeOutputs}), the end against layer-wise inference ({@link #check}).
 */
final class SimPredictions {

    private final SimModels models;
    private final SimGraph graph;
    private final long finalStep;
    private final List<String> trace;
    private final boolean verbose;

    /** The predictions topic as the sink writes it: vertex -> probabilities. */
    private final Map<Long, float[]> topic = new HashMap<>();

    /** The same records without the tombstone stage: every prediction and deletion in order. */
    private final Map<Long, float[]> emitted = new HashMap<>();

    private KeyedOneInputStreamOperatorTestHarness<Long, Prediction, Prediction> sink;

    /** Per round step: the ranks of the current start that sent their pin records. */
    private final Map<Long, Set<Integer>> pinsSent = new HashMap<>();

    /** The newest round every rank of the current start sent its pins for; -1: none. */
    private long completedRound = -1;

    /** The GraphStore and the trainer count of the current start. */
    private SimStore store;

    private int trainers;

    /** Incremental prediction batches emitted, and rounds' prediction batches. */
    long incrementalBatches;

    long roundBatches;

    SimPredictions(
            SimModels models, SimGraph graph, long finalStep, List<String> trace, boolean verbose) {
        this.models = models;
        this.graph = graph;
        this.finalStep = finalStep;
        this.trace = trace;
        this.verbose = verbose;
        try {
            sink =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new PredictionTombstones(), p -> p.vertex, Types.LONG);
            sink.open();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A start or restore with {@code trainers} ranks and {@code store}. */
    void start(int trainers, SimStore store) {
        this.trainers = trainers;
        this.store = store;
        pinsSent.clear();
        completedRound = store.incremental().pinnedStep();
    }

    /** The GraphStore's incremental predictions and deletions in {@code out}, to the sink. */
    void storeOutputs(StoreOutputs out) {
        for (PredictionBatch b : out.predictions()) {
            if (b.isDeletion()) {
                if (verbose) {
                    trace.add("  deleted " + b.vertices[0]);
                }
                for (Prediction p : b.split()) {
                    sink(p);
                }
                continue;
            }
            checkIncremental(b);
            incrementalBatches++;
            if (verbose) {
                trace.add(
                        "  incremental predictions of step "
                                + b.step
                                + ": "
                                + Arrays.toString(b.vertices));
            }
            for (Prediction p : b.split()) {
                sink(p);
            }
        }
    }

    /** Frees the models and the tombstone stage. */
    void close() {
        models.close();
        try {
            sink.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An incremental prediction batch as the GraphStore emits it: of the pinned round's step, of no
     * older step than a round whose rows or stored-row reads the GraphStore took (it would have
     * computed while a newer round writes), nor than a round every rank of this start completed.
     */
    private void checkIncremental(PredictionBatch b) {
        IncrementalPredictions inc = store.incremental();
        if (b.step != inc.pinnedStep() || b.step < store.newestRound() || b.step < completedRound) {
            throw new AssertionError(
                    "incremental predictions of step "
                            + b.step
                            + " emitted with step "
                            + inc.pinnedStep()
                            + " pinned, rows or reads of round "
                            + store.newestRound()
                            + " taken, round "
                            + completedRound
                            + " completed by every rank");
        }
        for (long at : b.changedAt) {
            if (at <= 0 || b.changedAt.length != b.vertices.length) {
                throw new AssertionError(
                        "an incremental prediction without its change's time: "
                                + Arrays.toString(b.changedAt));
            }
        }
    }

    /** A rank emitted a round block's predictions. */
    void roundPredictions(PredictionBatch b) {
        roundBatches++;
        if (verbose) {
            trace.add("  round predictions of step " + b.step + ": " + Arrays.toString(b.vertices));
        }
        for (Prediction p : b.split()) {
            sink(p);
        }
    }

    /** Rank {@code rank} sent its pin records of the round of {@code step}. */
    void pinSent(int rank, long step) {
        if (verbose) {
            trace.add("  rank " + rank + " of " + trainers + " sends its pins of step " + step);
        }
        Set<Integer> sent = pinsSent.computeIfAbsent(step, s -> new HashSet<>());
        sent.add(rank);
        if (sent.size() == trainers) {
            completedRound = Math.max(completedRound, step);
        }
    }

    private void sink(Prediction p) {
        if (p.isTombstone()) {
            emitted.remove(p.vertex);
        } else {
            emitted.put(p.vertex, p.probs);
        }
        try {
            sink.processElement(new StreamRecord<>(p));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        drainSink();
    }

    private void drainSink() {
        for (Prediction p : sink.extractOutputValues()) {
            if (p.isTombstone()) {
                topic.remove(p.vertex);
            } else {
                topic.put(p.vertex, p.probs);
            }
        }
        sink.getOutput().clear();
    }

    /**
     * The end of a run with incremental predictions: the final round pinned, nothing paused, no
     * mark left; the GraphStore's adjacency is the stream's; and for every vertex with attributes
     * in the final graph, its latest prediction equals layer-wise inference of the pinned model on
     * that graph within {@code 1e-4}, both in the predictions topic (through the tombstone stage,
     * which also holds no deleted vertex) and in the order the predictions were emitted. Throws an
     * {@link AssertionError} naming what differs.
     */
    void check() {
        IncrementalPredictions inc = store.incremental();
        if (inc.pinnedStep() != finalStep || inc.paused() || inc.pendingVertices() != 0) {
            throw new AssertionError(
                    "incremental predictions at the end: pinned "
                            + inc.pinnedStep()
                            + (inc.paused() ? " (paused)" : "")
                            + ", pending "
                            + inc.pendingVertices()
                            + "; the final round is of step "
                            + finalStep);
        }
        SimGraph.Final g = graph.finalGraph();
        LayerwiseInference.Outputs truth =
                LayerwiseInference.run(
                        models.of(inc.pinnedStep()), g.graph(), 64, ProtocolSimulator.EVAL_FANOUT);
        float[] logits = truth.logits();
        List<String> wrong = new ArrayList<>();
        List<Long> wrongTopic = new ArrayList<>();
        List<Long> wrongEmitted = new ArrayList<>();
        Set<Long> present = new HashSet<>();
        for (int i = 0; i < g.ids().length; i++) {
            long v = g.ids()[i];
            present.add(v);
            long[] held;
            try {
                held = store.inNeighbours(v).clone();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Arrays.sort(held);
            if (!Arrays.equals(held, g.inNeighbours(i))) {
                wrong.add(
                        v
                                + " has in-neighbours "
                                + Arrays.toString(held)
                                + " in the GraphStore, "
                                + Arrays.toString(g.inNeighbours(i))
                                + " in the stream");
            }
            float[] want = ClassProbabilities.softmax(logits, i, SimGraph.CLASSES);
            if (!close(want, topic.get(v))) {
                wrongTopic.add(v);
                if (wrongTopic.size() <= 3) {
                    wrong.add(
                            describe(v, i, g, truth)
                                    + ", predicted "
                                    + (topic.get(v) == null
                                            ? "nothing"
                                            : Arrays.toString(topic.get(v)))
                                    + " for "
                                    + Arrays.toString(want));
                }
            }
            if (!close(want, emitted.get(v))) {
                wrongEmitted.add(v);
            }
        }
        for (long v : topic.keySet()) {
            if (!present.contains(v)) {
                wrong.add("deleted vertex " + v + " is in the predictions topic");
            }
        }
        if (!wrong.isEmpty() || !wrongEmitted.isEmpty()) {
            throw new AssertionError(
                    "predictions that differ from layer-wise inference of step "
                            + inc.pinnedStep()
                            + " on the final graph ("
                            + g.ids().length
                            + " vertices): in the topic "
                            + wrongTopic
                            + ", in emission order "
                            + wrongEmitted
                            + "; stored rows that differ per hidden layer: "
                            + wrongRows(g, truth)
                            + "; "
                            + String.join("; ", wrong));
        }
    }

    /**
     * Per hidden layer, the vertices whose stored row of the final round differs from the truth.
     */
    private List<List<Long>> wrongRows(SimGraph.Final g, LayerwiseInference.Outputs truth) {
        ModelConfig m = models.config();
        List<List<Long>> out = new ArrayList<>();
        try {
            for (int j = 1; j < m.numLayers(); j++) {
                List<Long> differ = new ArrayList<>();
                int dim = m.roundRowWidth(j, false);
                int root = m.roundRootWidth(j, false);
                int width = m.layerOut(j - 1);
                for (int i = 0; i < g.ids().length; i++) {
                    float[] hidden =
                            Arrays.copyOfRange(truth.layers()[j - 1], i * width, (i + 1) * width);
                    float[] want =
                            m.projectsRoundInput(j, false)
                                    ? models.of(finalStep).project(j, hidden, 1)
                                    : hidden;
                    float[] got = store.row(g.ids()[i], j, finalStep, dim);
                    for (int c = 0; c < dim; c++) {
                        if (Math.abs(want[c] - got[c]) > 1e-4) {
                            differ.add(g.ids()[i]);
                            break;
                        }
                    }
                }
                out.add(differ);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** What the GraphStore holds of vertex {@code v} (index {@code i}) against the truth. */
    private String describe(long v, int i, SimGraph.Final g, LayerwiseInference.Outputs truth) {
        ModelConfig m = models.config();
        StringBuilder b = new StringBuilder("vertex " + v + ": features ");
        try {
            b.append(Arrays.toString(store.features(v)))
                    .append(" for ")
                    .append(
                            Arrays.toString(
                                    Arrays.copyOfRange(
                                            g.graph().features(),
                                            i * SimGraph.DIM,
                                            (i + 1) * SimGraph.DIM)));
            for (int j = 1; j < m.numLayers(); j++) {
                int dim = m.roundRowWidth(j, false);
                int out = m.layerOut(j - 1);
                float[] hidden = Arrays.copyOfRange(truth.layers()[j - 1], i * out, (i + 1) * out);
                float[] want =
                        m.projectsRoundInput(j, false)
                                ? models.of(finalStep).project(j, hidden, 1)
                                : hidden;
                b.append(", row ")
                        .append(j)
                        .append(' ')
                        .append(Arrays.toString(store.row(v, j, finalStep, dim)))
                        .append(" for ")
                        .append(Arrays.toString(want));
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return b.toString();
    }

    private static boolean close(float[] want, float[] got) {
        if (got == null || got.length != want.length) {
            return false;
        }
        for (int c = 0; c < want.length; c++) {
            if (Math.abs(want[c] - got[c]) > 1e-4) {
                return false;
            }
        }
        return true;
    }
}
