package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.tools.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * What one ingest run's GraphStore did, seen from inside the job: how many edges it held over time
 * (for timing ingestion at steady state) and how large its state was at the end. The {@link
 * Collector} reads the store's {@link GraphStoreOperator#EVENTS}, chained to the store so an event
 * is seen when it is published. A subtask publishes the absolute number of edges in the state of
 * each of its partitions that changed (edges it still buffers are not counted), all at once every
 * stats interval, so each publication is an exact sample of that subtask's count; {@link
 * SteadyRate#combine} turns the subtasks' samples into the total. The MiniCluster runs in this JVM,
 * so the collectors of a run share one instance through a static registry keyed by the run id.
 *
 * <p>The store does not publish after its input ended, so the moment the last collector's input
 * ends is a final sample with every edge of the topic: all records have reached the store's state
 * by then.
 *
 * <p>The state is measured on the checkpoint Flink takes after that, from within the job: Flink
 * deletes even a retained checkpoint once the job has finished, and it cannot finish while a task
 * is still handling the checkpoint's completion.
 */
final class IngestProgress implements AutoCloseable {

    private static final Map<String, IngestProgress> RUNS = new ConcurrentHashMap<>();

    private final String runId;
    private final int subtasks;
    private final long edges;
    private final long burstNanos;
    private final Map<Integer, Long> byPartition = new HashMap<>();
    private final long[] counts;
    private final List<List<SteadyRate.Sample>> samples = new ArrayList<>();
    private int ended;
    private SteadyRate.Sample end;
    private long checkpointBytes = -1;

    private IngestProgress(String runId, int subtasks, long edges, long statsIntervalMs) {
        this.runId = runId;
        this.subtasks = subtasks;
        this.edges = edges;
        this.burstNanos = statsIntervalMs * 1_000_000L / 2;
        this.counts = new long[subtasks];
        for (int i = 0; i < subtasks; i++) {
            samples.add(new ArrayList<>());
        }
    }

    /**
     * Registers a run whose {@code subtasks} collectors will ingest {@code edges} edges in all,
     * their stores publishing every {@code statsIntervalMs}.
     */
    static IngestProgress register(String runId, int subtasks, long edges, long statsIntervalMs) {
        IngestProgress progress = new IngestProgress(runId, subtasks, edges, statsIntervalMs);
        if (RUNS.putIfAbsent(runId, progress) != null) {
            throw new IllegalStateException("run " + runId + " is already registered");
        }
        return progress;
    }

    /**
     * Partition {@code partition} of {@code subtask} holds {@code edgesInState} edges in state.
     * Events of one subtask less than half a stats interval apart belong to one publication, whose
     * sample is the subtask's count after its last event.
     */
    synchronized void stats(int subtask, int partition, long edgesInState) {
        Long previous = byPartition.put(partition, edgesInState);
        counts[subtask] += edgesInState - (previous == null ? 0 : previous);
        long now = System.nanoTime();
        List<SteadyRate.Sample> own = samples.get(subtask);
        if (!own.isEmpty() && now - own.get(own.size() - 1).nanos() < burstNanos) {
            own.remove(own.size() - 1);
        }
        own.add(new SteadyRate.Sample(now, counts[subtask]));
    }

    synchronized void inputEnded() {
        if (++ended == subtasks) {
            end = new SteadyRate.Sample(System.nanoTime(), edges);
        }
    }

    /**
     * Measures {@code jobCheckpoints} with {@link #checkpointBytes(Path)} at the first completed
     * checkpoint after every collector's input ended, i.e. with every edge in the checkpoint.
     */
    synchronized void checkpointCompleted(Path jobCheckpoints) throws IOException {
        if (ended == subtasks && checkpointBytes < 0) {
            checkpointBytes = checkpointBytes(jobCheckpoints);
        }
    }

    /**
     * The total edges in state over time, ending with all of them.
     *
     * @throws IllegalStateException if some collector's input has not ended
     */
    synchronized List<SteadyRate.Sample> samples() {
        if (end == null) {
            throw new IllegalStateException(
                    ended + " of " + subtasks + " subtasks read all of their input");
        }
        return SteadyRate.combine(samples, end);
    }

    /**
     * The bytes of the final checkpoint.
     *
     * @throws IllegalStateException if no checkpoint completed after all input was read
     */
    synchronized long checkpointBytes() {
        if (checkpointBytes < 0) {
            throw new IllegalStateException(
                    "no checkpoint completed after all edges were in state");
        }
        return checkpointBytes;
    }

    @Override
    public void close() {
        RUNS.remove(runId, this);
    }

    /**
     * Bytes of the files of a job's single checkpoint other than its {@code _metadata}: the shared
     * SST files and the checkpoint's own files (MANIFEST, OPTIONS, state meta data, and the Kafka
     * source's offsets, a few hundred bytes).
     *
     * @throws IllegalStateException unless there is exactly one checkpoint, {@code chk-1}: with
     *     more, {@code shared/} could still hold files only an earlier checkpoint used
     */
    static long checkpointBytes(Path jobCheckpoints) throws IOException {
        List<String> checkpoints;
        try (Stream<Path> dirs = Files.list(jobCheckpoints)) {
            checkpoints =
                    dirs.map(d -> d.getFileName().toString())
                            .filter(n -> n.startsWith("chk-"))
                            .sorted()
                            .toList();
        }
        if (!checkpoints.equals(List.of("chk-1"))) {
            throw new IllegalStateException(
                    "expected the final checkpoint chk-1 alone in "
                            + jobCheckpoints
                            + ", found "
                            + checkpoints);
        }
        return Directories.bytesOf(
                jobCheckpoints, f -> !f.getFileName().toString().equals("_metadata"));
    }

    private static IngestProgress of(String runId) {
        IngestProgress progress = RUNS.get(runId);
        if (progress == null) {
            throw new IllegalStateException("no ingest run " + runId + " in this JVM");
        }
        return progress;
    }

    /**
     * Feeds the store's events and checkpoints of one subtask into the run's {@link
     * IngestProgress}.
     */
    static final class Collector extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<GraphEvent, Void>, BoundedOneInput {

        private static final long serialVersionUID = 1L;

        private final String runId;
        private final String checkpointsDir;
        private transient IngestProgress progress;

        /**
         * {@code checkpointsDir}: the job's checkpoint directory, holding one folder per job id.
         */
        Collector(String runId, Path checkpointsDir) {
            this.runId = runId;
            this.checkpointsDir = checkpointsDir.toString();
            this.chainingStrategy = ChainingStrategy.ALWAYS;
        }

        @Override
        public void open() throws Exception {
            super.open();
            progress = IngestProgress.of(runId);
        }

        @Override
        public void processElement(StreamRecord<GraphEvent> element) {
            GraphEvent event = element.getValue();
            if (event.kind == GraphEvent.Kind.STATS) {
                progress.stats(
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        event.partition,
                        event.edges);
            }
        }

        @Override
        public void endInput() {
            progress.inputEnded();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            super.notifyCheckpointComplete(checkpointId);
            progress.checkpointCompleted(
                    Path.of(
                            checkpointsDir,
                            getContainingTask().getEnvironment().getJobID().toString()));
        }
    }
}
