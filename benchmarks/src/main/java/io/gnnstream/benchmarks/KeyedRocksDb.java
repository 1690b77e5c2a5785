package io.gnnstream.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.FileUtils;

/**
 * An EmbeddedRocksDBStateBackend keyed by vertex id ({@code Long}) outside a job, in a temporary
 * directory deleted on close. Flink's operator test harness hosts an operator that only exposes its
 * keyed state store, so state is read and written through the same API and serializers as in the
 * operators.
 */
final class KeyedRocksDb implements AutoCloseable {

    private static final int MAX_PARALLELISM = 128;

    private final Path dir;
    private final StoreOperator operator = new StoreOperator();
    private final KeyedOneInputStreamOperatorTestHarness<Long, Long, Void> harness;

    KeyedRocksDb() throws Exception {
        dir = Files.createTempDirectory("gnnstream-jmh-rocksdb");
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
        // The harness has almost no managed memory; RocksDB would then flush a file every few
        // writes.
        rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
        rocksDb.setDbStoragePath(dir.toString());
        try {
            harness =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            operator, v -> v, Types.LONG, MAX_PARALLELISM, 1, 0);
            harness.setStateBackend(rocksDb);
            harness.open();
        } catch (Exception | Error e) {
            FileUtils.deleteDirectory(dir.toFile());
            throw e;
        }
    }

    KeyedStateStore store() {
        return operator.getKeyedStateStore();
    }

    void setKey(long vertex) {
        operator.setCurrentKey(vertex);
    }

    /**
     * Flushes and compacts the given states, so reads go to SST files through the block cache as
     * for a graph loaded long ago, not to a memtable full of merge operands and overwritten values.
     */
    void compact(StateDescriptor<?, ?>... states) throws Exception {
        RocksDBKeyedStateBackend<?> backend =
                (RocksDBKeyedStateBackend<?>) operator.getKeyedStateBackend();
        for (StateDescriptor<?, ?> state : states) {
            backend.compactState(state);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            harness.close();
        } finally {
            FileUtils.deleteDirectory(dir.toFile());
        }
    }

    /** Holds keyed state only; the benchmarks drive it directly, never through elements. */
    private static final class StoreOperator extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<Long, Void> {

        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(StreamRecord<Long> element) {}
    }
}
