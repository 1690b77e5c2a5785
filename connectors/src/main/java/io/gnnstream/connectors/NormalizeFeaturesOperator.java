package io.gnnstream.connectors;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * {@code --normalize-features auto} for a node topic: one subtask (parallelism 1) that decides
 * once, with a {@link NormalizationDecider}, from the first {@code decideAfter} feature rows, or
 * from those that arrived within {@code decideWithinMs} of the first one, or at the end of the
 * input, and normalises every row as decided. Records wait in operator state until the decision, so
 * the rows before and after it are treated alike. The decision is kept in state (a restore keeps
 * it) and sent on {@link #DECISIONS} when made and again after every restore, for the model
 * export's manifest.
 *
 * <p>State: list {@value #DECISION_STATE} (at most one entry: format version, decision) and list
 * {@value #HELD_STATE} (the held records, each with its format version).
 */
public final class NormalizeFeaturesOperator extends AbstractStreamOperator<NodeUpdate>
        implements OneInputStreamOperator<NodeUpdate, NodeUpdate>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** The decision ({@link RowNormalization#TRUE} or {@link RowNormalization#FALSE}). */
    public static final OutputTag<RowNormalization> DECISIONS =
            new OutputTag<>("normalization-decisions", TypeInformation.of(RowNormalization.class));

    static final String DECISION_STATE = "normalize-features-decision";
    static final String HELD_STATE = "normalize-features-held";

    /** Format version of both states' entries. */
    static final byte VERSION = 1;

    private final int decideAfter;
    private final long decideWithinMs;

    private transient NormalizationDecider decider;
    private transient ListState<byte[]> decisionState;
    private transient ListState<byte[]> heldState;
    private transient boolean timerSet;

    /** Decides after {@code decideAfter} rows or {@code decideWithinMs} after the first one. */
    public NormalizeFeaturesOperator(int decideAfter, long decideWithinMs) {
        if (decideAfter < 1 || decideWithinMs < 1) {
            throw new IllegalArgumentException(
                    "decideAfter and decideWithinMs must be >= 1, got "
                            + decideAfter
                            + " and "
                            + decideWithinMs);
        }
        this.decideAfter = decideAfter;
        this.decideWithinMs = decideWithinMs;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        decisionState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        DECISION_STATE,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        heldState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        HELD_STATE,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        RowNormalization decision = null;
        for (byte[] entry : decisionState.get()) {
            decision = decodeDecision(entry);
        }
        List<NodeUpdate> held = new ArrayList<>();
        for (byte[] entry : heldState.get()) {
            held.add(decode(entry));
        }
        decider = NormalizationDecider.restore(decideAfter, decision, held);
    }

    @Override
    public void open() throws Exception {
        super.open();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        if (decider.decision() != null) {
            getProcessingTimeService().registerTimer(now, t -> announce());
        } else if (!decider.held().isEmpty()) {
            scheduleDecision(now);
        }
    }

    @Override
    public void processElement(StreamRecord<NodeUpdate> element) throws Exception {
        boolean undecided = decider.decision() == null;
        emit(decider.accept(element.getValue()));
        if (undecided && decider.decision() != null) {
            announce();
        } else if (undecided) {
            scheduleDecision(getProcessingTimeService().getCurrentProcessingTime());
        }
    }

    @Override
    public void endInput() {
        decideNow();
    }

    private void scheduleDecision(long now) {
        if (!timerSet) {
            timerSet = true;
            getProcessingTimeService().registerTimer(now + decideWithinMs, t -> decideNow());
        }
    }

    private void decideNow() {
        if (decider.decision() == null) {
            emit(decider.decideNow());
            announce();
        }
    }

    private void announce() {
        output.collect(DECISIONS, new StreamRecord<>(decider.decision()));
    }

    private void emit(List<NodeUpdate> nodes) {
        for (NodeUpdate n : nodes) {
            output.collect(new StreamRecord<>(n));
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        decisionState.clear();
        if (decider.decision() != null) {
            decisionState.add(new byte[] {VERSION, (byte) decider.decision().ordinal()});
        }
        List<byte[]> held = new ArrayList<>();
        for (NodeUpdate n : decider.held()) {
            held.add(encode(n));
        }
        heldState.update(held);
    }

    static RowNormalization decodeDecision(byte[] entry) {
        if (entry.length != 2 || entry[0] != VERSION) {
            throw new IllegalStateException(
                    "unknown format of the feature normalisation decision in state (version "
                            + (entry.length > 0 ? entry[0] : -1)
                            + ", this build reads "
                            + VERSION
                            + ")");
        }
        RowNormalization d = RowNormalization.values()[entry[1]];
        if (d == RowNormalization.AUTO) {
            throw new IllegalStateException("a stored decision is TRUE or FALSE, not AUTO");
        }
        return d;
    }

    /** A node record as held in state: version, id, delete, label, split code, features. */
    static byte[] encode(NodeUpdate n) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeLong(n.id);
            out.writeBoolean(n.delete);
            out.writeInt(n.label);
            out.writeByte(n.split.code());
            out.writeInt(n.features == null ? -1 : n.features.length);
            if (n.features != null) {
                for (float f : n.features) {
                    out.writeFloat(f);
                }
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The record {@link #encode} wrote. */
    static NodeUpdate decode(byte[] entry) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(entry));
        byte version = in.readByte();
        if (version != VERSION) {
            throw new IOException(
                    "unknown format "
                            + version
                            + " of a held node record, this build reads "
                            + VERSION);
        }
        NodeUpdate n = new NodeUpdate();
        n.id = in.readLong();
        n.delete = in.readBoolean();
        n.label = in.readInt();
        n.split = Split.ofCode(in.readByte());
        int len = in.readInt();
        if (len >= 0) {
            n.features = new float[len];
            for (int i = 0; i < len; i++) {
                n.features[i] = in.readFloat();
            }
        }
        return n;
    }
}
