package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerState;
import io.gnnstream.state.records.Split;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The vertices the schedule knows per split, as the GraphStore announces them: each announcement
 * moves a vertex to its (new) split. Kept sorted in {@link SchedulerState} snapshots.
 */
final class SeedSets {

    private final Set<Long> train;
    private final Set<Long> val;
    private final Set<Long> test;
    private final Set<Long> others;

    private SeedSets(long[] train, long[] val, long[] test, long[] others) {
        this.train = toSet(train);
        this.val = toSet(val);
        this.test = toSet(test);
        this.others = toSet(others == null ? new long[0] : others);
    }

    static SeedSets load(SchedulerState s) {
        return new SeedSets(s.trainSeeds, s.valSeeds, s.testSeeds, s.otherSeeds);
    }

    void store(SchedulerState s) {
        s.trainSeeds = sorted(train);
        s.valSeeds = sorted(val);
        s.testSeeds = sorted(test);
        s.otherSeeds = sorted(others);
    }

    /** Vertex {@code vertex} belongs to {@code split} now. */
    void assign(long vertex, Split split) {
        remove(vertex);
        switch (split) {
            case TRAIN -> train.add(vertex);
            case VAL -> val.add(vertex);
            case TEST -> test.add(vertex);
            default -> others.add(vertex);
        }
    }

    /** Vertex {@code vertex} was deleted: it belongs to no split. */
    void remove(long vertex) {
        train.remove(vertex);
        val.remove(vertex);
        test.remove(vertex);
        others.remove(vertex);
    }

    boolean isTrain(long vertex) {
        return train.contains(vertex);
    }

    int trainCount() {
        return train.size();
    }

    long[] train() {
        return sorted(train);
    }

    long[] val() {
        return sorted(val);
    }

    long[] test() {
        return sorted(test);
    }

    /** Training and unsplit vertices: those an evaluation round predicts after val and test. */
    long[] rest() {
        Set<Long> rest = new HashSet<>(others);
        rest.addAll(train);
        return sorted(rest);
    }

    static long[] sorted(Set<Long> set) {
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
