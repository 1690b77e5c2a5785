package io.gnnstream.tools.formats;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.Arrays;

/**
 * The seeded per-class split of Shchur et al.'s protocol, for data sets without one: for each class
 * k = 0, 1, … in order, the ids of class k (ascending) are permuted by one {@code
 * numpy.random.RandomState(seed)} ({@link NumpyRandom}, one {@code permutation} call per class);
 * the first {@code train} go to train, the next {@code val} to val, the rest to test. Unlabelled
 * nodes are in no split.
 */
final class PerClassSplit {

    private PerClassSplit() {}

    static Split[] assign(int[] labels, long seed, int train, int val) {
        Split[] splits = new Split[labels.length];
        Arrays.fill(splits, Split.NONE);
        int classes = 0;
        for (int l : labels) {
            classes = Math.max(classes, l + 1);
        }
        NumpyRandom random = new NumpyRandom(seed);
        for (int k = 0; k < classes; k++) {
            final int c = k;
            int[] ids =
                    java.util.stream.IntStream.range(0, labels.length)
                            .filter(v -> labels[v] == c)
                            .toArray();
            int[] order = random.permutation(ids);
            for (int i = 0; i < order.length; i++) {
                splits[order[i]] =
                        i < train ? Split.TRAIN : i < train + val ? Split.VAL : Split.TEST;
            }
        }
        for (int v = 0; v < labels.length; v++) {
            if (labels[v] == NodeUpdate.NO_LABEL) {
                splits[v] = Split.NONE;
            }
        }
        return splits;
    }
}
