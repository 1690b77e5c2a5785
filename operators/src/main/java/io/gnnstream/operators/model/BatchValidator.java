package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;

/**
 * Checks a {@link MiniBatch} against the model before any state changes. The CSR check matters: an
 * edge source outside the hop's source range would silently read a stale row of a reused buffer
 * instead of failing.
 */
final class BatchValidator {

    private BatchValidator() {}

    /** Rejects batches that do not match the config or whose CSR would index out of range. */
    static void validate(MiniBatch b, ModelConfig config, boolean training) {
        int numLayers = config.numLayers();
        String what = training ? "training batch" : "evaluation batch";
        require(
                b.numLayers == numLayers,
                what + " has " + b.numLayers + " hops, model has " + numLayers + " layers");
        require(
                b.nodeCounts != null && b.nodeCounts.length > numLayers,
                what + " needs nodeCounts[0.." + numLayers + "]");
        require(b.nodeCounts[0] >= 1, what + " has no seeds");
        for (int h = 1; h <= numLayers; h++) {
            require(b.nodeCounts[h] >= b.nodeCounts[h - 1], what + " nodeCounts must not decrease");
        }
        require(
                b.featureDim == config.inFeatures(),
                what
                        + " featureDim "
                        + b.featureDim
                        + " != model inFeatures "
                        + config.inFeatures());
        require(
                b.features != null && b.features.length >= (long) b.numNodes() * b.featureDim,
                what + " features must hold numNodes x featureDim floats");
        require(
                b.labels != null && b.labels.length >= b.numSeeds(),
                what + " needs a label per seed");
        for (int i = 0; i < b.numSeeds(); i++) {
            if (b.labels[i] != MiniBatch.NO_LABEL
                    && b.labels[i] != MiniBatch.ABSENT
                    && (b.labels[i] < 0 || b.labels[i] >= config.numClasses())) {
                require(
                        false,
                        what + " label " + b.labels[i] + " of seed " + i + " is not a class index");
            }
        }
        require(
                b.indptr != null
                        && b.indices != null
                        && b.indptrOffsets != null
                        && b.indptrOffsets.length >= numLayers
                        && b.indicesOffsets != null
                        && b.indicesOffsets.length >= numLayers,
                what + " needs CSR arrays for every hop");
        for (int h = 1; h <= numLayers; h++) {
            int in = config.layerIn(numLayers - h);
            require(
                    (long) b.numDst(h) * (2 * in + 1) <= Integer.MAX_VALUE
                            && (long) b.numSrc(h) * in <= Integer.MAX_VALUE,
                    what + " is too large");
            int p0 = b.indptrOffsets[h - 1];
            require(
                    p0 >= 0 && p0 + b.numDst(h) < b.indptr.length && b.indptr[p0] == 0,
                    what + " indptr of hop " + h + " is out of range or does not start at 0");
            // Hot loops over every edge: messages are only built on failure.
            int[] indptr = b.indptr;
            for (int i = p0, last = p0 + b.numDst(h); i < last; i++) {
                if (indptr[i + 1] < indptr[i]) {
                    require(
                            false,
                            what + " indptr of hop " + h + " decreases at destination " + (i - p0));
                }
            }
            int end = b.edgeEnd(h, b.numDst(h) - 1);
            require(
                    b.indicesOffsets[h - 1] >= 0 && end <= b.indices.length,
                    what + " indices of hop " + h + " are out of range");
            int[] indices = b.indices;
            int numSrc = b.numSrc(h);
            for (int k = b.edgeStart(h, 0); k < end; k++) {
                if (indices[k] < 0 || indices[k] >= numSrc) {
                    require(
                            false,
                            what
                                    + " hop "
                                    + h
                                    + " edge source "
                                    + indices[k]
                                    + " is not below numSrc "
                                    + numSrc);
                }
            }
        }
    }

    /**
     * Rejects a one-hop block of layer-wise inference whose CSR would index outside its sources or
     * whose input rows ({@code in} floats per source) are too few.
     */
    static void validateBlock(MiniBatch b, int in, float[] input) {
        require(
                b.numLayers == 1 && b.nodeCounts != null && b.nodeCounts.length >= 2,
                "an inference block has one hop, got " + b.numLayers);
        require(
                b.nodeCounts[0] >= 0 && b.nodeCounts[1] >= b.nodeCounts[0],
                "block nodeCounts must not decrease");
        require(
                input != null && input.length >= (long) b.numSrc(1) * in,
                "block input must hold numSrc x " + in + " floats");
        require(
                b.indptr != null
                        && b.indices != null
                        && b.indptrOffsets != null
                        && b.indicesOffsets != null
                        && b.indptrOffsets.length >= 1
                        && b.indicesOffsets.length >= 1,
                "block needs CSR arrays");
        require(
                b.summedNeighbours == null
                        || (b.summedNeighbours.length == b.numDst(1) && allNonNegative(b)),
                "block summedNeighbours must hold a count >= 0 per destination");
        int p0 = b.indptrOffsets[0];
        require(
                p0 >= 0 && p0 + b.numDst(1) < b.indptr.length && b.indptr[p0] == 0,
                "block indptr is out of range or does not start at 0");
        for (int i = p0, last = p0 + b.numDst(1); i < last; i++) {
            if (b.indptr[i + 1] < b.indptr[i]) {
                require(false, "block indptr decreases at destination " + (i - p0));
            }
        }
        int end = b.numDst(1) == 0 ? b.indicesOffsets[0] : b.edgeEnd(1, b.numDst(1) - 1);
        require(
                b.indicesOffsets[0] >= 0 && end <= b.indices.length,
                "block indices are out of range");
        int numSrc = b.numSrc(1);
        for (int k = b.indicesOffsets[0]; k < end; k++) {
            if (b.indices[k] < 0 || b.indices[k] >= numSrc) {
                require(
                        false,
                        "block edge source " + b.indices[k] + " is not below numSrc " + numSrc);
            }
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private static boolean allNonNegative(MiniBatch b) {
        for (int n : b.summedNeighbours) {
            if (n < 0) {
                return false;
            }
        }
        return true;
    }
}
