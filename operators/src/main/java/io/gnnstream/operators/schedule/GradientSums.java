package io.gnnstream.operators.schedule;

import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reducer role of the all-reduce (docs/design.md, "Glossary"; the protocol in {@code
 * GradientReducer}'s class comment), free of Flink: one subtask's held contributions and completed
 * sums per chunk. {@link #accept} takes a contribution and returns the sums to send, in the order
 * to send them, and refuses contributions to one sum from ranks of different device kinds ({@link
 * MixedDevicesException}). Snapshots are {@link ReducerEntry} lists (without device kinds: a
 * restored contribution's kind is unknown). Not thread-safe.
 */
public final class GradientSums {

    /** What became of a contribution. */
    public enum Outcome {
        HELD,
        SUMMED,
        RESENT,
        DUPLICATE,
        STALE,
        FOREIGN
    }

    private final int ranks;
    private final int retainedSteps;
    private final int subtasks;
    private final int index;

    /** Per chunk: held contributions and completed sums, by step. */
    private final Map<Integer, ChunkState> chunks = new HashMap<>();

    /** Per step: the chunks of this subtask's share whose sum is complete. */
    private final TreeMap<Long, Integer> completedPerStep = new TreeMap<>();

    private Outcome last;
    private int lastEvicted;

    /**
     * Subtask {@code index} of {@code subtasks}, summing {@code ranks} ranks and keeping the sums
     * of the last {@code retainedSteps} completed steps per chunk.
     */
    public GradientSums(int ranks, int retainedSteps, int subtasks, int index) {
        this.ranks = ranks;
        this.retainedSteps = retainedSteps;
        this.subtasks = subtasks;
        this.index = index;
    }

    /**
     * Takes the entries of this subtask's chunks from a snapshot's union; returns how many held
     * contributions were of ranks beyond this reducer's count (dropped).
     */
    public int restore(Iterable<ReducerEntry> sums, Iterable<ReducerEntry> contributions) {
        for (ReducerEntry e : sums) {
            if (e.chunk() % subtasks == index) {
                ReducedChunk sum =
                        new ReducedChunk(e.step(), e.chunk(), e.numChunks(), e.seeds(), e.values());
                sum.valCorrect = e.valCorrect();
                sum.valTotal = e.valTotal();
                chunk(e.chunk()).sums.put(e.step(), sum);
                completedPerStep.merge(e.step(), 1, Integer::sum);
            }
        }
        int foreign = 0;
        for (ReducerEntry e : contributions) {
            if (e.chunk() % subtasks == index) {
                GradientChunk g =
                        new GradientChunk(
                                e.step(),
                                e.rank(),
                                e.chunk(),
                                e.numChunks(),
                                e.seeds(),
                                e.values());
                g.valCorrect = e.valCorrect();
                g.valTotal = e.valTotal();
                if (g.rank >= ranks) {
                    foreign++;
                    continue;
                }
                validate(g);
                ChunkState c = chunk(g.chunk);
                if (!c.sums.containsKey(g.step) && !c.isStale(g.step)) {
                    c.held.computeIfAbsent(g.step, s -> new GradientChunk[ranks])[g.rank] = g;
                }
            }
        }
        return foreign;
    }

    /** The held contributions, for a snapshot. */
    public List<ReducerEntry> contributions() {
        List<ReducerEntry> out = new ArrayList<>();
        for (ChunkState c : chunks.values()) {
            for (GradientChunk[] byRank : c.held.values()) {
                for (GradientChunk g : byRank) {
                    if (g != null) {
                        out.add(
                                new ReducerEntry(
                                        g.step,
                                        g.chunk,
                                        g.numChunks,
                                        g.rank,
                                        g.seeds,
                                        g.values,
                                        g.valCorrect,
                                        g.valTotal));
                    }
                }
            }
        }
        return out;
    }

    /** The completed sums, for a snapshot. */
    public List<ReducerEntry> sums() {
        List<ReducerEntry> out = new ArrayList<>();
        for (ChunkState c : chunks.values()) {
            for (ReducedChunk r : c.sums.values()) {
                out.add(
                        new ReducerEntry(
                                r.step,
                                r.chunk,
                                r.numChunks,
                                ReducerEntry.SUM,
                                r.seeds,
                                r.values,
                                r.valCorrect,
                                r.valTotal));
            }
        }
        return out;
    }

    /** What became of the last contribution {@link #accept} took. */
    public Outcome lastOutcome() {
        return last;
    }

    /**
     * Takes contribution {@code g}: holds it, or completes its chunk's sum, or answers with a sum
     * already complete; returns the sums to send now (a step's sums of this subtask's share leave
     * together, once all of them are complete, in chunk order).
     *
     * @throws MixedDevicesException if {@code g} names another device kind than a held contribution
     *     to its (step, chunk)
     */
    public List<ReducedChunk> accept(GradientChunk g) {
        lastEvicted = 0;
        if (g.rank >= ranks) {
            last = Outcome.FOREIGN;
            return List.of();
        }
        validate(g);
        ChunkState c = chunk(g.chunk);
        ReducedChunk done = c.sums.get(g.step);
        if (done != null) {
            checkLength(g, done.values.length, "its completed sum");
            if (g.chunk % subtasks != index || stepComplete(g.step, g.numChunks)) {
                last = Outcome.RESENT;
                return List.of(done);
            }
            last = Outcome.DUPLICATE;
            return List.of();
        }
        if (c.isStale(g.step)) {
            last = Outcome.STALE;
            return List.of();
        }
        GradientChunk[] byRank = c.held.computeIfAbsent(g.step, s -> new GradientChunk[ranks]);
        if (byRank[g.rank] != null) {
            last = Outcome.DUPLICATE;
            return List.of();
        }
        int count = 0;
        GradientChunk known = null;
        for (GradientChunk other : byRank) {
            if (other != null) {
                checkLength(g, other.values.length, "rank " + other.rank + "'s contribution");
                if (known == null && other.device != null) {
                    known = other;
                }
                count++;
            }
        }
        checkDevice(g, known);
        byRank[g.rank] = g;
        if (count + 1 < ranks) {
            last = Outcome.HELD;
            return List.of();
        }
        last = Outcome.SUMMED;
        c.held.remove(g.step);
        ReducedChunk sum = sumInRankOrder(byRank);
        c.sums.put(g.step, sum);
        boolean ofShare = g.chunk % subtasks == index;
        if (ofShare) {
            completedPerStep.merge(g.step, 1, Integer::sum);
        }
        boolean stepDone = ofShare && stepComplete(g.step, g.numChunks);
        long evictUpTo = c.sums.lastKey() - retainedSteps;
        c.sums.headMap(evictUpTo, true).clear();
        completedPerStep.headMap(completedPerStep.lastKey() - retainedSteps, true).clear();
        Map<Long, GradientChunk[]> staleHeld = c.held.headMap(evictUpTo, true);
        lastEvicted = 0;
        for (GradientChunk[] stale : staleHeld.values()) {
            for (GradientChunk h : stale) {
                lastEvicted += h == null ? 0 : 1;
            }
        }
        staleHeld.clear();
        if (!ofShare) {
            return List.of(sum); // not routed here by the job's chunk routing; sent at once
        }
        if (!stepDone) {
            return List.of();
        }
        List<ReducedChunk> out = new ArrayList<>();
        for (int chunk = index; chunk < g.numChunks; chunk += subtasks) {
            ChunkState share = chunks.get(chunk);
            ReducedChunk s = share == null ? null : share.sums.get(g.step);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /** Held contributions the last {@link #accept} dropped as stale (its sum made them so). */
    public int lastEvicted() {
        return lastEvicted;
    }

    /** Held contributions (tests). */
    public int heldContributions() {
        int n = 0;
        for (ChunkState c : chunks.values()) {
            for (GradientChunk[] byRank : c.held.values()) {
                for (GradientChunk g : byRank) {
                    n += g == null ? 0 : 1;
                }
            }
        }
        return n;
    }

    /** The steps whose sum this reducer holds for {@code chunk}, ascending (tests). */
    public List<Long> completedSteps(int chunk) {
        ChunkState c = chunks.get(chunk);
        return c == null ? List.of() : new ArrayList<>(c.sums.keySet());
    }

    /** Whether every chunk of this subtask's share of {@code step} is summed. */
    private boolean stepComplete(long step, int numChunks) {
        int share = numChunks <= index ? 0 : (numChunks - 1 - index) / subtasks + 1;
        return completedPerStep.getOrDefault(step, 0) >= share;
    }

    /** {@code v0 + v1 + ... + v(T-1)} accumulated left to right in float, from rank 0's copy. */
    private static ReducedChunk sumInRankOrder(GradientChunk[] byRank) {
        float[] values = byRank[0].values.clone();
        int seeds = byRank[0].seeds;
        long valCorrect = byRank[0].valCorrect;
        long valTotal = byRank[0].valTotal;
        for (int r = 1; r < byRank.length; r++) {
            float[] v = byRank[r].values;
            for (int i = 0; i < values.length; i++) {
                values[i] += v[i];
            }
            seeds += byRank[r].seeds;
            valCorrect += byRank[r].valCorrect;
            valTotal += byRank[r].valTotal;
        }
        GradientChunk first = byRank[0];
        ReducedChunk sum =
                new ReducedChunk(first.step, first.chunk, first.numChunks, seeds, values);
        sum.valCorrect = valCorrect;
        sum.valTotal = valTotal;
        return sum;
    }

    private static void validate(GradientChunk g) {
        if (g.rank < 0) {
            throw new IllegalStateException("gradient contribution " + g + " from rank " + g.rank);
        }
        if (g.chunk < 0 || g.chunk >= g.numChunks) {
            throw new IllegalStateException(
                    "gradient contribution "
                            + g
                            + " has chunk "
                            + g.chunk
                            + " outside 0.."
                            + (g.numChunks - 1));
        }
        if (g.values == null) {
            throw new IllegalStateException("gradient contribution " + g + " has no values");
        }
    }

    /**
     * Refuses {@code g} if it names another device kind than {@code known}, the first held
     * contribution of its (step, chunk) that names one; a null kind (unknown) is never compared.
     */
    private static void checkDevice(GradientChunk g, GradientChunk known) {
        if (g.device == null || known == null || g.device.equals(known.device)) {
            return;
        }
        if (known.rank < g.rank) {
            throw new MixedDevicesException(known.rank, known.device, g.rank, g.device);
        }
        throw new MixedDevicesException(g.rank, g.device, known.rank, known.device);
    }

    private static void checkLength(GradientChunk g, int expected, String what) {
        if (g.values.length != expected) {
            throw new IllegalStateException(
                    "gradient contribution "
                            + g
                            + " has "
                            + g.values.length
                            + " values but "
                            + what
                            + " for the same step and chunk has "
                            + expected);
        }
    }

    private ChunkState chunk(int chunk) {
        return chunks.computeIfAbsent(chunk, c -> new ChunkState());
    }

    /** What the reducer holds for one chunk. */
    private final class ChunkState {
        final TreeMap<Long, GradientChunk[]> held = new TreeMap<>();

        /** The latest completed sum is always among these (eviction keeps retainedSteps). */
        final TreeMap<Long, ReducedChunk> sums = new TreeMap<>();

        /** No rank can still need {@code step}: a sum at least retainedSteps later is complete. */
        boolean isStale(long step) {
            return !sums.isEmpty() && sums.lastKey() - step >= retainedSteps;
        }
    }
}
