package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SoakProbeTest {

    @Test
    void readsTheOldGenerationOfTheParallelCollector() throws IOException {
        String info =
                "21798:\n"
                        + " PSYoungGen      total 330240K, used 69231K [0x00000000e8f80000,"
                        + " 0x0000000100000000, 0x0000000100000000)\n"
                        + "  eden space 283136K, 24% used\n"
                        + " ParOldGen       total 755200K, used 16995K [0x00000000bae00000,"
                        + " 0x00000000e8f80000, 0x00000000e8f80000)\n"
                        + "  object space 755200K, 2% used\n"
                        + " Metaspace       used 39287K, committed 39616K, reserved 278528K\n";
        assertEquals(16995L * 1024, SoakProbe.oldGeneration(info));
    }

    @Test
    void takesTheWholeHeapOfG1() throws IOException {
        String info =
                " garbage-first heap   total 262144K, used 12345K [0x0000000700000000,"
                        + " 0x0000000800000000)\n  region size 1024K, 3 young (3072K)\n";
        assertEquals(12345L * 1024, SoakProbe.oldGeneration(info));
    }

    @Test
    void failsWithoutAnOldGeneration() {
        assertThrows(IOException.class, () -> SoakProbe.oldGeneration("21798:\nno heap\n"));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void readsThisJvmsOldGenerationAfterAFullCollectionInOneJcmd() throws Exception {
        long[] held = new long[4 << 20];
        List<Long> bytes =
                SoakProbe.oldGenerationsAfterFullGc(List.of(ProcessHandle.current().pid()));
        assertEquals(1, bytes.size());
        assertTrue(bytes.get(0) >= 8L * held.length, bytes + " holds a 32 MiB array");
    }
}
