package io.gnnstream.operators.assembly;

import static io.gnnstream.operators.assembly.LoopGraph.DIM;

import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One assembler subtask, a {@link LoopGraph} GraphStore of two subtasks and a trainer's {@link
 * PartialBatches} in memory, with a seeded random schedule: records travel on FIFO channels,
 * delivered in random order across channels; the graph changes; the assembler fails and restarts on
 * its keyed state (its heap and the requests on the feedback edge are lost, the records on ordinary
 * edges and its timers are kept); timers fire at any time, and when nothing else can happen; a
 * batch that no timer will finish is issued again in a newer generation (the scheduler's stall
 * rule). Every batch must end joined at the trainer, each row holding its own vertex's features,
 * all fetched by one attempt.
 */
final class AssemblySimulation {

    private static final int[] FANOUTS = {2, 2};
    private static final int SUBTASKS = 2;

    private final SplittableRandom random;
    private final LoopGraph graph = new LoopGraph(40, 4, SUBTASKS);
    private final AssemblerConfig config = graph.config(8);
    private final MemoryBatchState state = new MemoryBatchState();
    private final AssemblerOutput out = new AssemblerOutput();
    private final PartialBatches partials;
    private final TrainerFeatureCache cache = new TrainerFeatureCache(0, DIM);
    private AssemblerCore core;

    /** Channels; index 0 specs, 1 heads, then per GraphStore subtask requests, responses, parts. */
    private final List<ArrayDeque<Object>> channels = new ArrayList<>();

    /** Per channel, how often it is picked when ready (some channels are slower than others). */
    private final int[] speed = new int[2 + 3 * SUBTASKS];

    /** Timers by time: the batches whose timer fires then. */
    private final TreeMap<Long, Set<Long>> timers = new TreeMap<>();

    private final Map<Long, BatchSpec> issued = new HashMap<>();
    private final Set<Long> joined = new HashSet<>();
    private long now;
    int restores;
    int changes;
    int reissues;

    AssemblySimulation(long seed, PartialBatches partials, int batches) {
        this.random = new SplittableRandom(seed);
        this.partials = partials;
        for (int c = 0; c < 2 + 3 * SUBTASKS; c++) {
            channels.add(new ArrayDeque<>());
        }
        this.core = state.core(config, 0);
        drawSpeeds();
        for (long id = 1; id <= batches; id++) {
            long[] seeds = random.longs(2 + random.nextInt(6), 0, graph.vertices).toArray();
            BatchSpec spec = LoopGraph.spec(id, seeds);
            issued.put(id, spec);
            channels.get(0).add(spec);
        }
    }

    /** Runs until every batch is joined; false after {@code maxEvents} events. */
    boolean run(int maxEvents) throws IOException {
        for (int n = 0; n < maxEvents && joined.size() < issued.size(); n++) {
            double r = random.nextDouble();
            if (r < 0.02 && restores < 5) {
                restore();
                continue;
            }
            if (r < 0.04 && changes < 3) {
                graph.version++;
                changes++;
                continue;
            }
            if (r < 0.045 && !timers.isEmpty()) {
                fireTimers();
                continue;
            }
            int weights = 0;
            for (int c = 0; c < channels.size(); c++) {
                weights += channels.get(c).isEmpty() ? 0 : speed[c];
            }
            if (weights == 0) {
                idle();
                continue;
            }
            int pick = random.nextInt(weights);
            for (int c = 0; c < channels.size(); c++) {
                pick -= channels.get(c).isEmpty() ? 0 : speed[c];
                if (pick < 0) {
                    deliver(c);
                    break;
                }
            }
        }
        return joined.size() == issued.size();
    }

    /** The assembler fails and restarts on its keyed state; the feedback edge loses its records. */
    private void restore() {
        restores++;
        core = state.core(config, 0);
        drawSpeeds();
        for (int s = 0; s < SUBTASKS; s++) {
            channels.get(requests(s)).clear();
        }
    }

    /** Time passes until the next timers, which fire. */
    private void fireTimers() throws IOException {
        Map.Entry<Long, Set<Long>> due = timers.pollFirstEntry();
        now = Math.max(now, due.getKey());
        for (long batchId : due.getValue()) {
            core.onTimer(batchId, now, out);
            route();
        }
    }

    /** Nothing to deliver: the next timers fire, or the batches not joined are issued again. */
    private void idle() throws IOException {
        if (!timers.isEmpty()) {
            fireTimers();
            return;
        }
        reissues++;
        for (BatchSpec spec : issued.values()) {
            if (!joined.contains(spec.batchId)) {
                BatchSpec again = LoopGraph.spec(spec.batchId, spec.seeds);
                again.generation = spec.generation + 1;
                issued.put(spec.batchId, again);
                channels.get(0).add(again);
            }
        }
    }

    private void deliver(int c) throws IOException {
        Object record = channels.get(c).poll();
        if (c == 0) {
            core.onSpec((BatchSpec) record, now, out);
            route();
        } else if (c == 1 || (c - 2) % 3 == 2) {
            trainer((MiniBatchPart) record);
        } else if ((c - 2) % 3 == 0) {
            SampleRequest r = (SampleRequest) record;
            channels.get(c + 1).add(graph.answer(r));
            MiniBatchPart part = graph.part(r);
            if (part != null) {
                channels.get(c + 2).add(part);
            }
        } else {
            core.onResponse((SampleResponse) record, now, out);
            route();
        }
    }

    /** The trainer: parts of joined batches are ignored (held), the others joined. */
    private void trainer(MiniBatchPart part) {
        if (joined.contains(part.seq)) {
            return;
        }
        MiniBatch b = partials.accept(part, cache);
        if (b != null) {
            graph.check(b, FANOUTS, -1);
            joined.add(b.seq);
        }
    }

    /** Sends what the assembler decided. */
    private void route() {
        for (SampleRequest[] bundle : out.bundles()) {
            for (SampleRequest r : bundle) {
                channels.get(requests(graph.sites.siteOf(r.route))).add(r);
            }
        }
        channels.get(1).addAll(out.heads());
        for (AssemblerOutput.Timer t : out.timers()) {
            timers.computeIfAbsent(t.at(), at -> new HashSet<>()).add(t.batchId());
        }
        out.clear();
    }

    private void drawSpeeds() {
        for (int c = 0; c < speed.length; c++) {
            speed[c] = random.nextInt(4) == 0 ? 1 : 8;
        }
    }

    private static int requests(int subtask) {
        return 2 + 3 * subtask;
    }

    @Override
    public String toString() {
        return restores
                + " restores, "
                + changes
                + " graph changes, "
                + reissues
                + " re-issues; joined "
                + joined
                + ", building "
                + core.inProgress()
                + ", state "
                + state.specs.keySet()
                + ", partial "
                + partials.size()
                + ", timers "
                + timers.size()
                + ", now "
                + now
                + ", window "
                + core.outstandingVertices()
                + "/"
                + core.queued()
                + ", channels "
                + channels.stream().map(ArrayDeque::size).toList();
    }
}
