package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobOption;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class TrainingFlagsTest {

    private static final String[] TOPICS = {
        "train",
        "--bootstrap-servers",
        "localhost:9092",
        "--edges-topic",
        "e",
        "--nodes-topic",
        "n",
        "--num-features",
        "4",
        "--num-classes",
        "2"
    };

    @Test
    void recordCacheTakesFlinkMemorySizes() {
        assertEquals(
                MemorySize.parse("16mb"),
                configurationOf("--record-cache", "16mb").get(GraphOptions.RECORD_CACHE));
        assertEquals(
                MemorySize.ZERO,
                configurationOf("--record-cache", "0").get(GraphOptions.RECORD_CACHE));
        assertEquals(
                GraphOptions.RECORD_CACHE.defaultValue(),
                configurationOf().get(GraphOptions.RECORD_CACHE));
    }

    @Test
    void adjacencyCacheTakesFlinkMemorySizes() {
        assertEquals(
                MemorySize.parse("1gb"),
                configurationOf("--adjacency-cache", "1gb").get(GraphOptions.ADJACENCY_CACHE));
        assertEquals(
                GraphOptions.ADJACENCY_CACHE.defaultValue(),
                configurationOf().get(GraphOptions.ADJACENCY_CACHE));
    }

    @Test
    void edgeBufferDefaultsToTheJobOption() {
        assertEquals(1, configurationOf("--edge-buffer", "1").get(GraphOptions.EDGE_BUFFER));
        assertEquals(
                GraphOptions.EDGE_BUFFER.defaultValue(),
                configurationOf().get(GraphOptions.EDGE_BUFFER));
    }

    @Test
    void aZeroEdgeBufferIsRejectedBeforeAnythingStarts() {
        CommandLine.ParameterException flag =
                assertThrows(
                        CommandLine.ParameterException.class,
                        () -> configurationOf("--edge-buffer", "0"));
        assertTrue(flag.getMessage().contains("--edge-buffer must be positive"), flag.getMessage());
        Configuration conf = configurationOf();
        conf.set(GraphOptions.EDGE_BUFFER, 0);
        conf.set(GraphOptions.NUM_FEATURES, 4);
        conf.set(GraphOptions.NUM_CLASSES, 2);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertTrue(e.getMessage().contains("--edge-buffer must be positive"), e.getMessage());
    }

    @Test
    void localBatchesNeedAGraphStoreSubtaskPerRank() {
        Configuration conf =
                configurationOf("--local-batches", "true", "--trainers", "2", "--parallelism", "1");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertTrue(
                e.getMessage().contains("--local-batches needs --trainers <= --parallelism"),
                e.getMessage());
        conf.set(RunOptions.PARALLELISM, 2);
        TrainingJob.validate(conf);
    }

    @Test
    void haloReplicasAndLocalBatchesAreOnByDefaultWithAPartitionMapOnly() {
        assertEquals(GraphOptions.Halo.NONE, GraphOptions.halo(configurationOf()));
        assertEquals(
                GraphOptions.Halo.FEATURES,
                GraphOptions.halo(configurationOf("--partition-map", "m.map")));
        assertEquals(
                GraphOptions.Halo.NONE,
                GraphOptions.halo(configurationOf("--partition-map", "m.map", "--halo", "none")));
        assertFalse(
                SamplingOptions.localBatches(
                        configurationOf("--trainers", "2", "--parallelism", "2")),
                "hash");
        assertTrue(
                SamplingOptions.localBatches(
                        configurationOf(
                                "--partition-map",
                                "m.map",
                                "--trainers",
                                "2",
                                "--parallelism",
                                "2")));
        Configuration fewer =
                configurationOf(
                        "--partition-map", "m.map", "--trainers", "2", "--parallelism", "1");
        assertFalse(SamplingOptions.localBatches(fewer), "more ranks than GraphStore subtasks");
        TrainingJob.validate(fewer);
        assertFalse(
                SamplingOptions.localBatches(
                        configurationOf("--partition-map", "m.map", "--local-batches", "false")));
    }

    @Test
    void aJobRecordsItsLineageOptionsAlsoWhenDefaulted() {
        Map<String, String> recorded = JobOptions.recorded(configurationOf("--trainers", "2"));
        assertEquals("2", recorded.get(ModelOptions.TRAINERS.key()));
        assertEquals("128", recorded.get(GraphOptions.PARTITIONS.key()));
        assertEquals(
                "NONE",
                recorded.get(GraphOptions.HALO.key()).toUpperCase(java.util.Locale.ROOT),
                "hash placement");
        assertFalse(
                recorded.containsKey(SamplingOptions.BATCH_SIZE.key()),
                "other defaults stay unrecorded");
        assertEquals(
                GraphOptions.Halo.NONE, JobOptions.fromRecorded(recorded).get(GraphOptions.HALO));
        Map<String, String> mapped =
                JobOptions.recorded(configurationOf("--partition-map", "m.map"));
        assertEquals(
                GraphOptions.Halo.FEATURES,
                JobOptions.fromRecorded(mapped).get(GraphOptions.HALO),
                "halo replicas by default with a map, recorded so that resume keeps them");
    }

    @Test
    void everyJobOptionHasAFlagWithItsDefaultInTheHelp() {
        // Help wraps its lines: compare with single spaces.
        String help =
                GnnstreamCli.commandLine()
                        .getSubcommands()
                        .get("train")
                        .getUsageMessage()
                        .replaceAll("\\s+", " ");
        for (JobOption<?> option : JobOptions.all()) {
            if (option.hidden()) {
                continue;
            }
            assertTrue(help.contains(option.flag() + "="), option.flag());
            if (option.defaultText() != null) {
                assertTrue(help.contains("(default: " + option.defaultText() + ")"), option.flag());
            }
            // The description's words, not a Description object's identity.
            String firstWords =
                    String.join(
                            " ",
                            java.util.Arrays.asList(option.description().split("\\s+"))
                                    .subList(
                                            0,
                                            Math.min(
                                                    2, option.description().split("\\s+").length)));
            assertTrue(help.contains(firstWords), option.flag() + ": " + firstWords);
        }
        assertTrue(!help.contains("Description@"), help);
    }

    @Test
    void flagsTakeTheOptionsTypes() {
        Configuration conf =
                configurationOf(
                        "--fanouts",
                        "15,5",
                        "--lr-schedule",
                        "constant",
                        "--dropout",
                        "0.25",
                        "--checkpoint-interval",
                        "2min");
        assertEquals(List.of(15, 5), conf.get(SamplingOptions.FANOUTS));
        assertEquals(ModelOptions.LrSchedule.CONSTANT, conf.get(ModelOptions.LR_SCHEDULE));
        assertEquals(0.25, conf.get(ModelOptions.DROPOUT));
        assertEquals(Duration.ofMinutes(2), conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL));
        assertThrows(
                CommandLine.ParameterException.class, () -> configurationOf("--fanouts", "15,0"));
        assertThrows(
                CommandLine.ParameterException.class, () -> configurationOf("--partitions", "12"));
    }

    @Test
    void aGivenFlagOverridesAConfigurationFileOnlyWhenGiven() {
        Configuration conf = configurationOf();
        assertFalse(conf.contains(ModelOptions.HIDDEN));
        assertEquals(Duration.ofSeconds(10), conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL));
    }

    @Test
    void aBadRecordCacheSizeIsAUsageError() {
        CommandLine.ParameterException e =
                assertThrows(
                        CommandLine.ParameterException.class,
                        () ->
                                GnnstreamCli.commandLine()
                                        .parseArgs(concat("--record-cache", "lots")));
        assertTrue(e.getMessage().contains("--record-cache"), e.getMessage());
    }

    private static Configuration configurationOf(String... flags) {
        CommandLine.ParseResult parsed = GnnstreamCli.commandLine().parseArgs(concat(flags));
        TrainCommand train = (TrainCommand) parsed.subcommand().commandSpec().userObject();
        return train.flags.toConfiguration(
                parsed.subcommand().commandSpec(), Path.of("work/checkpoints"));
    }

    private static String[] concat(String... flags) {
        String[] all = new String[TOPICS.length + flags.length];
        System.arraycopy(TOPICS, 0, all, 0, TOPICS.length);
        System.arraycopy(flags, 0, all, TOPICS.length, flags.length);
        return all;
    }
}
