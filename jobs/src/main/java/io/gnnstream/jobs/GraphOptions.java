package io.gnnstream.jobs;

import static io.gnnstream.jobs.OptionCheck.positive;
import static io.gnnstream.jobs.OptionCheck.that;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.state.KeyGroupAnchors;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/** Options of the graph state: partitioning and the shape of vertex attributes. */
public final class GraphOptions {

    private GraphOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Graph");

    public static final ConfigOption<Integer> PARTITIONS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.partitions")
                            .intType()
                            .defaultValue(128)
                            .withDescription(
                                    "Number of logical graph partitions P (a power of two, at most"
                                        + " 32768). It is also the job's max parallelism: partition"
                                        + " p lives in key group p, so it is fixed for the life of"
                                        + " a savepoint lineage."),
                    that(
                            KeyGroupAnchors::isSupportedMaxParallelism,
                            "must be a power of two in [1, 32768]"));

    public static final ConfigOption<String> PARTITION_MAP =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.partition-map")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Vertex-to-partition map written by `partition` (a path or a"
                                        + " Flink file system URI) with --partitions partitions:"
                                        + " mapped vertices go to their partition, others by hash."
                                        + " Part of the savepoint lineage: resume with the same map"
                                        + " (default: hash)."),
                    that(s -> !s.isBlank(), "must not be empty"));

    /** What partitions replicate of the vertices of other partitions with an in-edge into them. */
    public enum Halo {
        /**
         * The attribute records (features, label, split), kept up to date by the replica router.
         */
        FEATURES,
        /** Nothing. */
        NONE
    }

    public static final ConfigOption<Halo> HALO =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.halo")
                            .enumType(Halo.class)
                            .noDefaultValue()
                            .withDescription(
                                    "Halo replicas: with features, every GraphStore subtask keeps a"
                                        + " copy of the attribute record of each vertex of another"
                                        + " subtask that has an in-edge into one of its partitions,"
                                        + " updated with every node update, dropped within a second"
                                        + " of the last such edge's removal and made again for the"
                                        + " new subtasks after a rescale (Flink metrics"
                                        + " haloReplicas, replicationFactor, replicaPushes), so"
                                        + " that one-hop features are read locally. They pay off"
                                        + " with a --partition-map of low edge cut and local"
                                        + " batches; with hash placement they save no traffic and"
                                        + " cost ingestion (default: features with a"
                                        + " --partition-map, else none). Part of the savepoint"
                                        + " lineage (a job records it, and resume keeps it)."),
                    OptionCheck.any());

    public static final ConfigOption<Integer> NUM_FEATURES =
            GROUP.declareRequired(
                    ConfigOptions.key("gnnstream.graph.num-features")
                            .intType()
                            .noDefaultValue()
                            .withDescription(
                                    "Feature dimension of every node record; records of another"
                                            + " dimension are rejected."),
                    positive());

    public static final ConfigOption<Integer> NUM_CLASSES =
            GROUP.declareRequired(
                    ConfigOptions.key("gnnstream.graph.num-classes")
                            .intType()
                            .noDefaultValue()
                            .withDescription(
                                    "Number of classes; labels outside [0, classes) are rejected."),
                    that(c -> c >= 2, "must be at least 2"));

    public static final ConfigOption<RowNormalization> NORMALIZE_FEATURES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.normalize-features")
                            .enumType(RowNormalization.class)
                            .defaultValue(RowNormalization.AUTO)
                            .withDescription(
                                    "Row normalisation of features, decided once per dataset: true"
                                        + " divides each row by its sum (like PyG's"
                                        + " NormalizeFeatures), false keeps rows as they are, auto"
                                        + " divides them when no row has a negative feature"
                                        + " (bag-of-words, counts) and keeps them otherwise"
                                        + " (embeddings, PCA or standardised features). A dataset"
                                        + " folder decides from its scan; a node topic from its"
                                        + " first --normalize-decide-after rows, holding records"
                                        + " back until then. The model export records it."),
                    OptionCheck.any());

    public static final ConfigOption<Integer> NORMALIZE_DECIDE_AFTER =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.normalize-decide-after")
                            .intType()
                            .defaultValue(1000)
                            .withDescription(
                                    "--normalize-features auto on a node topic: the number of first"
                                        + " feature rows it is decided from (or those within"
                                        + " --normalize-decide-within of the first); then kept in"
                                        + " state."),
                    positive());

    public static final ConfigOption<Duration> NORMALIZE_DECIDE_WITHIN =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.normalize-decide-within")
                            .durationType()
                            .defaultValue(Duration.ofSeconds(2))
                            .withDescription(
                                    "--normalize-features auto on a node topic: decide at the"
                                        + " latest this long after the first node record, from the"
                                        + " rows that arrived by then."),
                    that(d -> !d.isNegative() && !d.isZero(), "must be positive"));

    public static final ConfigOption<Long> STATS_INTERVAL_MS =
            GROUP.declareHidden(
                    ConfigOptions.key("gnnstream.graph.stats-interval-ms")
                            .longType()
                            .defaultValue(250L)
                            .withDescription(
                                    "How often the graph store publishes partition sizes to the"
                                        + " scheduler (and so to the progress lines); at most one"
                                        + " small event per touched partition per interval."),
                    positive());

    public static final ConfigOption<MemorySize> RECORD_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.record-cache")
                            .memoryType()
                            .defaultValue(MemorySize.parse("64mb"))
                            .withDescription(
                                    "Heap per graph store subtask for recently fetched vertex"
                                        + " records (features, label, split), so sampled"
                                        + " neighbourhoods that return to the same vertices skip"
                                        + " RocksDB; 0 turns the cache off."),
                    OptionCheck.any());

    public static final ConfigOption<MemorySize> ADJACENCY_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.adjacency-cache")
                            .memoryType()
                            .defaultValue(MemorySize.parse("256mb"))
                            .withDescription(
                                    "Heap per graph store subtask for recently sampled adjacency"
                                        + " lists (the whole list of a vertex with up to 4,096"
                                        + " in-neighbours, the degree and last block of a larger"
                                        + " hub), so sampling them skips RocksDB; about 64 bytes"
                                        + " plus 8 per in-neighbour each, so the default holds a"
                                        + " graph of 10^6 vertices of average degree 10; allocated"
                                        + " as it fills; 0 turns the cache off."),
                    OptionCheck.any());

    public static final ConfigOption<MemorySize> LAYER_ROW_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.layer-row-cache")
                            .memoryType()
                            .defaultValue(MemorySize.parse("1gb"))
                            .withDescription(
                                    "Heap per graph store subtask and hidden layer for the rows an"
                                        + " evaluation round stores in the layer-output store, so"
                                        + " the next layer's blocks read most of them without"
                                        + " RocksDB (root parts, read once by their destination,"
                                        + " only in the room the other parts leave); about 80 bytes"
                                        + " plus 4 per float of a row each (the default holds 4"
                                        + " million rows of 47 floats); allocated as it fills; 0"
                                        + " turns the cache off."),
                    OptionCheck.any());

    public static final ConfigOption<Boolean> AGGREGATE_AT_OWNER =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.aggregate-at-owner")
                            .booleanType()
                            .defaultValue(true)
                            .withDescription(
                                    "Evaluation rounds of GraphSAGE: a graph store subtask sums the"
                                            + " stored rows of the in-neighbours it owns into their"
                                            + " destination's row instead of sending them to the"
                                            + " trainer (the same outputs up to rounding, far fewer"
                                            + " rows moved); false sends every row."),
                    OptionCheck.any());

    public static final ConfigOption<Integer> EDGE_BUFFER =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.graph.edge-buffer")
                            .intType()
                            .defaultValue(1 << 17)
                            .withDescription(
                                    "Edge additions a graph store subtask buffers per destination"
                                        + " vertex before writing them, one adjacency update per"
                                        + " vertex; written before every sample request and"
                                        + " checkpoint. 1 writes every edge at once."),
                    positive());

    /** The halo setting of {@code conf}: {@link #HALO}, or its default for the placement. */
    public static Halo halo(ReadableConfig conf) {
        return conf.getOptional(HALO)
                .orElseGet(
                        () ->
                                conf.getOptional(PARTITION_MAP).isPresent()
                                        ? Halo.FEATURES
                                        : Halo.NONE);
    }
}
