package io.gnnstream.jobs;

import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Fits the heap the job's operators take to the heap they run in (docs/design.md, "Memory
 * budgets"). The caches' sizes are upper bounds, allocated as they fill, which they do on a large
 * graph, beside the batches in flight. Given the heap {@code H} that {@code trainers} trainer
 * subtasks and {@code stores} GraphStore subtasks share:
 *
 * <ul>
 *   <li>the caches (a feature cache per trainer; a record cache, an adjacency cache, a layer-row
 *       cache per hidden layer and, with incremental predictions, a neighbour-sum cache per model
 *       layer per GraphStore subtask) take at most {@value #CACHE_SHARE} of {@code H}: sizes the
 *       user set must fit in it, else {@link #apply} throws naming them and {@code H}; the others
 *       keep their defaults where those fit and are scaled down alike where they do not;
 *   <li>where the graph's vertex count is known, the batches in flight take about {@value
 *       #BATCH_SHARE} of {@code H}: unless set, {@code --prefetch} is lowered (to at least 1) so
 *       that {@code trainers x (prefetch + 1)} batches (the credits' and the one in training) of
 *       the largest feature rows the fanouts allow within that count fit.
 * </ul>
 */
public final class MemoryDefaults {

    static final double CACHE_SHARE = 0.8;
    static final double BATCH_SHARE = 0.25;

    /** What a fanout of -1 (every in-neighbour) counts as where the graph's size is unknown. */
    static final int ALL_NEIGHBOURS = 50;

    /** A cache scaled down gets at least this much. */
    static final long MIN_CACHE = MemorySize.parse("1mb").getBytes();

    private MemoryDefaults() {}

    /** Where the job's subtasks run: the heap and how many trainers and GraphStores share it. */
    public record Heap(long bytes, int trainers, int stores, String where) {

        /** The local MiniCluster in this JVM: every subtask shares its heap. */
        public static Heap local(Configuration conf) {
            return new Heap(
                    Runtime.getRuntime().maxMemory(),
                    conf.get(ModelOptions.TRAINERS),
                    conf.get(RunOptions.PARALLELISM),
                    "this JVM (-Xmx)");
        }

        /** A TaskManager slot of {@code bytes} task heap, with one subtask of each operator. */
        public static Heap slot(long bytes) {
            return new Heap(bytes, 1, 1, "a TaskManager slot (task heap / slots)");
        }
    }

    /**
     * Sets the cache sizes and {@code --prefetch} the user left unset to what fits {@code heap};
     * returns a line saying what was lowered, or null when nothing was.
     *
     * @param vertices the graph's vertex count where known (a dataset folder): bounds a batch, and
     *     without it {@code --prefetch} is left alone (the fanouts' bound alone is far above what
     *     batches hold)
     * @throws IllegalArgumentException when the caches the user sized do not fit
     */
    public static String apply(Configuration conf, Heap heap, OptionalLong vertices) {
        int layers = conf.get(SamplingOptions.FANOUTS).size();
        boolean incremental =
                conf.get(PredictionOptions.PREDICTION_UPDATES)
                        == PredictionOptions.Updates.INCREMENTAL;
        List<Cache> caches =
                List.of(
                        new Cache(ModelOptions.FEATURE_CACHE, heap.trainers),
                        new Cache(GraphOptions.RECORD_CACHE, heap.stores),
                        new Cache(GraphOptions.ADJACENCY_CACHE, heap.stores),
                        new Cache(
                                GraphOptions.LAYER_ROW_CACHE,
                                heap.stores * Math.max(0, layers - 1)),
                        new Cache(
                                PredictionOptions.INCREMENTAL_SUM_CACHE,
                                incremental ? heap.stores * layers : 0),
                        new Cache(
                                PredictionOptions.INCREMENTAL_OUT_EDGE_CACHE,
                                incremental ? heap.stores : 0));
        long room = (long) (CACHE_SHARE * heap.bytes);
        long set = 0;
        long unset = 0;
        StringBuilder given = new StringBuilder();
        for (Cache c : caches) {
            long total = conf.get(c.option).getBytes() * c.instances;
            if (conf.contains(c.option)) {
                set += total;
                given.append(given.length() == 0 ? "" : " + ")
                        .append(c.flag())
                        .append(' ')
                        .append(text(conf.get(c.option).getBytes()))
                        .append(" x ")
                        .append(c.instances);
            } else {
                unset += total;
            }
        }
        if (set > room) {
            throw new IllegalArgumentException(
                    String.format(
                            Locale.ROOT,
                            "the caches' sizes (%s = %s) exceed %d %% of the heap of %s (%s):"
                                    + " lower them, or give the job more memory",
                            given,
                            text(set),
                            Math.round(CACHE_SHARE * 100),
                            heap.where,
                            text(heap.bytes)));
        }
        StringBuilder lowered = new StringBuilder();
        if (unset > room - set) {
            double scale = Math.max(0, room - set) / (double) unset;
            for (Cache c : caches) {
                if (!conf.contains(c.option) && c.instances > 0) {
                    long size = Math.max(MIN_CACHE, (long) (conf.get(c.option).getBytes() * scale));
                    conf.set(c.option, new MemorySize(size));
                    lowered.append(", ").append(c.flag()).append(' ').append(text(size));
                }
            }
        }
        if (!conf.contains(SamplingOptions.PREFETCH) && vertices.isPresent()) {
            long batch = batchBytes(conf, vertices);
            // Per trainer: the batches of its credits and the one it trains on.
            long fits = (long) (BATCH_SHARE * heap.bytes) / Math.max(1, batch * heap.trainers);
            int prefetch =
                    (int) Math.max(1, Math.min(conf.get(SamplingOptions.PREFETCH), fits - 1));
            if (prefetch < conf.get(SamplingOptions.PREFETCH)) {
                conf.set(SamplingOptions.PREFETCH, prefetch);
                lowered.append(", ")
                        .append(flag(SamplingOptions.PREFETCH))
                        .append(' ')
                        .append(prefetch);
            }
        }
        return lowered.length() == 0
                ? null
                : "Memory: the heap of "
                        + heap.where
                        + " is "
                        + text(heap.bytes)
                        + "; lowered "
                        + lowered.substring(2)
                        + " to fit it";
    }

    /** The largest feature rows of one batch: seeds times the fanouts' expansion, at most all. */
    static long batchBytes(Configuration conf, OptionalLong vertices) {
        double sources = conf.get(SamplingOptions.BATCH_SIZE);
        for (int f : conf.get(SamplingOptions.FANOUTS)) {
            sources *= 1 + (f < 0 ? ALL_NEIGHBOURS : f);
        }
        if (vertices.isPresent()) {
            sources = Math.min(sources, vertices.getAsLong());
        }
        return (long)
                Math.min(
                        Long.MAX_VALUE / 4.0,
                        sources * conf.get(GraphOptions.NUM_FEATURES) * Float.BYTES);
    }

    private static String flag(ConfigOption<?> option) {
        return JobOptions.all().stream()
                .filter(o -> o.key().equals(option.key()))
                .map(JobOption::flag)
                .findFirst()
                .orElse(option.key());
    }

    private static String text(long bytes) {
        return bytes >= 10L << 30
                ? (bytes >> 30) + " GiB"
                : bytes >= 10L << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    private record Cache(ConfigOption<MemorySize> option, int instances) {
        String flag() {
            return MemoryDefaults.flag(option);
        }
    }
}
