package io.gnnstream.operators.assembly;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartialBatchesTest {

    private static final int DIM = 2;
    private static final long EPOCH = 9L;

    /** Row r of batch s has features {@code [100 s + r, -r]} and label r mod 3. */
    private static float[] row(long seq, int r) {
        return new float[] {100f * seq + r, -r};
    }

    /**
     * A part naming cache slots, placed into its batch after the head, gives the batch the cached
     * rows as they were when the part arrived, even when the same part refills one of those slots.
     */
    @Test
    void cachedRowsArePlacedAsTheyWereWhenThePartArrived() {
        TrainerFeatureCache cache = new TrainerFeatureCache(4, DIM);
        PartialBatches partials = new PartialBatches();
        MiniBatchPart fill =
                part(0, 0, 0, new int[] {0, 1, 2, 3})
                        .withCacheSlots(EPOCH, new int[] {0, 1, 2, 3}, new int[0], new int[0]);
        assertNull(accept(partials, cache, head(0, 1)));
        assertNotNull(accept(partials, cache, fill));

        assertNull(accept(partials, cache, head(1, 2)));
        MiniBatchPart refillsSlot1 =
                part(1, 1, 0, new int[] {3})
                        .withCacheSlots(EPOCH, new int[] {1}, new int[] {0, 2}, new int[] {2, 1});
        assertNull(accept(partials, cache, refillsSlot1));
        MiniBatch b =
                accept(
                        partials,
                        cache,
                        part(1, 1, 1, new int[0])
                                .withCacheSlots(EPOCH, new int[0], new int[] {1}, new int[] {1}));
        assertNotNull(b);
        assertArrayEquals(
                matrix(row(0, 2), row(1, 3), row(0, 1), row(1, 3)),
                Arrays.copyOf(b.features, 4 * DIM));
        assertArrayEquals(new int[] {2}, b.labels, "the seed's label came from the cache");
        assertEquals(0, partials.size());
    }

    /**
     * A checkpoint between the parts of a batch holds the parts as received, rebuilt from the
     * batch's matrix for the placed ones; restored without the cache, they complete the same batch.
     */
    /** Feature bytes from a GraphStore subtask of another index than the rank's count as remote. */
    @Test
    void featureBytesOfOtherSubtasksAreRemote() {
        TrainerFeatureCache cache = new TrainerFeatureCache(0, DIM);
        PartialBatches partials = new PartialBatches();
        MiniBatchPart local = part(0, 0, 0, new int[] {0, 1});
        local.sender = 0;
        MiniBatchPart remote = part(0, 0, 1, new int[] {2});
        remote.sender = 1;
        MiniBatchPart unknown = part(0, 0, 2, new int[] {3});
        assertNull(accept(partials, cache, head(0, 3)));
        assertNull(accept(partials, cache, local));
        assertNull(accept(partials, cache, remote));
        MiniBatch b = accept(partials, cache, unknown);
        assertNotNull(b);
        assertEquals(
                PartialBatches.bytes(remote),
                b.remoteFeatureBytes,
                "rank 0 received one part from subtask 1");
        assertEquals(
                PartialBatches.bytes(local)
                        + PartialBatches.bytes(remote)
                        + PartialBatches.bytes(unknown),
                b.featureBytes);
    }

    @Test
    void partsOfAnIncompleteBatchRestoreWithoutTheCache() {
        TrainerFeatureCache cache = new TrainerFeatureCache(4, DIM);
        PartialBatches partials = new PartialBatches();
        accept(partials, cache, head(0, 1));
        accept(
                partials,
                cache,
                part(0, 0, 0, new int[] {0, 1, 2, 3})
                        .withCacheSlots(EPOCH, new int[] {0, 1, 2, 3}, new int[0], new int[0]));
        MiniBatchPart cachedLater =
                part(1, 1, 1, new int[0])
                        .withCacheSlots(EPOCH, new int[0], new int[] {1, 2}, new int[] {1, 2});
        assertNull(accept(partials, cache, cachedLater), "a part before its head is placed");
        assertNull(accept(partials, cache, head(1, 3)));
        MiniBatchPart placed =
                part(1, 1, 0, new int[] {0})
                        .withCacheSlots(EPOCH, new int[] {-1}, new int[] {3}, new int[] {3});
        assertNull(accept(partials, cache, placed));
        List<MiniBatchPart> checkpoint = partials.parts(cache);
        assertEquals(3, checkpoint.size(), "the head and both parts, placed");
        checkpoint.forEach(p -> assertEquals(MiniBatchPart.NO_CACHE, p.cacheEpoch));

        PartialBatches restored = new PartialBatches();
        TrainerFeatureCache empty = new TrainerFeatureCache(4, DIM);
        MiniBatch b = null;
        for (MiniBatchPart p : checkpoint) {
            assertTrue(empty.holdsAll(p));
            b = restored.accept(p, empty);
        }
        assertNull(b, "part 2 is missing");
        b = restored.accept(part(1, 1, 2, new int[] {}), empty);
        assertNotNull(b);
        assertArrayEquals(
                matrix(row(1, 0), row(0, 1), row(0, 2), row(0, 3)),
                Arrays.copyOf(b.features, 4 * DIM));
        assertArrayEquals(new int[] {0}, b.labels);
    }

    /**
     * Degrees of a part's own and cached rows ({@link MiniBatchPart#degrees}) land in the batch's
     * {@link MiniBatch#degrees} by row, also through a checkpoint of the incomplete batch (in the
     * serializer's format); a batch with a part without degrees has none.
     */
    @Test
    void degreesOfOwnAndCachedRowsReachTheBatchAlsoAfterARestore() {
        TrainerFeatureCache cache = new TrainerFeatureCache(4, DIM);
        PartialBatches partials = new PartialBatches();
        accept(partials, cache, head(0, 1));
        MiniBatchPart fill =
                part(0, 0, 0, new int[] {0, 1, 2, 3})
                        .withCacheSlots(EPOCH, new int[] {0, 1, 2, 3}, new int[0], new int[0]);
        fill.degrees = new int[] {4, 1, 2, 7};
        assertArrayEquals(new int[] {4, 1, 2, 7}, accept(partials, cache, fill).degrees);

        accept(partials, cache, head(1, 2));
        MiniBatchPart mixed =
                part(1, 1, 0, new int[] {2})
                        .withCacheSlots(EPOCH, new int[] {-1}, new int[] {0, 3}, new int[] {3, 0});
        mixed.degrees = new int[] {5, 9, 3};
        assertNull(accept(partials, cache, mixed));
        List<MiniBatchPart> checkpoint = partials.parts(cache);
        PartialBatches restored = new PartialBatches();
        for (MiniBatchPart p : checkpoint) {
            assertNull(
                    restored.accept(
                            io.gnnstream.operators.serialization.MiniBatchPartSerializer.INSTANCE
                                    .copy(p),
                            cache));
        }
        MiniBatchPart last =
                part(1, 1, 1, new int[0])
                        .withCacheSlots(EPOCH, new int[0], new int[] {1}, new int[] {1});
        last.degrees = new int[] {6};
        MiniBatch b = restored.accept(last, cache);
        assertNotNull(b);
        assertArrayEquals(new int[] {9, 6, 5, 3}, b.degrees);

        accept(partials, cache, head(2, 2));
        MiniBatchPart with = part(2, 2, 0, new int[] {0, 1});
        with.degrees = new int[] {1, 1};
        assertNull(accept(partials, cache, with));
        assertNull(
                accept(partials, cache, part(2, 2, 1, new int[] {2, 3})).degrees,
                "a part without degrees: the batch has none");
        MiniBatchPart wrongLength = part(3, 3, 0, new int[] {0, 1});
        wrongLength.degrees = new int[] {1};
        assertThrows(IllegalArgumentException.class, () -> partials.accept(wrongLength, cache));
    }

    /** Rows placed before the head must be rows of the batch the head describes. */
    @Test
    void headRejectsRowsOutsideItsBatch() {
        TrainerFeatureCache cache = new TrainerFeatureCache(0, DIM);
        PartialBatches partials = new PartialBatches();
        assertNull(
                accept(partials, cache, part(0, 0, 0, new int[] {0, 7})),
                "no bound before the head");
        assertThrows(IllegalArgumentException.class, () -> partials.accept(head(0, 2), cache));
    }

    /** A recycled matrix is used for the next batch, and every row of it is overwritten. */
    @Test
    void reusesRecycledMatrices() {
        TrainerFeatureCache cache = new TrainerFeatureCache(0, DIM);
        PartialBatches partials = new PartialBatches();
        accept(partials, cache, head(0, 1));
        MiniBatch first = accept(partials, cache, part(0, 0, 0, new int[] {0, 1, 2, 3}));
        partials.recycle(first.features);
        accept(partials, cache, head(1, 1));
        MiniBatch second = accept(partials, cache, part(1, 1, 0, new int[] {3, 2, 1, 0}));
        assertSame(first.features, second.features);
        assertEquals(row(1, 2)[0], second.features[2 * DIM]);
    }

    /**
     * Parts addressed by vertex (halo neighbour parts) fill the head's served rows, before or after
     * the head arrives: once each, skipping vertices that come by row (a seed) or are not in the
     * batch; a checkpoint before the head keeps such a part as received.
     */
    @Test
    void partsAddressedByVertexFillTheServedRows() {
        TrainerFeatureCache cache = new TrainerFeatureCache(0, DIM);
        PartialBatches partials = new PartialBatches();
        long[] ids = {10, 11, 12, 13};
        MiniBatchPart early = byVertex(5, 1, new long[] {12, 10, 99}, ids);
        assertNull(accept(partials, cache, early), "waits for the head");
        List<MiniBatchPart> checkpoint = partials.parts(cache);
        assertEquals(1, checkpoint.size());
        assertArrayEquals(new long[] {12, 10, 99}, checkpoint.get(0).vertices, "kept as received");

        MiniBatchPart head = head(5, 3);
        head.head.nodeIds = ids;
        head.servedRows = new int[] {1, 2};
        assertNull(accept(partials, cache, head));
        assertNull(accept(partials, cache, part(5, 5, 0, new int[] {0, 3})));
        MiniBatch b = accept(partials, cache, byVertex(5, 2, new long[] {11, 12}, ids));
        assertNotNull(b, "every row filled once, every part in");
        assertArrayEquals(
                matrix(row(5, 0), row(5, 1), row(5, 2), row(5, 3)),
                Arrays.copyOf(b.features, 4 * DIM));
        assertArrayEquals(new int[] {0}, b.labels);
    }

    /**
     * A part addressed by vertex that names a cache slot gets the slot's features as they are when
     * it arrives, although it waits for its head and a later part refills the slot.
     */
    @Test
    void cachedEntriesOfPartsAddressedByVertexSurviveARefillOfTheirSlot() {
        TrainerFeatureCache cache = new TrainerFeatureCache(4, DIM);
        PartialBatches partials = new PartialBatches();
        // Batch 0 leaves row 2 of batch 0 in slot 0.
        accept(partials, cache, head(0, 1));
        accept(
                partials,
                cache,
                part(0, 0, 0, new int[] {0, 1, 2, 3})
                        .withCacheSlots(EPOCH, new int[] {-1, -1, 0, -1}, new int[0], new int[0]));
        long[] ids = {10, 11, 12, 13};
        MiniBatchPart byVertex = byVertex(5, 1, new long[0], ids);
        byVertex.cacheEpoch = EPOCH;
        byVertex.cachedVertices = new long[] {12};
        byVertex.cachedSlots = new int[] {0};
        assertNull(accept(partials, cache, byVertex));
        // Batch 5's row part refills slot 0 before the head arrives.
        assertNull(
                accept(
                        partials,
                        cache,
                        part(5, 5, 0, new int[] {0, 1, 3})
                                .withCacheSlots(
                                        EPOCH, new int[] {0, -1, -1}, new int[0], new int[0])));
        MiniBatchPart head = head(5, 2);
        head.head.nodeIds = ids;
        head.servedRows = new int[] {2};
        MiniBatch b = accept(partials, cache, head);
        assertNotNull(b);
        assertArrayEquals(
                matrix(row(5, 0), row(5, 1), row(0, 2), row(5, 3)),
                Arrays.copyOf(b.features, 4 * DIM));
    }

    /**
     * Cached entries of a waiting part addressed by vertex are copied from the cache when the head
     * comes, and a checkpoint before that holds their features.
     */
    @Test
    void waitingCachedEntriesArePlacedFromTheCacheAndCheckpointedWithTheirFeatures() {
        TrainerFeatureCache cache = new TrainerFeatureCache(4, DIM);
        PartialBatches partials = new PartialBatches();
        // Batch 0 leaves its rows 1 and 2 in slots 3 and 2.
        accept(partials, cache, head(0, 1));
        accept(
                partials,
                cache,
                part(0, 0, 0, new int[] {0, 1, 2, 3})
                        .withCacheSlots(EPOCH, new int[] {-1, 3, 2, -1}, new int[0], new int[0]));
        long[] ids = {10, 11, 12, 13};
        MiniBatchPart byVertex = byVertex(5, 1, new long[] {13}, ids);
        byVertex.cacheEpoch = EPOCH;
        byVertex.cachedVertices = new long[] {12, 11, 99};
        byVertex.cachedSlots = new int[] {2, 3, 2};
        byVertex.fillSlots = new int[] {-1};
        assertNull(accept(partials, cache, byVertex));
        List<MiniBatchPart> checkpoint = partials.parts(cache);
        assertEquals(1, checkpoint.size());
        assertEquals(
                0, checkpoint.get(0).cachedEntries(), "the checkpoint holds features, not slots");
        assertArrayEquals(new long[] {13, 12, 11, 99}, checkpoint.get(0).vertices);

        assertNull(accept(partials, cache, part(5, 5, 0, new int[] {0})));
        MiniBatchPart head = head(5, 2);
        head.head.nodeIds = ids;
        head.servedRows = new int[] {1, 2, 3};
        MiniBatch b = accept(partials, cache, head);
        assertNotNull(b);
        assertArrayEquals(
                matrix(row(5, 0), row(0, 1), row(0, 2), row(5, 3)),
                Arrays.copyOf(b.features, 4 * DIM));

        PartialBatches restored = new PartialBatches();
        TrainerFeatureCache empty = new TrainerFeatureCache(4, DIM);
        assertNull(restored.accept(checkpoint.get(0), empty));
        assertNull(restored.accept(part(5, 5, 0, new int[] {0}), empty));
        MiniBatch again = restored.accept(head, empty);
        assertNotNull(again, "the restored part fills the same rows");
        assertArrayEquals(b.features, Arrays.copyOf(again.features, b.features.length));
    }

    /**
     * Part {@code part} of batch {@code seq} addressed by vertex, rows' features as {@link #row} of
     * their index in {@code ids}.
     */
    private static MiniBatchPart byVertex(long seq, int part, long[] vertices, long[] ids) {
        ByteBuffer bytes =
                ByteBuffer.allocate(vertices.length * DIM * Float.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN);
        int[] labels = new int[vertices.length];
        for (int j = 0; j < vertices.length; j++) {
            int r = Arrays.stream(ids).boxed().toList().indexOf(vertices[j]);
            bytes.asFloatBuffer().put(j * DIM, r < 0 ? new float[] {-1, -1} : row(seq, r));
            labels[j] = Math.max(0, r) % 3;
        }
        MiniBatchPart p =
                MiniBatchPart.features(seq, seq, 0, 0, part, new int[0], labels, bytes.array());
        p.vertices = vertices;
        return p;
    }

    /** The rows one after the other, as a batch's feature matrix. */
    private static float[] matrix(float[]... rows) {
        float[] m = new float[rows.length * DIM];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, m, r * DIM, DIM);
        }
        return m;
    }

    private static MiniBatch accept(
            PartialBatches partials, TrainerFeatureCache cache, MiniBatchPart part) {
        assertTrue(cache.holdsAll(part));
        MiniBatch b = partials.accept(part, cache);
        partials.beforeFills(part, cache);
        cache.storeFills(part);
        return b;
    }

    /** The head of batch {@code seq}: one seed, four nodes, features in {@code numParts} parts. */
    private static MiniBatchPart head(long seq, int numParts) {
        MiniBatch b = new MiniBatch();
        b.batchId = seq;
        b.seq = seq;
        b.numLayers = 1;
        b.nodeCounts = new int[] {1, 4};
        b.featureDim = DIM;
        return MiniBatchPart.head(b, 0, numParts);
    }

    /**
     * Feature part {@code part} of batch {@code seq} bringing the features and labels of {@code
     * rows}.
     */
    private static MiniBatchPart part(long seq, long featuresOf, int part, int[] rows) {
        ByteBuffer bytes =
                ByteBuffer.allocate(rows.length * DIM * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        int[] labels = new int[rows.length];
        for (int j = 0; j < rows.length; j++) {
            bytes.asFloatBuffer().put(j * DIM, row(featuresOf, rows[j]));
            labels[j] = rows[j] % 3;
        }
        return MiniBatchPart.features(seq, seq, 0, 0, part, rows, labels, bytes.array());
    }
}
