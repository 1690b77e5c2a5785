package io.gnnstream.operators.store;

import com.carrotsearch.hppc.IntArrayList;
import com.carrotsearch.hppc.IntIntHashMap;
import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.VertexRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The GraphStore's feature parts (see docs/design.md, "Feature paths and caches"): by row for the
 * vertices a request names, by vertex for the sampled neighbours a subtask holds (halo replicas'
 * neighbour parts). No Flink types: the operator supplies the records.
 */
public final class FeatureParts {

    /** A vertex's attribute record, or null when it has none. */
    @FunctionalInterface
    public interface Lookup {
        byte[] record(long vertex) throws Exception;
    }

    private FeatureParts() {}

    /**
     * The feature part of the request's feature vertices, addressed by row (zero features and no
     * label for a vertex without attributes yet): slots of the trainer's cache ({@code cache}, null
     * when off) for the vertices it holds, features for the others. All records are looked up
     * first; the serializer copies the features out of them.
     */
    public static MiniBatchPart byRow(
            SampleRequest request, FeatureCacheDirectory cache, Lookup owned, byte[] noAttributes)
            throws Exception {
        long[] vertices = request.featureVertices;
        int[] slots = cache == null ? new int[vertices.length] : cache.lookupAll(vertices);
        if (cache == null) {
            Arrays.fill(slots, -1);
        }
        int numCached = 0;
        for (int slot : slots) {
            numCached += slot >= 0 ? 1 : 0;
        }
        int[] cachedRows = new int[numCached];
        int[] cachedSlots = new int[numCached];
        int[] rows = new int[vertices.length - numCached];
        byte[][] records = new byte[rows.length][];
        for (int j = 0, c = 0, f = 0; j < vertices.length; j++) {
            if (slots[j] >= 0) {
                cachedRows[c] = request.featureRows[j];
                cachedSlots[c++] = slots[j];
            } else {
                rows[f] = request.featureRows[j];
                records[f++] = owned.record(vertices[j]);
            }
        }
        int[] labels = new int[rows.length];
        int[] fillSlots = new int[rows.length];
        for (int j = 0, f = 0; j < vertices.length; j++) {
            if (slots[j] < 0) {
                records[f] = records[f] == null ? noAttributes : records[f];
                labels[f] = VertexRecord.label(records[f]);
                fillSlots[f++] = cache == null ? -1 : cache.assign(vertices[j]);
            }
        }
        MiniBatchPart part =
                MiniBatchPart.featuresOfRecords(
                        request.batchId,
                        request.seq,
                        request.trainer,
                        request.attempt,
                        request.featurePart,
                        rows,
                        labels,
                        records);
        return cache == null
                ? part
                : part.withCacheSlots(cache.epoch(), fillSlots, cachedRows, cachedSlots);
    }

    /**
     * {@code part}, a part by row answering {@code request}, with the degrees of its rows and then
     * of its cached rows ({@link MiniBatchPart#degrees}) taken from {@code degrees}, one per
     * feature vertex of the request; {@code part} unchanged when {@code degrees} is null.
     */
    public static MiniBatchPart withDegrees(
            MiniBatchPart part, SampleRequest request, int[] degrees) {
        if (degrees == null) {
            return part;
        }
        IntIntHashMap degreeOfRow = new IntIntHashMap(request.featureRows.length);
        for (int j = 0; j < request.featureRows.length; j++) {
            degreeOfRow.put(request.featureRows[j], degrees[j]);
        }
        int own = part.rows.length;
        int[] out = new int[own + part.cachedRows.length];
        for (int j = 0; j < own; j++) {
            out[j] = degreeOfRow.get(part.rows[j]);
        }
        for (int j = 0; j < part.cachedRows.length; j++) {
            out[own + j] = degreeOfRow.get(part.cachedRows[j]);
        }
        part.degrees = out;
        return part;
    }

    /**
     * The request's neighbour part: the features of the sampled neighbours that {@code local} holds
     * (owned by the subtask, or a halo replica of its site; null for a vertex held nowhere there),
     * addressed by vertex (as trainer-cache slots where the trainer holds them); marks them in
     * {@code response.servedBits}. A neighbour held nowhere is left to the assembler's fetch from
     * its owner.
     */
    public static MiniBatchPart byVertex(
            SampleRequest request,
            SampleResponse response,
            FeatureCacheDirectory cache,
            Lookup local)
            throws Exception {
        long[] neighbours = response.neighbours;
        long[] bits = new long[(neighbours.length + 63) >>> 6];
        LongIntHashMap seen = new LongIntHashMap(neighbours.length);
        LongArrayList own = new LongArrayList();
        List<byte[]> records = new ArrayList<>();
        IntArrayList fillSlots = new IntArrayList();
        LongArrayList cached = new LongArrayList();
        IntArrayList cachedSlots = new IntArrayList();
        for (int i = 0, at = 0; i < response.sampleVertices.length; i++) {
            for (int k = 0; k < response.neighbourCounts[i]; k++, at++) {
                long u = neighbours[at];
                int known = seen.getOrDefault(u, 0);
                if (known == 0) {
                    int slot = cache == null ? -1 : cache.lookup(u);
                    byte[] record = slot >= 0 ? null : local.record(u);
                    known = slot >= 0 || record != null ? 1 : -1;
                    seen.put(u, known);
                    if (slot >= 0) {
                        cached.add(u);
                        cachedSlots.add(slot);
                    } else if (record != null) {
                        own.add(u);
                        records.add(record);
                        fillSlots.add(cache == null ? -1 : cache.assign(u));
                    }
                }
                if (known > 0) {
                    bits[at >>> 6] |= 1L << at;
                }
            }
        }
        response.servedBits = bits;
        byte[][] recordArray = records.toArray(new byte[0][]);
        int[] labels = new int[recordArray.length];
        for (int j = 0; j < recordArray.length; j++) {
            labels[j] = VertexRecord.label(recordArray[j]);
        }
        MiniBatchPart part =
                MiniBatchPart.featuresOfVertices(
                        request.batchId,
                        request.seq,
                        request.trainer,
                        request.attempt,
                        request.neighbourPart,
                        own.toArray(),
                        labels,
                        recordArray);
        if (cache != null) {
            part.cacheEpoch = cache.epoch();
            part.fillSlots = fillSlots.toArray();
            part.cachedVertices = cached.toArray();
            part.cachedSlots = cachedSlots.toArray();
        }
        return part;
    }
}
