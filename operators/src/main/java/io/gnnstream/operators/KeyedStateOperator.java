package io.gnnstream.operators;

import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Base of the operators that keep keyed state in RocksDB (the GraphStore, the replica router, the
 * batch assembler): holds back a checkpoint's completion notice that arrives after a later snapshot
 * from the keyed state backend.
 *
 * <p>An incremental RocksDB snapshot refers to the files of the last checkpoint its backend was
 * told completed, as placeholders the JobManager resolves in its shared-state registry, which drops
 * a file once no retained checkpoint used it. The backend never checks that the checkpoint it
 * builds on is still retained: a notice of checkpoint {@code c} applied after the task has already
 * snapshotted {@code num-retained} later checkpoints makes its next snapshot refer to files the
 * JobManager may have dropped; the JobManager rejects that acknowledgement ("Attempt to reference
 * unknown state") and the checkpoint stalls until it expires (Flink 1.20; {@code
 * LateCompletionNoticeITCase} reproduces it).
 *
 * <p>So a notice reaches the backend only when the operator has taken no snapshot since that
 * checkpoint: the checkpoint is then the newest this task acknowledged, and no later one can have
 * completed and subsumed it. A notice held back leaves the backend on its older base, whose files
 * each later snapshot of the task refers to again and so keeps registered; those snapshots upload
 * the files created since that base once more. Flink sends a checkpoint's notices before it
 * triggers the next checkpoint and a task takes them in order with the next barrier, so only a
 * notice whose delivery was delayed is held back.
 */
public abstract class KeyedStateOperator<OUT> extends AbstractStreamOperator<OUT> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KeyedStateOperator.class);

    /** The newest checkpoint snapshotted since the operator opened; 0 for none (ids start at 1). */
    private transient long lastSnapshot;

    private transient long heldBack;

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lastSnapshot = Math.max(lastSnapshot, context.getCheckpointId());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        if (checkpointId >= lastSnapshot) {
            super.notifyCheckpointComplete(checkpointId);
            return;
        }
        heldBack++;
        LOG.info(
                "{}: completion of checkpoint {} arrived after the snapshot of checkpoint {}; not"
                        + " building later snapshots on it ({} held back so far)",
                getOperatorName(),
                checkpointId,
                lastSnapshot,
                heldBack);
    }

    /** Completion notices held back since the operator opened. */
    long heldBackNotices() {
        return heldBack;
    }
}
