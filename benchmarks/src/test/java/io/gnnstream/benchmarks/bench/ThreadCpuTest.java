package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class ThreadCpuTest {

    @Test
    void groupsThreadsOfOnePool() {
        assertEquals("C2 CompilerThre", ThreadCpu.group("C2 CompilerThre"));
        assertEquals("GC Thread", ThreadCpu.group("GC Thread#3"));
        assertEquals("graph-store", ThreadCpu.group("graph-store (1/"));
        assertEquals("rocksdb:low", ThreadCpu.group("rocksdb:low"));
        assertEquals("kafka-producer", ThreadCpu.group("kafka-producer-"));
        assertEquals("pool-3-thread", ThreadCpu.group("pool-3-thread-12"));
    }

    @Test
    void readsThisProcess() {
        ThreadCpu before = ThreadCpu.of(ProcessHandle.current().pid());
        long x = 0;
        for (long i = 0; i < 200_000_000L; i++) {
            x += i ^ (x >>> 3);
        }
        assertFalse(
                ThreadCpu.of(ProcessHandle.current().pid()).topSince(before, 3).isEmpty(),
                "spun to " + x);
    }
}
