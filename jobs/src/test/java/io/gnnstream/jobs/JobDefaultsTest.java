package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.rocksdb.CompressionType;

class JobDefaultsTest {

    @Test
    void flushesBuffersSoonUsesBloomFiltersAndReusesObjectsUnlessConfiguredOtherwise() {
        Configuration defaults =
                JobDefaults.apply(new Configuration(), Path.of("cp"), Duration.ofSeconds(10));
        assertEquals(JobDefaults.BUFFER_TIMEOUT, defaults.get(ExecutionOptions.BUFFER_TIMEOUT));
        assertFalse(defaults.get(PipelineOptions.GENERIC_TYPES));
        assertTrue(defaults.get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
        assertEquals(
                List.of(CompressionType.NO_COMPRESSION),
                defaults.get(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL));
        assertTrue(defaults.get(RocksDBConfigurableOptions.USE_DYNAMIC_LEVEL_SIZE));
        assertEquals(1, defaults.get(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM));
        assertTrue(defaults.get(PipelineOptions.OBJECT_REUSE));
        assertEquals(
                JobDefaults.CHECKPOINT_TIMEOUT,
                defaults.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT));
        assertEquals(
                JobDefaults.RETAINED_CHECKPOINTS,
                defaults.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS));
        assertEquals(
                JobDefaults.MIN_PAUSE,
                defaults.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS));
        assertTrue(defaults.get(ExecutionOptions.SNAPSHOT_COMPRESSION));

        Configuration user = new Configuration();
        user.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(50));
        user.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, false);
        user.set(
                RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL,
                List.of(CompressionType.LZ4_COMPRESSION));
        user.set(RocksDBConfigurableOptions.USE_DYNAMIC_LEVEL_SIZE, false);
        user.set(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM, 8);
        user.set(PipelineOptions.OBJECT_REUSE, false);
        user.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(20));
        user.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 5);
        user.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ZERO);
        user.set(ExecutionOptions.SNAPSHOT_COMPRESSION, false);
        JobDefaults.apply(user, Path.of("cp"), Duration.ofSeconds(10));
        assertEquals(Duration.ofMillis(50), user.get(ExecutionOptions.BUFFER_TIMEOUT));
        assertFalse(user.get(RocksDBConfigurableOptions.USE_BLOOM_FILTER));
        assertEquals(
                List.of(CompressionType.LZ4_COMPRESSION),
                user.get(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL));
        assertFalse(user.get(RocksDBConfigurableOptions.USE_DYNAMIC_LEVEL_SIZE));
        assertEquals(8, user.get(RocksDBOptions.CHECKPOINT_TRANSFER_THREAD_NUM));
        assertFalse(user.get(PipelineOptions.OBJECT_REUSE));
        assertEquals(Duration.ofMinutes(20), user.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT));
        assertEquals(5, user.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS));
        assertEquals(Duration.ZERO, user.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS));
        assertFalse(user.get(ExecutionOptions.SNAPSHOT_COMPRESSION));
    }
}
