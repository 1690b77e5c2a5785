package io.gnnstream.operators;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.Mix;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Decides which batches are built and when (parallelism 1).
 *
 * <p>Input 1: {@link GraphEvent}s (seed vertices per split, partition sizes). Input 2:
 * {@link Credit}s from the trainer through the second iteration's feedback edge. Output:
 * {@link BatchSpec}s, in the order the trainer must consume them ({@code seq}).
 *
 * <p>Training batches are shuffled passes over the known training vertices, like a
 * {@code DataLoader(shuffle=True)}: each epoch sorts the seeds known at its start and permutes them
 * with a generator seeded by {@code (seed, epoch)}, so the order does not depend on arrival order.
 * After every {@code evalEvery} training steps and after the last one, an evaluation round over all
 * validation and test vertices is inserted into the same sequence.
 *
 * <p>Flow control: at most {@code prefetch} batches are issued and not yet acknowledged. Credits
 * carry the trainer's absolute progress, so lost credits (they ride a feedback edge and are not
 * checkpointed) are repaired by the trainer's periodic re-announcement.
 *
 * <p>Restore: the issued specs not yet acknowledged are state, and a restored scheduler issues them
 * all again, of a new {@link BatchSpec#generation}, before anything else. Their batches may have
 * been whole at the trainer only through cache slots that did not survive the restore (see
 * {@code TrainerFeatureCache}); the assembler samples each again as a new attempt unless it still
 * has the batch in progress, and the trainer ignores what it has trained or holds whole already
 * (docs/design.md, "Checkpoints and restore", "SeedScheduler").
 */
public class SeedScheduler extends AbstractStreamOperator<BatchSpec>
        implements TwoInputStreamOperator<GraphEvent, Credit, BatchSpec> {

    private static final long serialVersionUID = 1L;

    static final ListStateDescriptor<SchedulerState> STATE =
            new ListStateDescriptor<>("scheduler", TypeInformation.of(SchedulerState.class));

    private final SchedulerConfig config;

    private transient ListState<SchedulerState> checkpointed;
    private transient SchedulerState s;
    private transient Set<Long> train;
    private transient Set<Long> val;
    private transient Set<Long> test;
    private transient boolean restored;

    public SeedScheduler(SchedulerConfig config) {
        this.config = config;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        checkpointed = context.getOperatorStateStore().getListState(STATE);
        s = null;
        for (SchedulerState state : checkpointed.get()) {
            s = state;
        }
        restored = s != null;
        if (restored) {
            s.generation++;
        } else {
            s = new SchedulerState();
            s.trainSeeds = new long[0];
            s.valSeeds = new long[0];
            s.testSeeds = new long[0];
            s.partitionVertices = new long[config.numPartitions];
            s.partitionEdgesIngested = new long[config.numPartitions];
            s.ackedSeq = -1;
            s.unacked = new BatchSpec[0];
        }
        train = toSet(s.trainSeeds);
        val = toSet(s.valSeeds);
        test = toSet(s.testSeeds);
    }

    /** A restored scheduler issues its unacknowledged specs again (see the class comment). */
    @Override
    public void open() throws Exception {
        super.open();
        if (restored) {
            for (BatchSpec spec : s.unacked) {
                spec.generation = s.generation;
                output.collect(new StreamRecord<>(spec));
            }
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        s.trainSeeds = sorted(train);
        s.valSeeds = sorted(val);
        s.testSeeds = sorted(test);
        checkpointed.update(List.of(s));
    }

    @Override
    public void processElement1(StreamRecord<GraphEvent> element) {
        GraphEvent e = element.getValue();
        if (e.kind == GraphEvent.Kind.STATS) {
            s.partitionVertices[e.partition] = e.vertices;
            s.partitionEdgesIngested[e.partition] = e.edgesIngested;
        } else {
            train.remove(e.vertex);
            val.remove(e.vertex);
            test.remove(e.vertex);
            switch (e.split) {
                case TRAIN:
                    train.add(e.vertex);
                    break;
                case VAL:
                    val.add(e.vertex);
                    break;
                case TEST:
                    test.add(e.vertex);
                    break;
                default:
                    break;
            }
        }
        issue();
    }

    @Override
    public void processElement2(StreamRecord<Credit> element) {
        s.ackedSeq = Math.max(s.ackedSeq, element.getValue().processedSeq);
        int acked = 0;
        while (acked < s.unacked.length && s.unacked[acked].seq <= s.ackedSeq) {
            acked++;
        }
        if (acked > 0) {
            s.unacked = Arrays.copyOfRange(s.unacked, acked, s.unacked.length);
        }
        issue();
    }

    private void issue() {
        while (s.issuedSeq - (s.ackedSeq + 1) < config.prefetch) {
            BatchSpec spec = next();
            if (spec == null) {
                return;
            }
            spec.batchId = s.nextBatchId++;
            spec.seq = s.issuedSeq++;
            spec.graphVertices = Arrays.stream(s.partitionVertices).sum();
            spec.graphEdgesIngested = Arrays.stream(s.partitionEdgesIngested).sum();
            spec.generation = s.generation;
            s.unacked = Arrays.copyOf(s.unacked, s.unacked.length + 1);
            s.unacked[s.unacked.length - 1] = spec;
            output.collect(new StreamRecord<>(spec));
        }
    }

    private BatchSpec next() {
        if (s.roundNext < s.roundSize) {
            return nextEvaluation();
        }
        boolean stepsLeft = config.maxSteps <= 0 || s.trainSteps < config.maxSteps;
        if (!stepsLeft || train.isEmpty() || train.size() < config.minTrainSeeds) {
            return null;
        }
        if (s.epochOrder == null || s.epochPosition >= s.epochOrder.length) {
            s.epochOrder = shuffled(sorted(train), new SplittableRandom(Mix.seed(config.seed, 0x5EED, s.epoch++)));
            s.epochPosition = 0;
        }
        int end = Math.min(s.epochOrder.length, s.epochPosition + config.batchSize);
        BatchSpec spec = new BatchSpec();
        spec.kind = MiniBatch.Kind.TRAIN;
        spec.seeds = Arrays.copyOfRange(s.epochOrder, s.epochPosition, end);
        s.epochPosition = end;
        spec.step = ++s.trainSteps;
        boolean last = config.maxSteps > 0 && s.trainSteps == config.maxSteps;
        if (last || (config.evalEvery > 0 && s.trainSteps % config.evalEvery == 0)) {
            beginRound(s.trainSteps, last);
            spec.roundSize = s.roundSize;
            spec.finalRound = last;
        }
        return spec;
    }

    private void beginRound(long step, boolean last) {
        s.roundStep = step;
        s.roundVal = sorted(val);
        s.roundTest = sorted(test);
        s.roundNext = 0;
        s.roundSize = Math.max(1, chunks(s.roundVal.length) + chunks(s.roundTest.length));
        s.roundFinal = last;
    }

    private BatchSpec nextEvaluation() {
        int valChunks = chunks(s.roundVal.length);
        int i = s.roundNext;
        BatchSpec spec = new BatchSpec();
        spec.step = s.roundStep;
        spec.roundIndex = i;
        spec.roundSize = s.roundSize;
        spec.finalRound = s.roundFinal;
        if (i < valChunks) {
            spec.kind = MiniBatch.Kind.EVAL_VAL;
            spec.seeds = chunk(s.roundVal, i);
        } else {
            spec.kind = MiniBatch.Kind.EVAL_TEST;
            spec.seeds = chunk(s.roundTest, i - valChunks);
        }
        s.roundNext++;
        return spec;
    }

    private int chunks(int n) {
        return (n + config.evalBatchSize - 1) / config.evalBatchSize;
    }

    private long[] chunk(long[] seeds, int i) {
        int from = Math.min(seeds.length, i * config.evalBatchSize);
        return Arrays.copyOfRange(seeds, from, Math.min(seeds.length, from + config.evalBatchSize));
    }

    private static long[] shuffled(long[] values, SplittableRandom random) {
        for (int i = values.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
        return values;
    }

    private static long[] sorted(Set<Long> set) {
        long[] out = new long[set.size()];
        int i = 0;
        for (long v : set) {
            out[i++] = v;
        }
        Arrays.sort(out);
        return out;
    }

    private static Set<Long> toSet(long[] values) {
        Set<Long> set = new HashSet<>();
        for (long v : values) {
            set.add(v);
        }
        return set;
    }
}
