package io.gnnstream.operators.messages;

/**
 * A sampled subgraph ready for training or evaluation, in the DGL block layout.
 *
 * <p>Nodes are listed once, nested by depth: the first {@code nodeCounts[0]} are the seeds, the
 * first {@code nodeCounts[d]} are all nodes within {@code d} hops, and {@code nodeCounts[L]} is the
 * total. Hop {@code h} (1..L) has an edge block whose destinations are the first {@code
 * nodeCounts[h-1]} nodes and whose sources index into the first {@code nodeCounts[h]} nodes, stored
 * as CSR: for destination {@code i}, sources are {@code indices[indicesOffsets[h-1] +
 * indptr[indptrOffsets[h-1] + i] ... indices[indicesOffsets[h-1] + indptr[indptrOffsets[h-1] + i +
 * 1] - 1]}. Model layer 0 (input side) uses hop {@code L}; the last model layer uses hop 1.
 * Features are row-major, {@code nodeCounts[L] x featureDim}, at the start of an array that may be
 * longer (the trainer reuses them). A Flink POJO with primitive arrays only (never INDArray), so it
 * crosses the network without Kryo; it has no Flink imports so the model can use it directly.
 */
public class MiniBatch {

    /**
     * What a batch is for; evaluation batches carry seeds of one split each. Serializers write a
     * kind as its {@link #code()}, fixed per kind so that the order of the constants never changes
     * the wire format.
     */
    public enum Kind {
        TRAIN(0),
        EVAL_VAL(1),
        EVAL_TEST(2),
        /**
         * A block of layer-wise inference whose destinations are not scored (see {@link #layer}).
         */
        INFER(3);

        private static final Kind[] BY_CODE = new Kind[values().length];

        static {
            for (Kind k : values()) {
                BY_CODE[k.code] = k;
            }
        }

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The number that stands for this kind in serialized batches. */
        public int code() {
            return code;
        }

        /**
         * The kind with {@code code}.
         *
         * @throws IllegalArgumentException if no kind has that code
         */
        public static Kind ofCode(int code) {
            if (code < 0 || code >= BY_CODE.length) {
                throw new IllegalArgumentException(
                        "unknown MiniBatch kind code "
                                + code
                                + ", expected 0 to "
                                + (BY_CODE.length - 1));
            }
            return BY_CODE[code];
        }
    }

    /**
     * Label of a seed whose vertex had no label when sampled; it is left out of loss and accuracy.
     */
    public static final int NO_LABEL = -1;

    /**
     * Label of an inference block's destination that has no row of the round to be computed from: a
     * vertex deleted while the round was in flight (docs/design.md, "Vertex deletion"). It gets no
     * prediction and is left out of loss and accuracy.
     */
    public static final int ABSENT = -2;

    public long batchId;

    /** Position in the trainer's input sequence; the trainer consumes batches in this order. */
    public long seq;

    public int trainer;

    /** {@link Kind#TRAIN} unless set otherwise. */
    public Kind kind = Kind.TRAIN;

    /** For training batches the step they produce; for evaluation the step they evaluate. */
    public long step;

    /** Evaluation rounds: index of this batch in its round and the round's batch count. */
    public int roundIndex;

    public int roundSize;
    public boolean finalRound;

    /**
     * {@code 0}: a sampled batch through every model layer. {@code l >= 1}: a one-hop block of
     * layer-wise inference over all in-neighbours, computing model layer {@code l} (1-based) of its
     * destinations from layer {@code l-1}'s outputs of its sources (the features for {@code l =
     * 1}).
     */
    public int layer;

    /**
     * As {@link BatchSpec#roundShare}: last-pass blocks of the round this training step starts for
     * its rank.
     */
    public int roundShare;

    public int numLayers;
    public int[] nodeCounts;
    public long[] nodeIds;
    public int[] indptr;
    public int[] indptrOffsets;
    public int[] indices;
    public int[] indicesOffsets;
    public int featureDim;
    public float[] features;

    /**
     * Inference blocks of a layer after the first: per destination of hop 1, its in-neighbours
     * whose rows the GraphStore subtask owning them already summed into the destination's root part
     * (each divided by the destination's degree) and left out of {@link #indices}; a destination's
     * degree is its edges plus this count. Null when none were (every training batch).
     */
    public int[] summedNeighbours;

    /** One per seed, in {@code [0, classes)} or {@link #NO_LABEL}. */
    public int[] labels;

    /**
     * Per node of the batch, its in-degree under the eval fanout plus one (the self-loop), which a
     * GCN with {@code --gcn-norm sym} needs for every source; null otherwise. Filled by the offline
     * paths ({@code LayerwiseInference}, the tools' {@code NeighbourSampler}) and, in the job, by
     * the trainer from its feature parts ({@link MiniBatchPart#degrees}, counted by each row's
     * owner).
     */
    public int[] degrees;

    /** Graph size seen by the scheduler when the batch was issued (for progress reports). */
    public long graphVertices;

    public long graphEdgesIngested;

    /** Halo replicas and ingested edges between partitions, seen likewise. */
    public long graphReplicas;

    public long graphCutEdgesIngested;

