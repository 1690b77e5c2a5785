package io.gnnstream.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

class TaskManagerMemoryTest {

    private static long gib(double g) {
        return (long) (g * (1L << 30));
    }

    @Test
    void threeQuartersOfTheHostLessTheJobManagersShared() {
        // 24 GiB: 18 GiB, less a 1 GiB JobManager, for 2 TaskManagers.
        assertEquals(
                MemorySize.ofMebiBytes(8704), TaskManagerMemory.auto(gib(24), 2, 1, gib(1), false));
        // A host of TaskManagers only.
        assertEquals(
                MemorySize.ofMebiBytes(6144), TaskManagerMemory.auto(gib(16), 2, 0, gib(1), false));
        // High availability with its own ZooKeeper: two JobManagers and 256 MiB more.
        assertEquals(
                MemorySize.ofMebiBytes(13056), TaskManagerMemory.auto(gib(20), 1, 2, gib(1), true));
    }

    @Test
    void smallAndLargeHostsAreClamped() {
        assertEquals(MemorySize.parse("2g"), TaskManagerMemory.auto(gib(4), 2, 1, gib(1), false));
        assertEquals(
                MemorySize.parse("64g"), TaskManagerMemory.auto(gib(512), 1, 1, gib(1), false));
    }

    @Test
    void theHostsMemoryIsReadHere() {
        // Linux: /proc/meminfo is there; the size is positive and below a petabyte.
        long host = TaskManagerMemory.hostBytes().orElseThrow();
        assertTrue(host > 0 && host < (1L << 50), "host memory " + host);
    }
}
