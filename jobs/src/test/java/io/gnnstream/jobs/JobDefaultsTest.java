package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.junit.jupiter.api.Test;

class JobDefaultsTest {

    @Test
    void flushesTheLoopsBuffersSoonUnlessConfiguredOtherwise() {
        Configuration defaults = JobDefaults.apply(new Configuration(), Path.of("cp"), Duration.ofSeconds(10));
        assertEquals(JobDefaults.BUFFER_TIMEOUT, defaults.get(ExecutionOptions.BUFFER_TIMEOUT));
        assertFalse(defaults.get(PipelineOptions.GENERIC_TYPES));

        Configuration user = new Configuration();
        user.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(50));
        JobDefaults.apply(user, Path.of("cp"), Duration.ofSeconds(10));
        assertEquals(Duration.ofMillis(50), user.get(ExecutionOptions.BUFFER_TIMEOUT));
    }
}
