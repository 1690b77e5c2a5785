package io.gnnstream.tools;

import io.gnnstream.state.records.Split;
import io.gnnstream.tools.internal.AsciiWriter;
import io.gnnstream.tools.internal.FeistelPermutation;
import io.gnnstream.tools.internal.InNeighbourSampler;
import io.gnnstream.tools.internal.SplitMix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A synthetic, learnable and realistic graph, written as a dataset folder ({@code nodes.jsonl} +
 * {@code edges.csv}, the format of {@code data/cora}) one vertex at a time, so that memory is O(N)
 * small arrays (one float per vertex plus buffers of the largest in-degree) and never per edge.
 *
 * <ul>
 *   <li><b>Classes</b>: vertex {@code v} has class {@code π(v) mod C} for a keyed pseudo-random
 *       permutation π with an O(1) inverse; classes are balanced, look random in the ids, and the
 *       k-th vertex of class c is {@code π⁻¹(c + kC)}, so drawing from a class needs no lists.
 *   <li><b>In-degrees</b>: Pareto weights with tail exponent A, scaled (by bisection on the drawn
 *       weights, not the distribution's mean, which a heavy tail makes a poor guide) so that the
 *       capped mean is D, then stochastically rounded and capped at N-1: a discrete power law whose
 *       largest hubs reach about {@code N^(1/(A-1))} times the smallest in-degree.
 *   <li><b>Sources</b>: each in-edge of a destination comes from its own class with probability q
 *       and from the other classes otherwise; the sources of one destination are a uniform subset
 *       of each pool (no self-loops, no duplicates). A hub larger than its class must take the
 *       surplus from other classes, so q is set a little above H (solved once, over the hubs) to
 *       keep the expected edge homophily of the whole graph at H.
 *   <li><b>Features</b>: class centroid (a random direction of norm {@code classSeparation}) plus
 *       standard Gaussian noise per feature, so features alone are informative but imperfect and
 *       averaging same-class neighbours helps, which is what a GNN should exploit.
 *   <li><b>Splits</b>: a hash of the id against the train/val/test fractions; every vertex is
 *       labelled.
 * </ul>
 *
 * <p>Every random value is derived from (seed, purpose, vertex), so the output depends only on the
 * options (and the Java version, whose Gaussian sampler it uses), never on the order of work.
 */
public final class SyntheticGraph {

    private static final long CLASS_STREAM = 1;
    private static final long DEGREE_STREAM = 2;
    private static final long ROUNDING_STREAM = 3;
    private static final long SPLIT_STREAM = 4;
    private static final long EDGE_STREAM = 5;
    private static final long FEATURE_STREAM = 6;
    private static final long CENTROID_STREAM = 7;

    private static final int PROGRESS_EVERY = 4096;
    private static final String PARTIAL = ".partial";

    private final SyntheticGraphOptions options;
    private final int n;
    private final int numClasses;
    private final FeistelPermutation classOrder;
    private final float[] degreeWeights;
    private final double degreeScale;
    private final double sameClassProbability;
    private final double[][] centroids;
    private final long degreeKey;
    private final long roundingKey;
    private final long splitKey;
    private final long edgeKey;
    private final long featureKey;
    private boolean progress = true;
    private boolean overwrite;

    /**
     * Draws the degree weights and class centroids (O(N) time and memory); nothing is written yet.
     */
    public SyntheticGraph(SyntheticGraphOptions options) {
        this.options = options;
        this.n = options.vertices();
        this.numClasses = options.classes();
        this.classOrder = new FeistelPermutation(n, key(CLASS_STREAM));
        this.degreeKey = key(DEGREE_STREAM);
        this.roundingKey = key(ROUNDING_STREAM);
        this.splitKey = key(SPLIT_STREAM);
        this.edgeKey = key(EDGE_STREAM);
        this.featureKey = key(FEATURE_STREAM);
        this.degreeWeights = new float[n];
        double exponent = -1.0 / (options.degreeExponent() - 1);
        for (int v = 0; v < n; v++) {
            degreeWeights[v] = (float) Math.pow(1 - SplitMix.unit(degreeKey + v), exponent);
        }
        this.degreeScale = scaleToMean(degreeWeights, options.avgDegree() * n, n - 1);
        this.sameClassProbability = solveSameClassProbability();
        this.centroids = new double[numClasses][];
        for (int c = 0; c < numClasses; c++) {
            centroids[c] =
                    centroid(
                            random(key(CENTROID_STREAM), c),
                            options.features(),
                            options.classSeparation());
        }
    }

    /** Whether {@link #write} draws a progress bar on stderr (default true). */
    public SyntheticGraph progress(boolean show) {
        this.progress = show;
        return this;
    }

    /** Whether {@link #write} may replace an existing dataset in its folder (default false). */
    public SyntheticGraph overwrite(boolean allow) {
        this.overwrite = allow;
        return this;
    }

    public SyntheticGraphOptions options() {
        return options;
    }

    /** The planted class of vertex {@code v}. */
    public int label(int v) {
        return (int) (classOrder.apply(v) % numClasses);
    }

    /**
     * The split of vertex {@code v}, from a hash of its id, independent of its class and degree.
     */
    public Split split(int v) {
        double u = SplitMix.unit(splitKey + v);
        double train = options.trainFraction();
        double val = train + options.valFraction();
        if (u < train) {
            return Split.TRAIN;
        }
        if (u < val) {
            return Split.VAL;
        }
        return u < val + options.testFraction() ? Split.TEST : Split.NONE;
    }

    /** Number of in-edges of vertex {@code v}, i.e. of lines {@code *,v} in {@code edges.csv}. */
    public int inDegree(int v) {
        double rounded =
                Math.floor(degreeScale * degreeWeights[v] + SplitMix.unit(roundingKey + v));
        return (int) Math.min(n - 1, rounded);
    }

    /**
     * Probability q that an in-edge comes from the destination's class (H, raised to make up for
     * hubs).
     */
    public double sameClassProbability() {
        return sameClassProbability;
    }

    /**
     * Writes {@code nodes.jsonl}, {@code edges.csv} and a provenance {@code README.md} into {@code
     * dir}, creating it. The data files appear only once complete (written as {@code *.partial},
     * then renamed); I/O failures are {@link DatasetException}s naming the folder.
     */
    public SyntheticGraphStats write(Path dir) throws DatasetException {
        try {
            return writeFiles(dir);
        } catch (DatasetException e) {
            throw e;
        } catch (IOException e) {
            throw new DatasetException("cannot write dataset folder " + dir + ": " + e, e);
        }
    }

    private SyntheticGraphStats writeFiles(Path dir) throws IOException {
        Path nodesFile = dir.resolve(DatasetInfo.NODES_FILE);
        Path edgesFile = dir.resolve(DatasetInfo.EDGES_FILE);
        Path readme = dir.resolve("README.md");
        prepare(dir, nodesFile, edgesFile, readme);
        Path nodesPartial = dir.resolve(DatasetInfo.NODES_FILE + PARTIAL);
        Path edgesPartial = dir.resolve(DatasetInfo.EDGES_FILE + PARTIAL);
        SyntheticGraphStats.Counter counter =
                new SyntheticGraphStats.Counter(options, sameClassProbability);
        AsciiWriter nodes = null;
        AsciiWriter edges = null;
        boolean complete = false;
        try (ProgressBar bar = progress ? progressBar() : null) {
            nodes = new AsciiWriter(nodesPartial);
            edges = new AsciiWriter(edgesPartial);
            InNeighbourSampler neighbours = new InNeighbourSampler(classOrder, numClasses);
            for (int v = 0; v < n; v++) {
                long position = classOrder.apply(v);
                Split split = split(v);
                writeNode(nodes, v, (int) (position % numClasses), split);
                int degree = inDegree(v);
                int sameClass =
                        neighbours.draw(random(edgeKey, v), position, degree, sameClassProbability);
                writeEdges(edges, v, neighbours.sources(), degree);
                counter.vertex(v, split, degree, sameClass);
                if (bar != null && (v + 1) % PROGRESS_EVERY == 0) {
                    bar.stepTo(v + 1);
                }
            }
            nodes.close();
            edges.close();
            if (bar != null) {
                bar.stepTo(n);
            }
            Files.move(nodesPartial, nodesFile, StandardCopyOption.REPLACE_EXISTING);
            Files.move(edgesPartial, edgesFile, StandardCopyOption.REPLACE_EXISTING);
            complete = true;
        } finally {
            if (!complete) {
                closeQuietly(nodes);
                closeQuietly(edges);
                Files.deleteIfExists(nodesPartial);
                Files.deleteIfExists(edgesPartial);
            }
        }
        SyntheticGraphStats stats =
                counter.finish(
                        nodes.bytesWritten(), nodes.sha256(), edges.bytesWritten(), edges.sha256());
        Files.writeString(readme, stats.readme(), StandardCharsets.UTF_8);
        return stats;
    }

    private void prepare(Path dir, Path... outputs) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("output " + dir + " exists and is not a folder");
        }
        if (!overwrite) {
            for (Path file : outputs) {
                if (Files.exists(file)) {
                    throw new IllegalArgumentException(
                            "output folder "
                                    + dir
                                    + " already has "
                                    + file.getFileName()
                                    + "; choose another folder or allow overwriting (--overwrite)");
                }
            }
        }
        Files.createDirectories(dir);
    }

    private void writeNode(AsciiWriter out, int v, int label, Split split) throws IOException {
        out.append("{\"id\":")
                .append(v)
                .append(",\"label\":")
                .append(label)
                .append(",\"split\":\"")
                .append(split.wireName())
                .append("\",\"features\":[");
        SplittableRandom rng = random(featureKey, v);
        double[] centroid = centroids[label];
        int decimals = options.featureDecimals();
        for (int j = 0; j < centroid.length; j++) {
            if (j > 0) {
                out.append(',');
            }
            out.appendFixed(centroid[j] + rng.nextGaussian(), decimals);
        }
        out.append("]}\n");
    }

    private static void writeEdges(AsciiWriter out, int dst, int[] sources, int degree)
            throws IOException {
        for (int i = 0; i < degree; i++) {
            out.append(sources[i]).append(',').append(dst).append('\n');
        }
    }

    /**
     * The q for which the expected same-class edges, sum over v of clamp(q * d, d - otherPool,
     * samePool), equal H times the edges. Only vertices with in-degree of at least N/C can hit a
     * pool limit, so the sum is linear in q over all others and the hubs are listed explicitly.
     */
    private double solveSameClassProbability() {
        long lightEdges = 0;
        long edges = 0;
        Hubs hubs = new Hubs();
        for (int v = 0; v < n; v++) {
            int d = inDegree(v);
            edges += d;
            if (d < n / numClasses) {
                lightEdges += d;
            } else {
                int classSize = InNeighbourSampler.classSize(n, numClasses, label(v));
                hubs.add(d, classSize - 1, n - classSize);
            }
        }
        double target = options.homophily() * edges;
        if (lightEdges + hubs.expectedSameClass(1) <= target) {
            return 1;
        }
        double lo = 0;
        double hi = 1;
        for (int i = 0; i < 60; i++) {
            double mid = (lo + hi) / 2;
            if (mid * lightEdges + hubs.expectedSameClass(mid) < target) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    /** In-degrees and candidate pool sizes of the vertices whose in-degree can exhaust a pool. */
    private static final class Hubs {
        private int[] degree = new int[16];
        private int[] samePool = new int[16];
        private int[] otherPool = new int[16];
        private int count;

        void add(int d, int same, int other) {
            if (count == degree.length) {
                degree = Arrays.copyOf(degree, 2 * count);
                samePool = Arrays.copyOf(samePool, 2 * count);
                otherPool = Arrays.copyOf(otherPool, 2 * count);
            }
            degree[count] = d;
            samePool[count] = same;
            otherPool[count++] = other;
        }

        double expectedSameClass(double q) {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                double forced = Math.max(0, degree[i] - otherPool[i]);
                sum += Math.max(forced, Math.min(q * degree[i], samePool[i]));
            }
            return sum;
        }
    }

    /**
     * The scale s with sum over v of min(cap, s * w[v]) = target; stochastic rounding keeps that
     * mean.
     */
    private static double scaleToMean(float[] weights, double target, double cap) {
        double lo = 0;
        double hi = 1;
        while (cappedSum(weights, hi, cap) < target) {
            lo = hi;
            hi *= 2;
        }
        while (hi - lo > 1e-12 * hi) {
            double mid = (lo + hi) / 2;
            if (cappedSum(weights, mid, cap) < target) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    private static double cappedSum(float[] weights, double scale, double cap) {
        double sum = 0;
        for (float w : weights) {
            sum += Math.min(cap, scale * w);
        }
        return sum;
    }

    private static double[] centroid(SplittableRandom rng, int dim, double norm) {
        double[] c = new double[dim];
        double squares = 0;
        for (int j = 0; j < dim; j++) {
            c[j] = rng.nextGaussian();
            squares += c[j] * c[j];
        }
        double scale = squares > 0 ? norm / Math.sqrt(squares) : 0;
        for (int j = 0; j < dim; j++) {
            c[j] *= scale;
        }
        return c;
    }

    private long key(long stream) {
        return SplitMix.mix64(SplitMix.mix64(options.seed()) + stream);
    }

    private static SplittableRandom random(long key, long index) {
        return new SplittableRandom(SplitMix.mix64(key + index));
    }

    private ProgressBar progressBar() {
        return new ProgressBarBuilder()
                .setTaskName("generate")
                .setInitialMax(n)
                .setUnit(" vertices", 1)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .showSpeed()
                .build();
    }

    private static void closeQuietly(AsciiWriter writer) {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                // The original failure is the one worth reporting; the partial file is deleted
                // next.
            }
        }
    }
}
