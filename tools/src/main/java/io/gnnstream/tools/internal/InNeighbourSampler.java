package io.gnnstream.tools.internal;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws the in-neighbours of one destination under planted classes {@code π(v) mod C}: the
 * same-class pool (the destination's class without itself) and the other-class pool are both
 * enumerated by position, so a uniform subset of either is a {@link DistinctSampler} draw mapped
 * through {@code π⁻¹}, with no per-class vertex lists. Buffers grow to the largest in-degree.
 */
public final class InNeighbourSampler {

    private final FeistelPermutation classOrder;
    private final int n;
    private final int numClasses;
    private final DistinctSampler sampler = new DistinctSampler();
    private int[] sources = new int[64];

    public InNeighbourSampler(FeistelPermutation classOrder, int numClasses) {
        this.classOrder = classOrder;
        this.n = (int) classOrder.size();
        this.numClasses = numClasses;
    }

    /** Vertices of class {@code c}: positions {@code c, c + C, ...} below N. */
    public static int classSize(int n, int numClasses, int c) {
        return (n - c + numClasses - 1) / numClasses;
    }

    /**
     * Draws {@code degree} distinct sources for the vertex at permutation position {@code
     * position}, each from its class with probability {@code sameClassProbability} (as far as the
     * pools allow); they are the first {@code degree} entries of {@link #sources()}, ascending.
     * Returns how many are in the destination's class.
     */
    public int draw(SplittableRandom rng, long position, int degree, double sameClassProbability) {
        int label = (int) (position % numClasses);
        long rank = position / numClasses;
        int sameClass = 0;
        for (int i = 0; i < degree; i++) {
            if (rng.nextDouble() < sameClassProbability) {
                sameClass++;
            }
        }
        int classSize = classSize(n, numClasses, label);
        int samePool = classSize - 1;
        int otherPool = n - classSize;
        sameClass = Math.max(Math.min(sameClass, samePool), degree - otherPool);
        int other = degree - sameClass;
        if (sources.length < degree) {
            sources = new int[Math.max(degree, 2 * sources.length)];
        }
        int[] picked = sampler.sample(rng, sameClass, samePool);
        for (int i = 0; i < sameClass; i++) {
            long sameRank = picked[i] < rank ? picked[i] : picked[i] + 1L;
            sources[i] = (int) classOrder.inverse(label + numClasses * sameRank);
        }
        picked = sampler.sample(rng, other, otherPool);
        int others = numClasses - 1;
        for (int i = 0; i < other; i++) {
            int residue = picked[i] % others;
            long otherPosition =
                    (long) (picked[i] / others) * numClasses
                            + (residue < label ? residue : residue + 1);
            sources[sameClass + i] = (int) classOrder.inverse(otherPosition);
        }
        Arrays.sort(sources, 0, degree);
        return sameClass;
    }

    /** The sources of the last {@link #draw}. */
    public int[] sources() {
        return sources;
    }
}
