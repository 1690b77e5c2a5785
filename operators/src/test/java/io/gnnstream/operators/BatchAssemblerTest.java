package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The BatchAssembler through Flink's keyed harness on RocksDB: the loop protocol and its recovery.
 */
@Timeout(60)
class BatchAssemblerTest {

    private static final long TIMEOUT = 1_000;

    @Test
    void assemblesABatchAndCleansUpItsState() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement1(new StreamRecord<>(spec(5, 1, 2)));
            List<SampleRequest> hop1 = requests(h);
            assertEquals(1, hop1.size(), "one partition, one request");
            assertArrayEquals(new long[] {1, 2}, hop1.get(0).sampleVertices);
            assertArrayEquals(
                    new long[] {1, 2}, hop1.get(0).featureVertices, "the seeds' features");
            assertArrayEquals(new int[] {0, 1}, hop1.get(0).featureRows);
            assertEquals(0, hop1.get(0).featurePart);
            h.processElement2(new StreamRecord<>(answer(hop1.get(0), new long[][] {{3}, {1}})));
            List<SampleRequest> hop2 = requests(h);
            assertEquals(2, hop2.get(0).hop, "features of the nodes new at hop 1");
            assertArrayEquals(new long[] {3}, hop2.get(0).featureVertices);
            assertArrayEquals(new int[] {2}, hop2.get(0).featureRows);
            assertEquals(1, hop2.get(0).featurePart);
            h.processElement2(new StreamRecord<>(answer(hop2.get(0), new long[0][])));
            List<MiniBatchPart> done = heads(h);
            assertEquals(1, done.size());
            assertArrayEquals(new long[] {1, 2, 3}, done.get(0).head.nodeIds);
            assertEquals(2, done.get(0).numParts, "the trainer waits for the two feature parts");
            assertEquals(0, done.get(0).attempt);
            for (String state :
                    List.of(BatchAssembler.SPEC.getName(), BatchAssembler.ATTEMPT.getName())) {
                try (Stream<Object> keys =
                        ((AbstractStreamOperator<?>) h.getOperator())
                                .getKeyedStateBackend()
                                .getKeys(state, VoidNamespace.INSTANCE)) {
                    assertEquals(
                            0, keys.count(), "a finished batch leaves no keyed state in " + state);
                }
            }
        }
    }

    @Test
    void sendsAHeartbeatAroundTheLoopWhenIdle() throws Exception {
        try (var h = harness()) {
            h.open();
            h.setProcessingTime(0);
            h.setProcessingTime(BatchAssembler.HEARTBEAT_MS);
            List<GraphStoreInput> beats = new ArrayList<>();
            for (Object o : h.getOutput()) {
                if (o instanceof StreamRecord<?> r) {
                    beats.add((GraphStoreInput) r.getValue());
                }
            }
            assertEquals(1, beats.size());
            assertTrue(requestsOf(beats.get(0))[0].isHeartbeat());
            assertEquals(0, requestsOf(beats.get(0))[0].sampleVertices.length);
        }
    }

    @Test
    void resendsMissingRequestsAfterTheTimeout() throws Exception {
        try (var h = harness()) {
            h.open();
            h.setProcessingTime(0);
            h.processElement1(new StreamRecord<>(spec(5, 1, 2)));
            int sent = requests(h).size();
            h.setProcessingTime(TIMEOUT + 1);
            assertEquals(sent, requests(h).size(), "the lost request must be sent again");
        }
    }

    @Test
    void restartsBatchesWhoseProgressWasLostInARestore() throws Exception {
        OperatorSubtaskState snapshot = snapshotWithBatchStarted();
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.setProcessingTime(TIMEOUT + 1);
            List<SampleRequest> again = requests(h);
            assertEquals(1, again.size());
            assertEquals(1, again.get(0).hop, "restarted from the first hop");
            assertEquals(
                    1,
                    again.get(0).attempt,
                    "as a new attempt, whose parts replace the first one's");
            h.processElement2(new StreamRecord<>(answer(again.get(0), new long[][] {{}, {}})));
            List<MiniBatchPart> done = heads(h);
            assertEquals(1, done.size());
            assertEquals(1, done.get(0).attempt);
            assertEquals(1, done.get(0).numParts);
        }
    }

    /**
     * A spec the scheduler issues again after a restore is sampled at once, not after the timeout.
     */
    @Test
    void samplesAReissuedSpecAtOnceAfterARestore() throws Exception {
        OperatorSubtaskState snapshot = snapshotWithBatchStarted();
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.setProcessingTime(1);
            BatchSpec reissued = spec(5, 1, 2);
            reissued.generation = 1;
            h.processElement1(new StreamRecord<>(reissued));
            List<SampleRequest> again = requests(h);
            assertEquals(1, again.size(), "sampled again before any timer fired");
            assertEquals(1, again.get(0).hop);
            assertTrue(
                    again.get(0).attempt > 1 << 16,
                    "an attempt above all of the earlier generation's");
            h.processElement1(new StreamRecord<>(reissued));
            assertEquals(0, requests(h).size(), "the same generation again is a duplicate");
            h.processElement2(new StreamRecord<>(answer(again.get(0), new long[][] {{}, {}})));
            assertEquals(again.get(0).attempt, heads(h).get(0).attempt);
        }
    }

    /**
     * At another parallelism of the assembler (the job's graph parallelism) every subtask restores
     * the specs and timeout timers of the batch ids of its key groups: each batch in progress is
     * sampled again from hop 1 and completes.
     */
    @Test
    void restartsEveryBatchInProgressAtAnotherParallelism() throws Exception {
        OperatorSubtaskState[] halves = new OperatorSubtaskState[2];
        for (int subtask = 0; subtask < 2; subtask++) {
            try (var h = harness(new HashPartitioner(1), 1, 16, 2, subtask)) {
                h.open();
                h.setProcessingTime(0);
                for (long id = 1; id <= 8; id++) {
                    if (KeyGroupRangeAssignment.assignKeyToParallelOperator(id, 8, 2) == subtask) {
                        h.processElement1(new StreamRecord<>(spec(id, 1, 2)));
                    }
                }
                halves[subtask] = h.snapshot(1, 1);
            }
        }
        OperatorSubtaskState both = AbstractStreamOperatorTestHarness.repackageState(halves);
        for (int parallelism : new int[] {1, 3}) {
            Set<Long> restarted = new HashSet<>();
            Set<Long> done = new HashSet<>();
            for (int subtask = 0; subtask < parallelism; subtask++) {
                try (var h = harness(new HashPartitioner(1), 1, 16, parallelism, subtask)) {
                    h.initializeState(
                            AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                    both, 8, 2, parallelism, subtask));
                    h.open();
                    h.setProcessingTime(TIMEOUT + 1);
                    for (List<SampleRequest> asked = requests(h);
                            !asked.isEmpty();
                            asked = requests(h)) {
                        for (SampleRequest r : asked) {
                            assertEquals(1, r.hop);
                            assertEquals(1, r.attempt);
                            assertEquals(
                                    subtask,
                                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                            r.batchId, 8, parallelism),
                                    "batch " + r.batchId + " restored on subtask " + subtask);
                            restarted.add(r.batchId);
                            h.processElement2(new StreamRecord<>(answer(r, new long[][] {{}, {}})));
                        }
                    }
                    heads(h).forEach(p -> done.add(p.batchId));
                }
            }
            Set<Long> all = Set.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertEquals(all, restarted, "at parallelism " + parallelism);
            assertEquals(all, done, "at parallelism " + parallelism);
        }
    }

    /**
     * A snapshot taken right after batch 5 started: its spec is in state, its partial subgraph is
     * not.
     */
    private static OperatorSubtaskState snapshotWithBatchStarted() throws Exception {
        try (var h = harness()) {
            h.open();
            h.setProcessingTime(0);
            h.processElement1(new StreamRecord<>(spec(5, 1, 2)));
            return h.snapshot(1, 1);
        }
    }

    private static KeyedTwoInputStreamOperatorTestHarness<
                    Long, BatchSpec, SampleResponse, GraphStoreInput>
            harness() throws Exception {
        return harness(new HashPartitioner(1), 16);
    }

    @Test
    void keepsAtMostTheWindowOfVerticesInTheLoop() throws Exception {
        HashPartitioner eight = new HashPartitioner(8);
        try (var h = harness(eight, 8)) {
            h.open();
            h.processElement1(new StreamRecord<>(spec(5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)));
            List<SampleRequest> first = requests(h);
            for (SampleRequest r : first) {
                assertEquals(
                        2,
                        r.sampleVertices.length + r.featureVertices.length,
                        "a window of 8 splits requests into 2 vertices: a seed to sample and its"
                                + " features");
            }
            assertEquals(4, first.size(), "four requests of 2 vertices fill the window of 8");
            h.processElement2(new StreamRecord<>(answer(first.get(0), empty(first.get(0)))));
            assertEquals(1, requests(h).size(), "an answer lets the next request out");
            h.processElement2(new StreamRecord<>(answer(first.get(0), empty(first.get(0)))));
            assertEquals(0, requests(h).size(), "a duplicate answer frees nothing");
        }
    }

    /**
     * A hop goes as one request per GraphStore subtask, for all the partitions it owns, keyed by
     * the lowest of them; the requests let out together go as one record per subtask.
     */
    @Test
    void sendsOneRequestPerGraphStoreSubtask() throws Exception {
        HashPartitioner eight = new HashPartitioner(8);
        try (var h = harness(eight, 2, 1 << 10)) {
            h.open();
            h.processElement1(new StreamRecord<>(spec(5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)));
            List<GraphStoreInput> bundles = bundles(h);
            assertEquals(2, bundles.size(), "one bundle per subtask");
            Set<Integer> subtasks = new HashSet<>();
            Set<Long> asked = new HashSet<>();
            for (GraphStoreInput bundle : bundles) {
                assertEquals(1, requestsOf(bundle).length, "one request per subtask");
                SampleRequest r = requestsOf(bundle)[0];
                int subtask = ownerOf(r.route);
                for (int p = 0; p < r.route; p++) {
                    assertTrue(
                            ownerOf(p) != subtask, "keyed by the lowest partition of its subtask");
                }
                for (long v : r.sampleVertices) {
                    assertEquals(
                            subtask,
                            ownerOf(eight.partition(v)),
                            "vertex " + v + " of another subtask");
                    asked.add(v);
                }
                subtasks.add(subtask);
            }
            assertEquals(Set.of(0, 1), subtasks);
            assertEquals(12, asked.size(), "every seed is asked");
        }
    }

    private static int ownerOf(int partition) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                VertexKey.anchor(partition), 8, 2);
    }

    private static long[][] empty(SampleRequest r) {
        return new long[r.sampleVertices.length][0];
    }

    private static KeyedTwoInputStreamOperatorTestHarness<
                    Long, BatchSpec, SampleResponse, GraphStoreInput>
            harness(HashPartitioner partitioner, int window) throws Exception {
        return harness(partitioner, 1, window);
    }

    private static KeyedTwoInputStreamOperatorTestHarness<
                    Long, BatchSpec, SampleResponse, GraphStoreInput>
            harness(HashPartitioner partitioner, int storeParallelism, int window)
                    throws Exception {
        return harness(partitioner, storeParallelism, window, 1, 0);
    }

    /** Subtask {@code subtask} of {@code parallelism} assemblers (max parallelism 8) on RocksDB. */
    private static KeyedTwoInputStreamOperatorTestHarness<
                    Long, BatchSpec, SampleResponse, GraphStoreInput>
            harness(
                    HashPartitioner partitioner,
                    int storeParallelism,
                    int window,
                    int parallelism,
                    int subtask)
                    throws Exception {
        var h =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        new BatchAssembler(
                                new int[] {2}, 1, partitioner, storeParallelism, TIMEOUT, window),
                        (BatchSpec s) -> s.batchId,
                        (SampleResponse r) -> r.batchId,
                        Types.LONG,
                        8,
                        parallelism,
                        subtask);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
        rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
        h.setStateBackend(rocksDb);
        return h;
    }

    private static BatchSpec spec(long id, long... seeds) {
        BatchSpec s = new BatchSpec();
        s.batchId = id;
        s.kind = MiniBatch.Kind.TRAIN;
        s.seeds = seeds;
        return s;
    }

    private static SampleResponse answer(SampleRequest r, long[][] neighbours) {
        SampleResponse s = new SampleResponse();
        s.batchId = r.batchId;
        s.hop = r.hop;
        s.route = r.route;
        s.part = r.part;
        s.sampleVertices = r.sampleVertices;
        s.neighbourCounts = new int[r.sampleVertices.length];
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < r.sampleVertices.length; i++) {
            s.neighbourCounts[i] = neighbours[i].length;
            for (long v : neighbours[i]) {
                all.add(v);
            }
        }
        s.neighbours = all.stream().mapToLong(Long::longValue).toArray();
        return s;
    }

    private static SampleRequest[] requestsOf(GraphStoreInput bundle) {
        return ((GraphStoreInput.Requests) bundle).requests();
    }

    /** The requests emitted since the last call. */
    private static List<SampleRequest> requests(
            KeyedTwoInputStreamOperatorTestHarness<Long, BatchSpec, SampleResponse, GraphStoreInput>
                    h) {
        List<SampleRequest> out = new ArrayList<>();
        bundles(h).forEach(b -> out.addAll(List.of(requestsOf(b))));
        return out;
    }

    /** The request bundles emitted since the last call, without heartbeats. */
    private static List<GraphStoreInput> bundles(
            KeyedTwoInputStreamOperatorTestHarness<Long, BatchSpec, SampleResponse, GraphStoreInput>
                    h) {
        List<GraphStoreInput> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                GraphStoreInput input = (GraphStoreInput) ((StreamRecord<?>) o).getValue();
                if (!(requestsOf(input).length == 1 && requestsOf(input)[0].isHeartbeat())) {
                    out.add(input);
                }
            }
        }
        h.getOutput().clear();
        return out;
    }

    /** The batch heads emitted so far. */
    private static List<MiniBatchPart> heads(
            KeyedTwoInputStreamOperatorTestHarness<Long, BatchSpec, SampleResponse, GraphStoreInput>
                    h) {
        List<MiniBatchPart> out = new ArrayList<>();
        if (h.getSideOutput(BatchAssembler.BATCHES) != null) {
            h.getSideOutput(BatchAssembler.BATCHES).forEach(r -> out.add(r.getValue()));
        }
        out.forEach(
                p ->
                        assertTrue(
                                p.isHead() && p.head.features == null,
                                "only heads, without features"));
        return out;
    }
}
