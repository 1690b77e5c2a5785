package io.gnnstream.jobs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions;
import org.rocksdb.CompressionType;

/**
 * Flink settings every run of the training job needs (docs/design.md, "Flink settings"): RocksDB
 * with incremental checkpoints, checkpointing forced despite the iterations, unaligned checkpoints
 * (aligned exactly-once checkpoints were seen to stall with feedback edges), and no generic types
 * (so Kryo can never creep in). Unless the configuration says otherwise, output buffers are flushed
 * after at most {@link #BUFFER_TIMEOUT}, two checkpoints are retained with a pause between them,
 * snapshots are compressed (Flink reads uncompressed operator state back one system call per field,
 * which made the trainer's restore take seconds), failures restart the job from its last checkpoint
 * at most {@code --max-restarts} times in a row, after delays doubling from 2 s to 1 min (Flink's
 * exponential-delay strategy: a failure that repeats at every restore ends the job instead of
 * restarting it for ever, while the delays outlast the detection of a lost TaskManager), and {@link
 * #tuneThroughput} applies.
 */
public final class JobDefaults {

    /**
     * Buffer timeout of every operator outside the sampling loop (ingestion, sinks): Flink's
     * default of 100 ms would let the last buffer of a burst wait that long. The loop's own
     * operators flush after every record ({@link TrainingJob#LOOP_BUFFER_TIMEOUT_MS}).
     */
    public static final Duration BUFFER_TIMEOUT = Duration.ofMillis(5);

    /**
     * A checkpoint not complete after this long expires, and the job restarts from its last
     * completed checkpoint (exactly once, like any failover), unless the configuration sets {@code
     * execution.checkpointing.timeout}. The job's checkpoints take seconds; with Flink's default of
     * ten minutes a checkpoint stalled on the job's loops would hold later checkpoints, and {@code
     * stop}'s savepoint queued behind it, for that long.
     */
    public static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(3);

    /**
     * Completed checkpoints kept, unless configured: the last one and the one before, so that a
     * restore has a fallback. The operators with keyed state never build an incremental snapshot on
     * a checkpoint that may no longer be retained ({@code
     * io.gnnstream.operators.KeyedStateOperator}).
     */
    public static final int RETAINED_CHECKPOINTS = 2;

    /**
     * Pause between the end of one checkpoint and the start of the next, unless configured: the
     * busy loops get a second of work between snapshots.
     */
    public static final Duration MIN_PAUSE = Duration.ofSeconds(1);

    private JobDefaults() {}

    /**
     * Like {@link #apply(Configuration, Path)} with the checkpoint directory and interval given.
     */
    public static Configuration apply(Configuration conf, Path checkpointDir, Duration interval) {
        conf.set(RunOptions.CHECKPOINT_DIR, checkpointDir.toAbsolutePath().toUri().toString());
        conf.set(RunOptions.CHECKPOINT_INTERVAL, interval);
        return apply(conf, checkpointDir);
    }

