package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

class MemoryDefaultsTest {

    private static final long MB = 1 << 20;

    private static Configuration graph(int features) {
        Configuration conf = new Configuration();
        conf.set(GraphOptions.NUM_FEATURES, features);
        conf.set(GraphOptions.NUM_CLASSES, 8);
        return conf;
    }

    private static long caches(Configuration conf, MemoryDefaults.Heap heap) {
        int hidden = conf.get(SamplingOptions.FANOUTS).size() - 1;
        return heap.trainers() * conf.get(ModelOptions.FEATURE_CACHE).getBytes()
                + heap.stores()
                        * (conf.get(GraphOptions.RECORD_CACHE).getBytes()
                                + conf.get(GraphOptions.ADJACENCY_CACHE).getBytes()
                                + hidden * conf.get(GraphOptions.LAYER_ROW_CACHE).getBytes()
                                + (conf.get(PredictionOptions.PREDICTION_UPDATES)
                                                == PredictionOptions.Updates.INCREMENTAL
                                        ? (hidden + 1)
                                                        * conf.get(
                                                                        PredictionOptions
                                                                                .INCREMENTAL_SUM_CACHE)
                                                                .getBytes()
                                                + conf.get(
                                                                PredictionOptions
                                                                        .INCREMENTAL_OUT_EDGE_CACHE)
                                                        .getBytes()
                                        : 0));
    }

    @Test
    void incrementalPredictionsCountTheirSumCaches() {
        Configuration conf = graph(128);
        conf.set(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        // The launcher's heap with one GraphStore subtask (incremental predictions' parallelism).
        assertNull(
                MemoryDefaults.apply(
                        conf,
                        new MemoryDefaults.Heap(6144 * MB, 1, 1, "test"),
                        OptionalLong.empty()));
        assertEquals(
                PredictionOptions.INCREMENTAL_SUM_CACHE.defaultValue(),
                conf.get(PredictionOptions.INCREMENTAL_SUM_CACHE));
        MemoryDefaults.Heap small = new MemoryDefaults.Heap(1024 * MB, 1, 1, "test");
        String line = MemoryDefaults.apply(conf, small, OptionalLong.empty());
        assertNotNull(line);
        assertTrue(line.contains("--incremental-sum-cache"), line);
        assertTrue(caches(conf, small) <= MemoryDefaults.CACHE_SHARE * small.bytes());
    }

    @Test
    void theLaunchersHeapKeepsEveryDefault() {
        Configuration conf = graph(1433);
        MemoryDefaults.Heap heap = new MemoryDefaults.Heap(6144 * MB, 2, 2, "test");
        assertNull(MemoryDefaults.apply(conf, heap, OptionalLong.of(2708)));
        assertEquals(SamplingOptions.PREFETCH.defaultValue(), conf.get(SamplingOptions.PREFETCH));
        assertEquals(
                ModelOptions.FEATURE_CACHE.defaultValue(), conf.get(ModelOptions.FEATURE_CACHE));
        // The products-size graph (100 features, fanouts 15,10) with no vertex count known.
        Configuration products = graph(100);
        products.setString(SamplingOptions.FANOUTS.key(), "15;10");
        products.set(SamplingOptions.BATCH_SIZE, 1024);
        assertNull(
                MemoryDefaults.apply(
                        products,
                        new MemoryDefaults.Heap(6144 * MB, 1, 1, "test"),
                        OptionalLong.empty()));
    }

    @Test
    void aSmallHeapLowersThePrefetchAndTheCachesToFit() {
        // Amazon Photo at -Xmx380m: 7,650 vertices of 745 features.
        Configuration conf = graph(745);
        MemoryDefaults.Heap heap = new MemoryDefaults.Heap(380 * MB, 1, 1, "test");
        String line = MemoryDefaults.apply(conf, heap, OptionalLong.of(7650));
        assertNotNull(line);
        assertTrue(line.contains("--prefetch 3") && line.contains("--feature-cache"), line);
        assertEquals(3, conf.get(SamplingOptions.PREFETCH));
        assertTrue(caches(conf, heap) <= MemoryDefaults.CACHE_SHARE * heap.bytes());
        long batches =
                heap.trainers()
                        * (conf.get(SamplingOptions.PREFETCH) + 1)
                        * MemoryDefaults.batchBytes(conf, OptionalLong.of(7650));
        assertTrue(batches <= MemoryDefaults.BATCH_SHARE * heap.bytes(), "batches " + batches);
    }

    @Test
    void setSizesAreKeptAndTheOthersShareTheRest() {
        Configuration conf = graph(745);
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("100mb"));
        conf.set(SamplingOptions.PREFETCH, 8);
        MemoryDefaults.Heap heap = new MemoryDefaults.Heap(380 * MB, 1, 1, "test");
        MemoryDefaults.apply(conf, heap, OptionalLong.of(7650));
        assertEquals(MemorySize.parse("100mb"), conf.get(ModelOptions.FEATURE_CACHE));
        assertEquals(8, conf.get(SamplingOptions.PREFETCH));
        assertTrue(caches(conf, heap) <= MemoryDefaults.CACHE_SHARE * heap.bytes());
        // Without a vertex count the fanouts' bound would say nothing fits: --prefetch stays.
        Configuration unknown = graph(745);
        MemoryDefaults.apply(unknown, heap, OptionalLong.empty());
        assertEquals(
                SamplingOptions.PREFETCH.defaultValue(), unknown.get(SamplingOptions.PREFETCH));
    }

    @Test
    void setSizesThatCannotFitFailNamingTheOptionsAndTheHeap() {
        Configuration conf = graph(745);
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("1gb"));
        MemoryDefaults.Heap heap = new MemoryDefaults.Heap(380 * MB, 2, 1, "this JVM (-Xmx)");
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> MemoryDefaults.apply(conf, heap, OptionalLong.empty()));
        assertTrue(e.getMessage().contains("--feature-cache 1024 MiB x 2"), e.getMessage());
        assertTrue(e.getMessage().contains("this JVM (-Xmx) (380 MiB)"), e.getMessage());
    }
}
