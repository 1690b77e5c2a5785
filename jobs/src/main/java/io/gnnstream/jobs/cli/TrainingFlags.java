package io.gnnstream.jobs.cli;

import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine.Option;

/** Training options shared by {@code demo} and {@code train}; defaults come from the ConfigOptions. */
final class TrainingFlags {

    @Option(names = "--fanouts", split = ",", paramLabel = "K",
            description = "Neighbours per layer from the seeds outwards, -1 = all (default: ${DEFAULT-VALUE}).")
    List<Integer> fanouts;

    @Option(names = "--layers", description = "Number of layers; must match --fanouts, or extends the default "
            + "fanouts with 10s when --fanouts is not given.")
    Integer layers;

    @Option(names = "--batch-size", description = "Seeds per training batch (default: ${DEFAULT-VALUE}).")
    Integer batchSize;

    @Option(names = "--eval-batch-size", description = "Seeds per evaluation batch (default: ${DEFAULT-VALUE}).")
    Integer evalBatchSize;

    @Option(names = "--hidden", description = "Hidden units (default: ${DEFAULT-VALUE}).")
    Integer hidden;

    @Option(names = "--dropout", description = "Dropout probability (default: ${DEFAULT-VALUE}).")
    Double dropout;

    @Option(names = "--lr", description = "Adam learning rate (default: ${DEFAULT-VALUE}).")
    Double lr;

    @Option(names = "--lr-schedule", description = "COSINE (decay to 0 over --max-steps) or CONSTANT (default: ${DEFAULT-VALUE}).")
    ModelOptions.LrSchedule lrSchedule;

    @Option(names = "--weight-decay", description = "Adam weight decay (default: ${DEFAULT-VALUE}).")
    Double weightDecay;

    @Option(names = "--eval-every", description = "Evaluate every N steps, 0 = only at the end (default: ${DEFAULT-VALUE}).")
    Integer evalEvery;

    @Option(names = "--log-every", description = "Progress line every N steps (default: ${DEFAULT-VALUE}).")
    Integer logEvery;

    @Option(names = "--prefetch", description = "Batches in flight per trainer (credits) (default: ${DEFAULT-VALUE}).")
    Integer prefetch;

    @Option(names = "--max-outstanding-vertices", description = "Vertices in unanswered sample requests per assembler subtask (default: ${DEFAULT-VALUE}).")
    Integer maxOutstandingVertices;

    @Option(names = "--min-train-seeds", description = "Start training once this many training vertices are known (default: ${DEFAULT-VALUE}; "
            + "demo: all training vertices of the dataset).")
    Integer minTrainSeeds;

    @Option(names = "--batch-timeout-ms", description = "Re-send a stalled batch's requests after this long (default: ${DEFAULT-VALUE}).")
    Long batchTimeoutMs;

    @Option(names = "--partitions", description = "Logical graph partitions, a power of two (default: ${DEFAULT-VALUE}).")
    Integer partitions;

    @Option(names = "--record-cache", converter = MemorySizeConverter.class, paramLabel = "SIZE",
            description = "Heap per graph store subtask for recently fetched vertex records, e.g. 64mb; 0 = off "
                    + "(default: ${DEFAULT-VALUE}).")
    MemorySize recordCache;

    @Option(names = "--adjacency-cache", converter = MemorySizeConverter.class, paramLabel = "SIZE",
            description = "Heap per graph store subtask for recently sampled adjacency lists, e.g. 256mb; 0 = off "
                    + "(default: ${DEFAULT-VALUE}).")
    MemorySize adjacencyCache;

    @Option(names = "--edge-buffer", paramLabel = "EDGES",
            description = "Edge additions a graph store subtask buffers per destination vertex before writing them; "
                    + "1 writes every edge at once (default: ${DEFAULT-VALUE}).")
    Integer edgeBuffer;

    @Option(names = "--normalize-features", arity = "1", description = "Row-normalise features on ingest (default: ${DEFAULT-VALUE}).")
    Boolean normalizeFeatures;

