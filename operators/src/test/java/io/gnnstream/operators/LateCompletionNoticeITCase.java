package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * The stalled checkpoint, reproduced and fixed. A keyed operator on RocksDB with incremental
 * checkpoints (two retained) gets each checkpoint's completion notice two checkpoints late, as a
 * task whose notices are delayed does. With Flink's own operator base the backend builds its next
 * snapshot on files the JobManager has dropped, the JobManager rejects the acknowledgement
 * ("Attempt to reference unknown state" in its log) and the checkpoint expires, which fails this
 * job (no failed checkpoint tolerated). With {@link KeyedStateOperator} the late notices are held
 * back and every checkpoint completes.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LateCompletionNoticeITCase {

    private static final int LAG = 2;
    private static final AtomicInteger LATE_NOTICES = new AtomicInteger();

    @Test
    void flinksOperatorBaseStallsOnANoticeTwoCheckpointsLate(@TempDir Path dir) throws Exception {
        JobClient job = start(dir, new LateNotices(LAG, false));
        JobStatus status = awaitEnd(job, Duration.ofSeconds(90));
        assertEquals(JobStatus.FAILED, status, "the job should fail on its stalled checkpoint");
        Throwable failure = null;
        try {
            job.getJobExecutionResult().get();
        } catch (Exception e) {
            failure = e;
        }
        assertTrue(
                failure != null
                        && ExceptionUtils.findThrowableWithMessage(
                                        failure, "Checkpoint expired before completing")
                                .isPresent(),
                "expected an expired checkpoint, got " + failure);
    }

    @Test
    void keyedStateOperatorsHoldLateNoticesBack(@TempDir Path dir) throws Exception {
        LATE_NOTICES.set(0);
        JobClient job = start(dir, new LateNotices(LAG, true));
        // Ten checkpoints and more with late notices, none failed (a failed one fails the job).
        JobStatus status = awaitEnd(job, Duration.ofSeconds(25));
        assertEquals(JobStatus.RUNNING, status, "checkpoints failed");
        assertTrue(LATE_NOTICES.get() >= 10, "late notices: " + LATE_NOTICES.get());
        job.cancel().get(1, TimeUnit.MINUTES);
    }

    private static JobClient start(Path dir, LateNotices operator) throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMillis(200));
        conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofSeconds(5));
        conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 0);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 2);
        conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        // Every file goes to the checkpoint directory (none inlined in the metadata).
        conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("0b"));
        conf.setString("restart-strategy.type", "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        EmbeddedRocksDBStateBackend backend = new EmbeddedRocksDBStateBackend(true);
        backend.setRocksDBOptions(new NoCompactions());
        env.setStateBackend(backend);
        env.addSource(new Counter())
                .keyBy(x -> x % 1000)
                .transform("late-notices", Types.LONG, operator)
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("late-completion-notices");
    }

    /** The job's status after {@code wait}, or as soon as it ends (its local cluster ends too). */
    private static JobStatus awaitEnd(JobClient job, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        var result = job.getJobExecutionResult();
        while (System.nanoTime() < deadline && !result.isDone()) {
            Thread.sleep(500);
        }
        if (!result.isDone()) {
            return job.getJobStatus().get();
        }
        return result.isCompletedExceptionally() ? JobStatus.FAILED : JobStatus.FINISHED;
    }

    /**
     * A keyed operator that applies each completion notice just before the snapshot {@code lag + 1}
     * checkpoints later: straight to its keyed state backend, as Flink's operator base passes it
     * on, or ({@code guarded}) through {@link KeyedStateOperator}.
     */
    static class LateNotices extends KeyedStateOperator<Long>
            implements OneInputStreamOperator<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final int lag;
        private final boolean guarded;
        private transient TreeSet<Long> held;
        private transient ValueState<Long> sum;

        LateNotices(int lag, boolean guarded) {
            this.lag = lag;
            this.guarded = guarded;
        }

        @Override
        public void open() throws Exception {
            super.open();
            held = new TreeSet<>();
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
        }

        @Override
        public void processElement(StreamRecord<Long> element) throws Exception {
            Long s = sum.value();
            sum.update(s == null ? element.getValue() : s + element.getValue());
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            held.add(checkpointId);
        }

        @Override
        public void snapshotState(StateSnapshotContext context) throws Exception {
            long n = context.getCheckpointId();
            for (Iterator<Long> it = held.iterator(); it.hasNext(); ) {
                long id = it.next();
                if (id <= n - 1 - lag) {
                    it.remove();
                    LATE_NOTICES.incrementAndGet();
                    if (guarded) {
                        super.notifyCheckpointComplete(id);
                    } else {
                        ((CheckpointListener) getKeyedStateBackend()).notifyCheckpointComplete(id);
                    }
                }
            }
            super.snapshotState(context);
        }
    }

    /** A source of increasing numbers, a few per millisecond. */
    static class Counter implements SourceFunction<Long> {
        private static final long serialVersionUID = 1L;
        private volatile boolean running = true;

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            long i = 0;
            while (running) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(i++);
                }
                Thread.sleep(1);
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }

    /** Keeps every flushed file, so that a later snapshot refers to the older ones. */
    static class NoCompactions implements RocksDBOptionsFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handles) {
            return current;
        }

        @Override
        public ColumnFamilyOptions createColumnOptions(
                ColumnFamilyOptions current, Collection<AutoCloseable> handles) {
            return current.setDisableAutoCompactions(true);
        }
    }
}
