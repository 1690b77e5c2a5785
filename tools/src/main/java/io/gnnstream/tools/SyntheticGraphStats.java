package io.gnnstream.tools;

import io.gnnstream.state.records.Split;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * What {@link SyntheticGraph#write} measured while writing, and the provenance {@code README.md}
 * rendered from it. The README holds no timestamps or paths, so a folder regenerated with the same
 * command is identical down to its README.
 */
public final class SyntheticGraphStats {

    private static final String README =
            """
            # Synthetic graph

            Written by gnnstream's synthetic generator (`SyntheticGraph` in the connectors module).
            The same command on the same Java version writes byte-identical files:

            ```
            %s --out <folder>
            ```

            ## Files

            | file | content |
            | --- | --- |
            | `edges.csv` | one directed edge per line, `src,dst`, no header; \
            grouped by destination in id order, sources ascending within a destination; \
            no self-loops, no duplicates; not symmetric |
            | `nodes.jsonl` | one JSON object per line, in id order: \
            `{"id":int,"label":int,"split":"train"\\|"val"\\|"test"\\|"none","features":[...]}`; \
            %d features with at most %d decimals |

            sha256: `edges.csv` %s,
            `nodes.jsonl` %s.

            ## Model

            - Labels: %d balanced classes, assigned by a keyed pseudo-random permutation of the ids.
            - In-degrees: power law with exponent %s, scaled to mean %s, capped at N-1.
            - Sources: from the destination's class with probability %.4f (homophily %s raised to
              make up for hubs larger than their class), otherwise from the other classes; uniform
              without replacement within each pool.
            - Features: class centroid (random direction, norm %s) plus standard Gaussian noise per
              feature.
            - Splits: a hash of the id; train %s, val %s, test %s, the rest `none`; every vertex has
              a label.

            ## Measured

            | quantity | value |
            | --- | --- |
            | vertices | %d |
            | edges (lines in `edges.csv`) | %d |
            | mean in-degree | %.3f |
            | max in-degree | %d (vertex %d) |
            | vertices without in-edges | %d |
            | edge homophily (same-label edges / edges) | %.4f |
            | splits | train %d, val %d, test %d, none %d |
            | file sizes | `nodes.jsonl` %d bytes, `edges.csv` %d bytes |

            In-degree histogram:

            | in-degree | vertices |
            | --- | --- |
            """;

    private final SyntheticGraphOptions options;
    private final double sameClassProbability;
    private final long edges;
    private final long sameClassEdges;
    private final int maxInDegree;
    private final int maxInDegreeVertex;
    private final long zeroInDegree;
    private final long[] degreeHistogram;
    private final Map<Split, Long> splitCounts;
    private final long nodesBytes;
    private final String nodesSha256;
    private final long edgesBytes;
    private final String edgesSha256;

    private SyntheticGraphStats(
            Counter c, long nodesBytes, String nodesSha256, long edgesBytes, String edgesSha256) {
        this.options = c.options;
        this.sameClassProbability = c.sameClassProbability;
        this.edges = c.edges;
        this.sameClassEdges = c.sameClassEdges;
        this.maxInDegree = c.maxInDegree;
        this.maxInDegreeVertex = c.maxInDegreeVertex;
        this.zeroInDegree = c.histogram[0];
        int buckets = c.histogram.length;
        while (buckets > 1 && c.histogram[buckets - 1] == 0) {
            buckets--;
        }
        this.degreeHistogram = Arrays.copyOf(c.histogram, buckets);
        this.splitCounts = Collections.unmodifiableMap(new EnumMap<>(c.splits));
        this.nodesBytes = nodesBytes;
        this.nodesSha256 = nodesSha256;
        this.edgesBytes = edgesBytes;
        this.edgesSha256 = edgesSha256;
    }

    public SyntheticGraphOptions options() {
        return options;
    }

    public long vertices() {
        return options.vertices();
    }

    public long edges() {
        return edges;
    }

    public double meanInDegree() {
        return (double) edges / options.vertices();
    }

    public int maxInDegree() {
        return maxInDegree;
    }

    /** The lowest-numbered vertex with the largest in-degree. */
    public int maxInDegreeVertex() {
        return maxInDegreeVertex;
    }

    public long zeroInDegreeVertices() {
        return zeroInDegree;
    }

    /** Fraction of edges whose endpoints have the same label. */
    public double homophily() {
        return edges == 0 ? 0 : (double) sameClassEdges / edges;
    }

    /**
     * Vertices per in-degree bucket: index 0 counts in-degree 0, index b > 0 counts [2^(b-1), 2^b).
     */
    public long[] inDegreeHistogram() {
        return degreeHistogram.clone();
    }

    /** Vertices per split, every split present (possibly with 0). */
    public Map<Split, Long> splitCounts() {
        return splitCounts;
    }

    public long nodesBytes() {
        return nodesBytes;
    }

    public long edgesBytes() {
        return edgesBytes;
    }

    public String nodesSha256() {
        return nodesSha256;
    }

    public String edgesSha256() {
        return edgesSha256;
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "%d vertices, %d edges (mean in-degree %.2f, max %d, %d without in-edges), "
                        + "homophily %.3f, splits %s",
                vertices(),
                edges,
                meanInDegree(),
                maxInDegree,
                zeroInDegree,
                homophily(),
                splitCounts);
    }

    /** The provenance README of the generated folder. */
    String readme() {
        StringBuilder histogram = new StringBuilder();
        for (int b = 0; b < degreeHistogram.length; b++) {
            long low = b == 0 ? 0 : 1L << (b - 1);
            long high = b == 0 ? 0 : (1L << b) - 1;
            histogram
                    .append("| ")
                    .append(low == high ? Long.toString(low) : low + "-" + high)
                    .append(" | ")
                    .append(degreeHistogram[b])
                    .append(" |\n");
        }
        return String.format(
                        Locale.ROOT,
                        README,
                        options.toCommandLine(),
                        options.features(),
                        options.featureDecimals(),
                        edgesSha256,
                        nodesSha256,
                        options.classes(),
                        number(options.degreeExponent()),
                        number(options.avgDegree()),
                        sameClassProbability,
                        number(options.homophily()),
                        number(options.classSeparation()),
                        number(options.trainFraction()),
                        number(options.valFraction()),
                        number(options.testFraction()),
                        vertices(),
                        edges,
                        meanInDegree(),
                        maxInDegree,
                        maxInDegreeVertex,
                        zeroInDegree,
                        homophily(),
                        splitCounts.get(Split.TRAIN),
                        splitCounts.get(Split.VAL),
                        splitCounts.get(Split.TEST),
                        splitCounts.get(Split.NONE),
                        nodesBytes,
                        edgesBytes)
                + histogram;
    }

    private static String number(double value) {
        return SyntheticGraphOptions.number(value);
    }

    /** Accumulates the statistics while vertices are written, in id order. */
    static final class Counter {
        private final SyntheticGraphOptions options;
        private final double sameClassProbability;
        private final long[] histogram = new long[33];
        private final Map<Split, Long> splits = new EnumMap<>(Split.class);
        private long edges;
        private long sameClassEdges;
        private int maxInDegree = -1;
        private int maxInDegreeVertex;

        Counter(SyntheticGraphOptions options, double sameClassProbability) {
            this.options = options;
            this.sameClassProbability = sameClassProbability;
            for (Split split : Split.values()) {
                splits.put(split, 0L);
            }
        }

        void vertex(int v, Split split, int inDegree, int sameClass) {
            splits.merge(split, 1L, Long::sum);
            edges += inDegree;
            sameClassEdges += sameClass;
            histogram[32 - Integer.numberOfLeadingZeros(inDegree)]++;
            if (inDegree > maxInDegree) {
                maxInDegree = inDegree;
                maxInDegreeVertex = v;
            }
        }

        SyntheticGraphStats finish(
                long nodesBytes, String nodesSha256, long edgesBytes, String edgesSha256) {
            return new SyntheticGraphStats(this, nodesBytes, nodesSha256, edgesBytes, edgesSha256);
        }
    }
}
