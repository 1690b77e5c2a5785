package io.gnnstream.jobs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.TrainingJob;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class TrainingFlagsTest {

    private static final String[] TOPICS = {"train", "--bootstrap-servers", "localhost:9092", "--edges-topic", "e",
        "--nodes-topic", "n", "--num-features", "4", "--num-classes", "2"};

    @Test
    void recordCacheTakesFlinkMemorySizes() {
        assertEquals(MemorySize.parse("16mb"), configurationOf("--record-cache", "16mb").get(GraphOptions.RECORD_CACHE));
        assertEquals(MemorySize.ZERO, configurationOf("--record-cache", "0").get(GraphOptions.RECORD_CACHE));
        assertEquals(GraphOptions.RECORD_CACHE.defaultValue(), configurationOf().get(GraphOptions.RECORD_CACHE));
    }

    @Test
    void adjacencyCacheTakesFlinkMemorySizes() {
        assertEquals(MemorySize.parse("1gb"),
                configurationOf("--adjacency-cache", "1gb").get(GraphOptions.ADJACENCY_CACHE));
        assertEquals(GraphOptions.ADJACENCY_CACHE.defaultValue(), configurationOf().get(GraphOptions.ADJACENCY_CACHE));
    }

    @Test
    void edgeBufferDefaultsToTheJobOption() {
        assertEquals(1, configurationOf("--edge-buffer", "1").get(GraphOptions.EDGE_BUFFER));
        assertEquals(GraphOptions.EDGE_BUFFER.defaultValue(), configurationOf().get(GraphOptions.EDGE_BUFFER));
    }

    @Test
    void aZeroEdgeBufferIsRejectedBeforeAnythingStarts() {
        Configuration conf = configurationOf("--edge-buffer", "0");
        conf.set(GraphOptions.NUM_FEATURES, 4);
        conf.set(GraphOptions.NUM_CLASSES, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertTrue(e.getMessage().contains("--edge-buffer must be positive"), e.getMessage());
    }

    @Test
    void aBadRecordCacheSizeIsAUsageError() {
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> GnnstreamCli.commandLine().parseArgs(concat("--record-cache", "lots")));
        assertTrue(e.getMessage().contains("--record-cache"), e.getMessage());
    }

    private static Configuration configurationOf(String... flags) {
        CommandLine.ParseResult parsed = GnnstreamCli.commandLine().parseArgs(concat(flags));
        TrainCommand train = (TrainCommand) parsed.subcommand().commandSpec().userObject();
        return train.flags.toConfiguration(Path.of("work/checkpoints"), 0L);
    }

    private static String[] concat(String... flags) {
        String[] all = new String[TOPICS.length + flags.length];
        System.arraycopy(TOPICS, 0, all, 0, TOPICS.length);
        System.arraycopy(flags, 0, all, TOPICS.length, flags.length);
        return all;
    }
}
