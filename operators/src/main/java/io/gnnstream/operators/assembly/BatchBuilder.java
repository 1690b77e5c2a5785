package io.gnnstream.operators.assembly;

import com.carrotsearch.hppc.LongHashSet;
import io.gnnstream.operators.internal.IntList;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds one {@link MiniBatch} hop by hop from per-route {@link SampleResponse}s.
 *
 * <p>Hop {@code h} (1..L) samples the in-neighbours of every node within {@code h-1} hops and
 * fetches the features of the nodes first reached at hop {@code h-1}; a final fetch (hop L+1)
 * fetches the features of the nodes first reached at hop L. An inference block of layer 2 and up
 * fetches its sources' stored outputs of the layer before instead ({@link #layerInput}). A hop's
 * requests go one per route (the partitions one GraphStore subtask owns, named by the lowest of
 * them), since every request costs a record, a response and a feature part whatever its size. A hop
 * advances only when every route asked has answered; new nodes are numbered by walking destinations
 * in order and their sampled neighbours in order, so the result does not depend on the order
 * responses arrive. Features never come back here: each request names the rows its feature vertices
 * fill, and the GraphStore sends them to the trainer as feature parts numbered in request order;
 * the builder only counts them for the batch's head. A route's vertices of one hop go out in
 * requests of at most {@code maxRequestVertices} vertices (numbered by {@link SampleRequest#part}),
 * so that no single request outgrows the loop's buffers. With halo replicas, a training batch's
 * sampling requests also name a neighbour part each: the GraphStore sends the features of the
 * sampled neighbours it holds locally to the trainer, addressed by vertex, and lists them in its
 * response; a node first reached at hop {@code h} and listed there is not fetched from its owner,
 * and the head names the rows filled that way. Duplicate or stale responses are ignored. No Flink
 * types: {@link AssemblerCore} owns timing and state.
 */
public final class BatchBuilder {

    private final BatchSpec spec;
    private final int[] fanouts;
    private final int featureDim;
    private int evalFanout = -1;

    /** See {@link #layerInput}: 0 for features. */
    private int layerInput;

    private int layerDim;
    private final VertexPartitioner partitioner;
    private final int[] routeOf;
    private final int numLayers;
    private final int maxRequestVertices;
    private final int attempt;

    private final NodeNumbering nodes;

    private final int[] nodeCounts;
    private final int[][] indptr;
    private final int[][] indices;

    /** Per destination of hop 1, its in-neighbours summed at their owner; null when none were. */
    private int[] summed;

    private int featureParts;

    /**
     * Training batches with halo replicas: every sampling request names a neighbour part, and the
     * nodes whose features arrived that way ({@link #servedNodes}) are not fetched again.
     */
    private final boolean neighbourParts;

    private final LongHashSet servedThisHop = new LongHashSet();
    private final BitSet servedNodes = new BitSet();

    private final LoopTraffic traffic = new LoopTraffic();

    private int hop;
    private final Map<RequestKey, SampleRequest> outstanding = new LinkedHashMap<>();
    private final Map<RequestKey, SampleResponse> received = new HashMap<>();
    private boolean complete;

    /**
     * {@code attempt} numbers the batch's restarts, so the trainer can drop a superseded attempt's
     * parts; {@code expectedNodes} sizes the node numbering up front (the size of the last batch
     * built is a good guess), since growing it is a noticeable share of the assembler's work.
     * {@code routeOf} maps each partition to its route, the lowest partition of the GraphStore
     * subtask owning it. With {@code halo}, a training batch takes the features of sampled
     * neighbours from the GraphStore subtasks that sampled them (see {@link
     * SampleRequest#neighbourPart}).
     */
    public BatchBuilder(
            BatchSpec spec,
            int attempt,
            int[] fanouts,
            int featureDim,
            VertexPartitioner partitioner,
            int[] routeOf,
            int maxRequestVertices,
            int expectedNodes,
            boolean halo) {
        if (maxRequestVertices < 1) {
            throw new IllegalArgumentException(
                    "maxRequestVertices must be >= 1, got " + maxRequestVertices);
        }
        if (routeOf.length != partitioner.numPartitions()) {
            throw new IllegalArgumentException(
                    "routeOf has "
                            + routeOf.length
                            + " entries for "
                            + partitioner.numPartitions()
                            + " partitions");
        }
        this.routeOf = routeOf;
        int capacity = Math.max(16, Math.max(expectedNodes, spec.seeds.length));
        this.nodes = new NodeNumbering(capacity);
        this.maxRequestVertices = maxRequestVertices;
        this.attempt = attempt;
        this.spec = spec;
        this.fanouts = spec.layer > 0 ? new int[] {-1} : fanouts.clone();
        this.neighbourParts = halo && spec.kind == MiniBatch.Kind.TRAIN && spec.layer == 0;
        this.featureDim = featureDim;
        this.partitioner = partitioner;
        this.numLayers = this.fanouts.length;
        this.nodeCounts = new int[numLayers + 1];
        this.indptr = new int[numLayers][];
        this.indices = new int[numLayers][];
        for (long seed : spec.seeds) {
            nodes.numberOf(seed);
        }
        nodeCounts[0] = nodes.size();
    }

    /**
     * The route of the GraphStore subtask of the assembler's own index: requests to other routes
     * and their responses count as remote ({@link MiniBatch#remoteLoopBytes}).
     */
    public BatchBuilder localRoute(int route) {
        traffic.localRoute = route;
        return this;
    }

    public BatchSpec spec() {
        return spec;
    }

    /** Nodes numbered so far: all of the batch's once it is complete. */
    public int numNodes() {
        return nodes.size();
    }

    public int hop() {
        return hop;
    }

    public boolean isComplete() {
        return complete;
    }

    /** Requests of hop 1. */
    public List<SampleRequest> start() {
        return beginHop(1);
    }

    /**
     * Requests of the current hop whose answers are still missing (for retries; counted as sent
     * again).
     */
    public List<SampleRequest> pending() {
        List<SampleRequest> out = new ArrayList<>();
        for (Map.Entry<RequestKey, SampleRequest> e : outstanding.entrySet()) {
            if (!received.containsKey(e.getKey())) {
                out.add(e.getValue());
                traffic.request(e.getValue());
            }
        }
        return out;
    }

    /**
     * Whether {@code request} is of the current hop and still unanswered (else sending it is
     * useless).
     */
    public boolean awaits(SampleRequest request) {
        RequestKey key = new RequestKey(request.route, request.part);
        return !complete
                && request.hop == hop
                && outstanding.containsKey(key)
                && !received.containsKey(key);
    }

    /**
     * Takes one response; returns the next hop's requests when it completes the current hop,
     * otherwise an empty list.
     */
    public List<SampleRequest> accept(SampleResponse response) {
        RequestKey key = new RequestKey(response.route, response.part);
        if (complete
                || response.hop != hop
                || !outstanding.containsKey(key)
                || received.containsKey(key)) {
            return List.of();
        }
        received.put(key, response);
        traffic.response(response);
        if (neighbourParts) {
            for (int i = 0; i < response.neighbours.length; i++) {
                if (response.served(i)) {
                    servedThisHop.add(response.neighbours[i]);
                }
            }
        }
        if (received.size() < outstanding.size()) {
            return List.of();
        }
        if (hop <= numLayers) {
            expand(hop);
        }
        return beginHop(hop + 1);
    }

    private List<SampleRequest> beginHop(int next) {
        outstanding.clear();
        received.clear();
        hop = next;
        if (next > numLayers + 1) {
            complete = true;
            return List.of();
        }
        int sampleEnd = next <= numLayers ? nodeCounts[next - 1] : 0;
        int featureStart = next >= 2 ? nodeCounts[next - 2] : 0;
        int featureEnd = next <= numLayers ? nodeCounts[next - 1] : nodes.size();
        IntList[] sample = groupByRoute(0, sampleEnd, null);
        IntList[] features = groupByRoute(featureStart, featureEnd, servedNodes);
        int fanout = next <= numLayers ? fanoutOf(next) : 0;
        for (int p = 0; p < sample.length; p++) {
            if (sample[p] != null || features[p] != null) {
                split(
                        next,
                        p,
                        fanout,
                        sample[p] == null ? new int[0] : sample[p].toArray(),
                        features[p] == null ? new int[0] : features[p].toArray());
            }
        }
        if (outstanding.isEmpty()) {
            if (next <= numLayers) {
                expand(next);
            }
            return beginHop(next + 1);
        }
        return new ArrayList<>(outstanding.values());
    }

    /**
     * Adds the requests for one route's nodes of a hop (node numbers), at most {@code
     * maxRequestVertices} each.
     */
    private void split(int next, int route, int fanout, int[] sample, int[] features) {
        int si = 0;
        int fi = 0;
        int part = 0;
        // A layer block's first hop samples and fetches the same destinations: each request names
        // the same ones for both, so that its GraphStore subtask can sum a destination's owned
        // neighbours into the destination's row (SampleResponse#summedCounts).
        boolean together = layerInput > 0 && Arrays.equals(sample, features);
        do {
            int ns =
                    together
                            ? Math.min(Math.max(1, maxRequestVertices / 2), sample.length - si)
                            : Math.min(maxRequestVertices, sample.length - si);
            int nf = together ? ns : Math.min(maxRequestVertices - ns, features.length - fi);
            SampleRequest request =
                    SampleRequest.sampleOnly(
                            spec.batchId,
                            spec.step,
                            next,
                            route,
                            part,
                            fanout,
                            nodes.vertices(sample, si, si + ns));
            request.withFeatures(
                    spec.seq,
                    spec.trainer,
                    attempt,
                    featureParts,
                    nodes.vertices(features, fi, fi + nf),
                    Arrays.copyOfRange(features, fi, fi + nf));
            request.evalNeighbourhood = spec.kind != MiniBatch.Kind.TRAIN;
            request.layerInput = layerInput;
            request.layerDim = layerDim;
            request.layerRootRows = layerInput > 0 ? nodeCounts[0] : 0;
            if (nf > 0) {
                featureParts++;
            }
            if (neighbourParts && ns > 0) {
                request.neighbourPart = featureParts++;
            }
            outstanding.put(new RequestKey(route, part), request);
            traffic.request(request);
            si += ns;
            fi += nf;
            part++;
        } while (si < sample.length || fi < features.length);
    }

    /**
     * An inference block of layer {@code layer + 1}: its source rows are the sources' stored
     * outputs of model layer {@code layer} ({@code dim} floats each), not their features.
     */
    public BatchBuilder layerInput(int layer, int dim) {
        if (spec.layer != layer + 1) {
            throw new IllegalArgumentException(
                    "a block of layer "
                            + spec.layer
                            + " reads outputs of layer "
                            + (spec.layer - 1)
                            + ", not "
                            + layer);
        }
        this.layerInput = layer;
        this.layerDim = dim;
        return this;
    }

    /**
     * Neighbours an inference or evaluation block samples per vertex ({@code -1}, the default:
     * all); a vertex with more gets its {@code EvalNeighbourhood} of that many ({@link
     * SampleRequest#evalNeighbourhood}).
     */
    public BatchBuilder evalFanout(int fanout) {
        this.evalFanout = fanout;
        return this;
    }

    private int fanoutOf(int hopNumber) {
        return spec.kind == MiniBatch.Kind.TRAIN ? fanouts[hopNumber - 1] : evalFanout;
    }

    /** Builds hop {@code h}'s block from the received responses and numbers the new nodes. */
    private void expand(int h) {
        int numDst = nodeCounts[h - 1];
        SampleResponse[] responseOf = new SampleResponse[numDst];
        int[] startOf = new int[numDst];
        int[] countOf = new int[numDst];
        for (SampleResponse r : received.values()) {
            int at = 0;
            for (int i = 0; i < r.sampleVertices.length; i++) {
                int dst = nodes.get(r.sampleVertices[i]);
                responseOf[dst] = r;
                startOf[dst] = at;
                countOf[dst] = r.neighbourCounts[i];
                at += r.neighbourCounts[i];
                if (h == 1 && i < r.summedCounts.length && r.summedCounts[i] > 0) {
                    if (summed == null) {
                        summed = new int[numDst];
                    }
                    summed[dst] = r.summedCounts[i];
                }
            }
        }
        int[] ptr = new int[numDst + 1];
        IntList idx = new IntList();
        for (int dst = 0; dst < numDst; dst++) {
            SampleResponse r = responseOf[dst];
            for (int k = 0; k < countOf[dst]; k++) {
                idx.add(nodes.numberOf(r.neighbours[startOf[dst] + k]));
            }
            ptr[dst + 1] = idx.size();
        }
        indptr[h - 1] = ptr;
        indices[h - 1] = idx.toArray();
        nodeCounts[h] = nodes.size();
        if (!servedThisHop.isEmpty()) {
            for (int i = nodeCounts[h - 1]; i < nodeCounts[h]; i++) {
                if (servedThisHop.contains(nodes.vertex(i))) {
                    servedNodes.set(i);
                }
            }
            servedThisHop.clear();
        }
    }

    /**
     * The finished batch's head: its structure, and the number of feature parts the GraphStore sent
     * to the trainer; only valid once {@link #isComplete()}.
     */
    public MiniBatchPart buildHead() {
        if (!complete) {
            throw new IllegalStateException(
                    "batch " + spec.batchId + " is not complete (hop " + hop + ")");
        }
        MiniBatchPart head = MiniBatchPart.head(structure(), attempt, featureParts);
        head.servedRows = servedNodes.stream().toArray();
        return head;
    }

    /** The batch without its features and labels. */
    private MiniBatch structure() {
        MiniBatch b = new MiniBatch();
        b.batchId = spec.batchId;
        b.seq = spec.seq;
        b.trainer = spec.trainer;
        b.kind = spec.kind;
        b.step = spec.step;
        b.roundIndex = spec.roundIndex;
        b.roundSize = spec.roundSize;
        b.roundShare = spec.roundShare;
        b.finalRound = spec.finalRound;
        b.layer = spec.layer;
        b.graphVertices = spec.graphVertices;
        b.graphEdgesIngested = spec.graphEdgesIngested;
        b.graphReplicas = spec.graphReplicas;
        b.graphCutEdgesIngested = spec.graphCutEdgesIngested;
        b.numLayers = numLayers;
        b.nodeCounts = nodeCounts.clone();
        b.nodeIds = nodes.ids();
        b.setBlocks(indptr, indices);
        b.featureDim = layerInput > 0 ? layerDim : featureDim;
        b.summedNeighbours = summed == null ? null : summed.clone();
        traffic.into(b);
        return b;
    }

    /**
     * Node numbers {@code from..to-1}, except those in {@code skip}, by route (null where a route
     * has none), in order.
     */
    private IntList[] groupByRoute(int from, int to, BitSet skip) {
        IntList[] groups = new IntList[partitioner.numPartitions()];
        for (int i = from; i < to; i++) {
            if (skip != null && skip.get(i)) {
                continue;
            }
            int p = routeOf[partitioner.partition(nodes.vertex(i))];
            if (groups[p] == null) {
                groups[p] = new IntList();
            }
            groups[p].add(i);
        }
        return groups;
    }

    /** Identity of one request within the current hop. */
    private record RequestKey(int route, int part) {}
}