    /**
     * Traffic of building the batch on the sampling loop, counted by its assembler: request records
     * (retries included), the vertex entries they name, and the bytes of the requests and their
     * responses.
     */
    public int loopRequests;

    public long loopRequestVertices;
    public long loopBytes;

    /** Bytes of the feature parts the trainer received for the batch (set by the trainer). */
    public long featureBytes;

    /**
     * The share of {@link #loopBytes} exchanged with a GraphStore subtask of another index than the
     * assembler's, and of {@link #featureBytes} sent by a GraphStore subtask of another index than
     * the trainer's rank: the bytes that leave a site (docs/design.md, "Traffic per batch").
     */
    public long remoteLoopBytes;

    public long remoteFeatureBytes;

    /**
     * Of {@link #loopRequests}, those to a GraphStore subtask of another index than the
     * assembler's.
     */
    public int remoteLoopRequests;

    public MiniBatch() {}

    public int numSeeds() {
        return nodeCounts[0];
    }

    public int numNodes() {
        return nodeCounts[numLayers];
    }

    /** Number of destination nodes of hop {@code h} (1-based). */
    public int numDst(int hop) {
        return nodeCounts[hop - 1];
    }

    /** Number of source nodes of hop {@code h} (1-based). */
    public int numSrc(int hop) {
        return nodeCounts[hop];
    }

    /** Start of destination {@code i}'s sources in {@link #indices} for hop {@code h}. */
    public int edgeStart(int hop, int i) {
        return indicesOffsets[hop - 1] + indptr[indptrOffsets[hop - 1] + i];
    }

    /** End (exclusive) of destination {@code i}'s sources in {@link #indices} for hop {@code h}. */
    public int edgeEnd(int hop, int i) {
        return indicesOffsets[hop - 1] + indptr[indptrOffsets[hop - 1] + i + 1];
    }

    public int numEdges(int hop) {
        return indptr[indptrOffsets[hop - 1] + numDst(hop)];
    }

    /**
     * Destination {@code i}'s in-neighbours of hop {@code hop} summed at their owner, not among its
     * edges (see {@link #summedNeighbours}).
     */
    public int summedNeighbours(int hop, int i) {
        return hop == 1 && summedNeighbours != null ? summedNeighbours[i] : 0;
    }

    public boolean isTraining() {
        return kind == Kind.TRAIN;
    }

    /**
     * Sets the CSR arrays of every hop from per-hop arrays ({@code indptr[h-1]}, {@code
     * indices[h-1]} for hop {@code h}), concatenated with their offsets.
     */
    public void setBlocks(int[][] hopIndptr, int[][] hopIndices) {
        int hops = hopIndptr.length;
        indptrOffsets = new int[hops];
        indicesOffsets = new int[hops];
        int ptrTotal = 0;
        int idxTotal = 0;
        for (int h = 0; h < hops; h++) {
            indptrOffsets[h] = ptrTotal;
            indicesOffsets[h] = idxTotal;
            ptrTotal += hopIndptr[h].length;
            idxTotal += hopIndices[h].length;
        }
        indptr = new int[ptrTotal];
        indices = new int[idxTotal];
        for (int h = 0; h < hops; h++) {
            System.arraycopy(hopIndptr[h], 0, indptr, indptrOffsets[h], hopIndptr[h].length);
            System.arraycopy(hopIndices[h], 0, indices, indicesOffsets[h], hopIndices[h].length);
        }
    }

    /** A copy sharing this batch's structure, with the given features and labels. */
    public MiniBatch withFeatures(float[] newFeatures, int[] newLabels) {
        MiniBatch b = new MiniBatch();
        b.batchId = batchId;
        b.seq = seq;
        b.trainer = trainer;
        b.kind = kind;
        b.step = step;
        b.roundIndex = roundIndex;
        b.roundSize = roundSize;
        b.roundShare = roundShare;
        b.finalRound = finalRound;
        b.layer = layer;
        b.numLayers = numLayers;
        b.nodeCounts = nodeCounts;
        b.nodeIds = nodeIds;
        b.indptr = indptr;
        b.indptrOffsets = indptrOffsets;
        b.indices = indices;
        b.indicesOffsets = indicesOffsets;
        b.featureDim = featureDim;
        b.summedNeighbours = summedNeighbours;
        b.features = newFeatures;
        b.labels = newLabels;
        b.graphVertices = graphVertices;
        b.graphEdgesIngested = graphEdgesIngested;
        b.loopRequests = loopRequests;
        b.loopRequestVertices = loopRequestVertices;
        b.loopBytes = loopBytes;
        b.featureBytes = featureBytes;
        b.remoteLoopBytes = remoteLoopBytes;
        b.remoteFeatureBytes = remoteFeatureBytes;
        b.remoteLoopRequests = remoteLoopRequests;
        b.graphReplicas = graphReplicas;
        b.graphCutEdgesIngested = graphCutEdgesIngested;
        b.degrees = degrees;
        return b;
    }

    /** The batch this record belongs to. */
    public BatchAddress address() {
        return new BatchAddress(trainer, seq, batchId);
    }
}