    /**
     * Sets what every run needs. The checkpoint directory is {@code --checkpoint-dir} when given (a
     * path without a scheme is a local one) and else {@code defaultCheckpointDir}; the interval is
     * {@code --checkpoint-interval} or its default.
     */
    @SuppressWarnings("deprecation")
    public static Configuration apply(Configuration conf, Path defaultCheckpointDir) {
        String dir = conf.getOptional(RunOptions.CHECKPOINT_DIR).orElse(null);
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir == null
                        ? defaultCheckpointDir.toAbsolutePath().toUri().toString()
                        : fileSystemUri(dir));
        conf.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                conf.get(RunOptions.CHECKPOINT_INTERVAL));
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        // One checkpoint at a time: the scheduler keeps every acknowledgement since its last
        // snapshot for a restored rank whose snapshot came before it (docs/design.md, "Glossary").
        conf.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, 1);
        conf.set(CheckpointingOptions.FORCE_UNALIGNED, true);
        conf.set(ExecutionCheckpointingOptions.FORCE_CHECKPOINTING, true);
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        if (!conf.contains(ExecutionOptions.BUFFER_TIMEOUT)) {
            conf.set(ExecutionOptions.BUFFER_TIMEOUT, BUFFER_TIMEOUT);
        }
        if (!conf.contains(CheckpointingOptions.CHECKPOINTING_TIMEOUT)) {
            conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, CHECKPOINT_TIMEOUT);
        }
        if (!conf.contains(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS)) {
            conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, RETAINED_CHECKPOINTS);
        }
        if (!conf.contains(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS)) {
            conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, MIN_PAUSE);
        }
        if (!conf.contains(RestartStrategyOptions.RESTART_STRATEGY)) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                    Duration.ofSeconds(2));
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
                    2.0);
            conf.set(RunOptions.MAX_RESTARTS, conf.get(RunOptions.MAX_RESTARTS));
            conf.set(RunOptions.RESTART_RESET_AFTER, conf.get(RunOptions.RESTART_RESET_AFTER));
        }
        if (!conf.contains(ExecutionOptions.SNAPSHOT_COMPRESSION)) {
            conf.set(ExecutionOptions.SNAPSHOT_COMPRESSION, true);
        }
        return tuneThroughput(conf);
    }

    /** A URI as is; a path without a scheme as an absolute {@code file:} URI. */
    public static String fileSystemUri(String location) {
        if (location.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:/.*")) {
            return location;
        }
        return Path.of(location).toAbsolutePath().toUri().toString();
    }

    /**
     * Throughput settings, unless configured otherwise. RocksDB bloom filters, so that the
     * duplicate check of an edge into a high-degree vertex (a lookup of a neighbour that is usually
     * absent) skips the files that cannot hold it ({@code bench ingest}: +16 % at 10^5 vertices of
     * degree 50, +25 % at 10^6 of degree 10). No RocksDB compression: the state is mostly floats
     * and vertex ids, which Snappy hardly shrinks, and compressing every flushed and compacted
     * block cost RocksDB's threads more than half their CPU in an evaluation round's first pass (on
     * the products-size graph the pass took 90 s with Snappy, 75 s without; the files 5 % more).
     * Levels sized from the last one up (RocksDB's {@code level_compaction_dynamic_level_bytes}),
     * so that a store of a few GB compacts through as few levels as it needs: with incremental
     * predictions on the products-size graph RocksDB's compaction took 11.6 CPU s of 40 instead of
     * 20 (docs/design.md, "Flink settings"). One thread copies a checkpoint's new RocksDB files
     * (Flink's default is 4), so that the copy does not take every core at once after each
     * checkpoint: there, incremental predictions on the products-size graph waited up to 2.5 s
     * instead of 1.7. Object reuse, so that chained operators hand records on instead of copying
     * each one with its serializer (the reflective copies of the Kafka record and the parsed edge
     * were a quarter of the source task's time): every operator of the job emits fresh objects,
     * never changes one it has emitted or keeps one it was handed for longer than the call, and
     * Flink never reuses objects read from the network.
     */
    public static Configuration tuneThroughput(Configuration conf) {
        if (!conf.contains(RocksDBConfigurableOptions.USE_BLOOM_FILTER)) {
            conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
        }
        if (!conf.contains(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL)) {
            conf.set(
                    RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL,
                    List.of(CompressionType.NO_COMPRESSION));
        }
        if (!conf.contains(RocksDBConfigurableOptions.USE_DYNAMIC_LEVEL_SIZE)) {
            conf.set(RocksDBConfigurableOptions.USE_DYNAMIC_LEVEL_SIZE, true);
        }
        if (!conf.contains(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM)) {
            conf.set(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM, 1);
        }
        if (!conf.contains(PipelineOptions.OBJECT_REUSE)) {
            conf.set(PipelineOptions.OBJECT_REUSE, true);
        }
        return conf;
    }
}
