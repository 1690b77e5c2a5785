package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class RssSamplerTest {

    private static final String STATUS =
            "Name:\tjava\n"
                    + "Umask:\t0022\n"
                    + "State:\tS (sleeping)\n"
                    + "VmPeak:\t 9876544 kB\n"
                    + "VmSize:\t 9812345 kB\n"
                    + "VmHWM:\t  612345 kB\n"
                    + "VmRSS:\t  523456 kB\n"
                    + "RssAnon:\t  500000 kB\n"
                    + "Threads:\t42\n";

    @Test
    void readsTheVmRssLineInBytes() {
        assertEquals(523_456L * 1024, RssSampler.vmRssBytes(STATUS));
        assertEquals(0, RssSampler.vmRssBytes("VmRSS:\t0 kB"));
    }

    @Test
    void missingOrMalformedVmRssIsAnError() {
        assertThrows(
                IllegalArgumentException.class,
                () -> RssSampler.vmRssBytes("Name:\tkthreadd\nThreads:\t1\n"));
        assertThrows(
                IllegalArgumentException.class, () -> RssSampler.vmRssBytes("VmRSS:\t  12 MB\n"));
        assertThrows(
                IllegalArgumentException.class, () -> RssSampler.vmRssBytes("VmRSS:\t  -3 kB\n"));
        assertThrows(
                IllegalArgumentException.class, () -> RssSampler.vmRssBytes("VmRSS:\t  x kB\n"));
        assertThrows(IllegalArgumentException.class, () -> RssSampler.vmRssBytes(""));
    }

    @Test
    void peakOfThisProcessIsAtLeastItsRssBeforeSampling() throws Exception {
        assumeTrue(RssSampler.available(), "needs /proc");
        long self = ProcessHandle.current().pid();
        long before = RssSampler.current(self);
        assertTrue(before > 0);
        RssSampler sampler = RssSampler.start(self, self);
        try (sampler) {
            assertTrue(sampler.peakBytes(0) > 0, "sampled once on start");
        }
        assertTrue(sampler.peakBytes(1) > 0);
    }

    @Test
    void aProcessThatIsGoneCannotBeSampled() {
        assumeTrue(RssSampler.available(), "needs /proc");
        assertThrows(IOException.class, () -> RssSampler.start(Long.MAX_VALUE));
    }
}