    @Option(names = "--feature-cache", converter = MemorySizeConverter.class, paramLabel = "SIZE",
            description = "Heap per trainer for the features of vertices it has been sent, so that a vertex sampled "
                    + "again does not cross the network again, e.g. 256mb; 0 = off (default: ${DEFAULT-VALUE}).")
    MemorySize featureCache;

    @Option(names = "--trainer-threads", description = "ND4J threads of the trainer (default: ${DEFAULT-VALUE}).")
    Integer trainerThreads;

    @Option(names = "--parallelism", defaultValue = "1", description = "Parallelism of the graph store and sampling operators (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--checkpoint-dir", description = "Checkpoint directory (default: <work dir>/checkpoints).")
    Path checkpointDir;

    @Option(names = "--checkpoint-interval", defaultValue = "10s", converter = DurationConverter.class,
            description = "Checkpoint interval, e.g. 10s, 2m (default: ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(names = "--model-out", description = "Write the model as NumPy .npy files + manifest.json into this directory.")
    Path modelOut;

    @Option(names = "--metrics-out", description = "Write the metrics as JSON lines to this file.")
    Path metricsOut;

    @Option(names = "--seed", description = "Random seed (default: ${DEFAULT-VALUE}).")
    Long seed;

    /** Writes the flags into a Flink configuration, with the job defaults for checkpointing. */
    Configuration toConfiguration(Path defaultCheckpointDir, long maxSteps) {
        Configuration c = new Configuration();
        List<Integer> f = fanouts;
        if (layers != null) {
            if (f == null) {
                f = new ArrayList<>(SamplingOptions.FANOUTS.defaultValue());
                while (f.size() < layers) {
                    f.add(10);
                }
                f = f.subList(0, layers);
            } else if (f.size() != layers) {
                throw new IllegalArgumentException("--layers " + layers + " does not match --fanouts " + f);
            }
        }
        put(c, SamplingOptions.FANOUTS, f);
        put(c, SamplingOptions.BATCH_SIZE, batchSize);
        put(c, SamplingOptions.EVAL_BATCH_SIZE, evalBatchSize);
        put(c, SamplingOptions.EVAL_EVERY, evalEvery);
        put(c, SamplingOptions.PREFETCH, prefetch);
        put(c, SamplingOptions.MAX_OUTSTANDING_VERTICES, maxOutstandingVertices);
        put(c, SamplingOptions.MIN_TRAIN_SEEDS, minTrainSeeds);
        put(c, SamplingOptions.BATCH_TIMEOUT_MS, batchTimeoutMs);
        put(c, SamplingOptions.SEED, seed);
        put(c, SamplingOptions.MAX_STEPS, maxSteps);
        put(c, GraphOptions.PARTITIONS, partitions);
        put(c, GraphOptions.NORMALIZE_FEATURES, normalizeFeatures);
        put(c, GraphOptions.RECORD_CACHE, recordCache);
        put(c, GraphOptions.ADJACENCY_CACHE, adjacencyCache);
        put(c, GraphOptions.EDGE_BUFFER, edgeBuffer);
        put(c, ModelOptions.HIDDEN, hidden);
        put(c, ModelOptions.DROPOUT, dropout);
        put(c, ModelOptions.LEARNING_RATE, lr);
        put(c, ModelOptions.WEIGHT_DECAY, weightDecay);
        put(c, ModelOptions.LR_SCHEDULE, lrSchedule);
        put(c, ModelOptions.TRAINER_THREADS, trainerThreads);
        put(c, ModelOptions.FEATURE_CACHE, featureCache);
        put(c, ModelOptions.LOG_EVERY, logEvery);
        if (modelOut != null) {
            c.set(ModelOptions.MODEL_OUT, modelOut.toAbsolutePath().toString());
        }
        JobDefaults.apply(c, checkpointDir != null ? checkpointDir : defaultCheckpointDir, checkpointInterval);
        return c;
    }

    private static <T> void put(Configuration c, ConfigOption<T> option, T value) {
        if (value != null) {
            c.set(option, value);
        }
    }
}
