package io.gnnstream.jobs;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions;

/**
 * Flink settings every run of the training job needs (STACK.md): RocksDB with incremental
 * checkpoints, checkpointing forced despite the iterations, unaligned checkpoints (aligned exactly-once
 * checkpoints were seen to stall with feedback edges), and no generic types (so Kryo can never
 * creep in).
 */
public final class JobDefaults {

    private JobDefaults() {}

    @SuppressWarnings("deprecation")
    public static Configuration apply(Configuration conf, Path checkpointDir, Duration interval) {
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.toAbsolutePath().toUri().toString());
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        conf.set(CheckpointingOptions.FORCE_UNALIGNED, true);
        conf.set(ExecutionCheckpointingOptions.FORCE_CHECKPOINTING, true);
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        return conf;
    }
}
