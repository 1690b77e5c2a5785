package io.gnnstream.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --normalize-features auto} on a node topic: one decision from the first rows, applied to
 * the rows before and after it alike, kept across a restore.
 */
@Timeout(60)
class NormalizeFeaturesOperatorTest {

    private static final long WITHIN_MS = 1_000;

    private static NodeUpdate row(long id, float... features) {
        return new NodeUpdate(id, features, 0, Split.TRAIN);
    }

    private static OneInputStreamOperatorTestHarness<NodeUpdate, NodeUpdate> harness(int after)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new NormalizeFeaturesOperator(after, WITHIN_MS));
    }

    private static List<NodeUpdate> out(OneInputStreamOperatorTestHarness<NodeUpdate, ?> h) {
        List<NodeUpdate> nodes = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r && r.getValue() instanceof NodeUpdate n) {
                nodes.add(n);
            }
        }
        return nodes;
    }

    private static List<RowNormalization> decisions(
            OneInputStreamOperatorTestHarness<NodeUpdate, ?> h) {
        List<RowNormalization> d = new ArrayList<>();
        var side = h.getSideOutput(NormalizeFeaturesOperator.DECISIONS);
        if (side != null) {
            for (StreamRecord<RowNormalization> r : side) {
                d.add(r.getValue());
            }
        }
        return d;
    }

    /** The rows of {@code raw} as {@code decision} treats every one of them. */
    private static List<NodeUpdate> treated(List<NodeUpdate> raw, RowNormalization decision) {
        List<NodeUpdate> want = new ArrayList<>();
        for (NodeUpdate n : raw) {
            NodeUpdate c = new NodeUpdate(n.id, n.features.clone(), n.label, n.split);
            decision.apply(c.features);
            want.add(c);
        }
        return want;
    }

    private static List<NodeUpdate> stream() {
        // Three non-negative rows first; negatives come later.
        return List.of(
                row(1, 1, 0, 3),
                row(2, 2, 2, 0),
                row(3, 0, 0, 5),
                row(4, 4, -1, 1),
                row(5, -1, 0.5f, 0.25f),
                row(6, 1, 1, 2));
    }

    @Test
    void nonNegativeFirstRowsDivideEveryRowIncludingLaterSignedOnes() throws Exception {
        List<NodeUpdate> raw = stream();
        try (var h = harness(3)) {
            h.open();
            h.processElement(new StreamRecord<>(copy(raw.get(0))));
            h.processElement(new StreamRecord<>(copy(raw.get(1))));
            assertTrue(out(h).isEmpty(), "held until decided");
            for (int i = 2; i < raw.size(); i++) {
                h.processElement(new StreamRecord<>(copy(raw.get(i))));
            }
            assertEquals(treated(raw, RowNormalization.TRUE), out(h));
            assertEquals(List.of(RowNormalization.TRUE), decisions(h));
        }
    }

    @Test
    void aSignedRowAmongTheFirstKeepsEveryRow() throws Exception {
        List<NodeUpdate> raw = List.of(row(1, 1, 0, 3), row(2, -2, 2, 1), row(3, 1, 1, 2));
        try (var h = harness(2)) {
            h.open();
            for (NodeUpdate n : raw) {
                h.processElement(new StreamRecord<>(copy(n)));
            }
            assertEquals(treated(raw, RowNormalization.FALSE), out(h));
            assertEquals(List.of(RowNormalization.FALSE), decisions(h));
        }
    }

    @Test
    void heldRecordsAndTheDecisionSurviveARestore() throws Exception {
        List<NodeUpdate> raw = stream();
        OperatorSubtaskState held;
        try (var h = harness(3)) {
            h.open();
            h.processElement(new StreamRecord<>(copy(raw.get(0))));
            h.processElement(new StreamRecord<>(NodeUpdate.deletion(9)));
            h.processElement(new StreamRecord<>(copy(raw.get(1))));
            held = h.snapshot(1, 1);
        }
        OperatorSubtaskState decided;
        List<NodeUpdate> all = new ArrayList<>();
        try (var h = harness(3)) {
            h.initializeState(held);
            h.open();
            assertTrue(out(h).isEmpty());
            h.processElement(new StreamRecord<>(copy(raw.get(2))));
            all.addAll(out(h));
            decided = h.snapshot(2, 2);
        }
        List<NodeUpdate> want = treated(raw.subList(0, 3), RowNormalization.TRUE);
        want.add(1, NodeUpdate.deletion(9));
        assertEquals(want, all, "held records in order, deletions included, then the third row");
        try (var h = harness(3)) {
            h.initializeState(decided);
            h.open();
            h.setProcessingTime(h.getProcessingTime() + 1);
            assertEquals(List.of(RowNormalization.TRUE), decisions(h), "announced again");
            for (int i = 3; i < raw.size(); i++) {
                h.processElement(new StreamRecord<>(copy(raw.get(i))));
            }
            assertEquals(treated(raw.subList(3, raw.size()), RowNormalization.TRUE), out(h));
        }
    }

    @Test
    void decidesWithinItsTimeOrAtTheEndOfInput() throws Exception {
        try (var h = harness(1000)) {
            h.open();
            h.setProcessingTime(0);
            h.processElement(new StreamRecord<>(row(1, 1, 3)));
            h.setProcessingTime(WITHIN_MS - 1);
            assertTrue(out(h).isEmpty());
            h.setProcessingTime(WITHIN_MS);
            assertEquals(List.of(row(1, 0.25f, 0.75f)), out(h));
            assertEquals(List.of(RowNormalization.TRUE), decisions(h));
        }
        try (var h = harness(1000)) {
            h.open();
            h.processElement(new StreamRecord<>(row(1, -1, 3)));
            h.endInput();
            assertEquals(List.of(row(1, -1, 3)), out(h));
            assertEquals(List.of(RowNormalization.FALSE), decisions(h));
        }
    }

    @Test
    void heldRecordsRoundTripAndUnknownVersionsFail() throws Exception {
        NodeUpdate n = new NodeUpdate(7, new float[] {1, -2.5f}, 3, Split.VAL);
        assertEquals(n, NormalizeFeaturesOperator.decode(NormalizeFeaturesOperator.encode(n)));
        NodeUpdate d = NodeUpdate.deletion(8);
        assertEquals(d, NormalizeFeaturesOperator.decode(NormalizeFeaturesOperator.encode(d)));
        byte[] future = NormalizeFeaturesOperator.encode(n);
        future[0] = 99;
        assertThrows(Exception.class, () -> NormalizeFeaturesOperator.decode(future));
        assertThrows(
                IllegalStateException.class,
                () -> NormalizeFeaturesOperator.decodeDecision(new byte[] {99, 1}));
        assertEquals(
                RowNormalization.TRUE,
                NormalizeFeaturesOperator.decodeDecision(
                        new byte[] {NormalizeFeaturesOperator.VERSION, 1}));
    }

    @Test
    void autoIsNeverAppliedRowByRow() {
        float[] row = {1, 3};
        assertThrows(IllegalStateException.class, () -> RowNormalization.AUTO.apply(row));
        assertArrayEquals(new float[] {1, 3}, row);
        assertEquals(RowNormalization.TRUE, RowNormalization.decide(false));
        assertEquals(RowNormalization.FALSE, RowNormalization.decide(true));
        assertEquals(RowNormalization.TRUE, RowNormalization.TRUE.resolve(true), "stated");
        assertEquals(RowNormalization.FALSE, RowNormalization.FALSE.resolve(false), "stated");
        assertEquals("sum", RowNormalization.TRUE.manifestName());
        assertEquals(RowNormalization.FALSE, RowNormalization.ofManifestName("none"));
        assertThrows(IllegalArgumentException.class, () -> RowNormalization.ofManifestName("auto"));
    }

    private static NodeUpdate copy(NodeUpdate n) {
        return new NodeUpdate(n.id, n.features.clone(), n.label, n.split);
    }
}
