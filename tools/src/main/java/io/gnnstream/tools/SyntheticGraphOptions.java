package io.gnnstream.tools;

import java.util.Locale;

/**
 * Parameters of a {@link SyntheticGraph}, validated on {@link Builder#build()} with an {@link
 * IllegalArgumentException} that names the offending parameter. The defaults are public constants
 * so that the CLI's {@code --help} shows the same values the library uses.
 */
public final class SyntheticGraphOptions {

    /** Largest vertex count: ids and per-vertex arrays are Java ints. */
    public static final int MAX_VERTICES = 1 << 30;

    public static final double DEFAULT_HOMOPHILY = 0.8;

    /**
     * Typical of web, citation and social graphs (2 &lt; A &lt; 3), and heavy enough for 10^5-hubs
     * at N = 10^6.
     */
    public static final double DEFAULT_DEGREE_EXPONENT = 2.1;

    public static final long DEFAULT_SEED = 42L;
    public static final double DEFAULT_TRAIN_FRACTION = 0.1;
    public static final double DEFAULT_VAL_FRACTION = 0.1;
    public static final double DEFAULT_TEST_FRACTION = 0.2;

    /** Nearest-class-mean accuracy from features alone is about 0.65 at 10 classes, 0.92 at 2. */
    public static final double DEFAULT_CLASS_SEPARATION = 2.0;

    public static final int DEFAULT_FEATURE_DECIMALS = 3;

    private final int vertices;
    private final double avgDegree;
    private final int features;
    private final int classes;
    private final double homophily;
    private final double degreeExponent;
    private final long seed;
    private final double trainFraction;
    private final double valFraction;
    private final double testFraction;
    private final double classSeparation;
    private final int featureDecimals;

    private SyntheticGraphOptions(Builder b) {
        this.vertices = b.vertices;
        this.avgDegree = b.avgDegree;
        this.features = b.features;
        this.classes = b.classes;
        this.homophily = b.homophily;
        this.degreeExponent = b.degreeExponent;
        this.seed = b.seed;
        this.trainFraction = b.trainFraction;
        this.valFraction = b.valFraction;
        this.testFraction = b.testFraction;
        this.classSeparation = b.classSeparation;
        this.featureDecimals = b.featureDecimals;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Number of vertices N; ids are 0..N-1. */
    public int vertices() {
        return vertices;
    }

    /** Target mean in-degree D (= edges / vertices). */
    public double avgDegree() {
        return avgDegree;
    }

    /** Feature dimension F. */
    public int features() {
        return features;
    }

    /** Number of planted classes C. */
    public int classes() {
        return classes;
    }

    /** Expected fraction of edges whose endpoints share a class (edge homophily). */
    public double homophily() {
        return homophily;
    }

    /** Exponent A of the power-law tail of the in-degrees, P(k) ~ k^-A. */
    public double degreeExponent() {
        return degreeExponent;
    }

    public long seed() {
        return seed;
    }

    public double trainFraction() {
        return trainFraction;
    }

    public double valFraction() {
        return valFraction;
    }

    public double testFraction() {
        return testFraction;
    }

    /** Norm of every class centroid in units of the per-feature noise standard deviation. */
    public double classSeparation() {
        return classSeparation;
    }

    /** Decimal places written per feature value. */
    public int featureDecimals() {
        return featureDecimals;
    }

    /**
     * The {@code gnnstream generate} arguments (without {@code --out}) that reproduce these
     * options.
     */
    public String toCommandLine() {
        return "gnnstream generate --vertices "
                + vertices
                + " --avg-degree "
                + number(avgDegree)
                + " --features "
                + features
                + " --classes "
                + classes
                + " --homophily "
                + number(homophily)
                + " --degree-exponent "
                + number(degreeExponent)
                + " --seed "
                + seed
                + " --train-fraction "
                + number(trainFraction)
                + " --val-fraction "
                + number(valFraction)
                + " --test-fraction "
                + number(testFraction)
                + " --class-separation "
                + number(classSeparation)
                + " --feature-decimals "
                + featureDecimals;
    }

    @Override
    public String toString() {
        return toCommandLine();
    }

    /** A parameter value as typed on a command line: {@code 10}, {@code 0.8}, {@code 1.0e-4}. */
    static String number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value).toLowerCase(Locale.ROOT);
    }

    /** Collects parameters; vertices, average degree, features and classes have no default. */
    public static final class Builder {
        private int vertices;
        private double avgDegree;
        private int features;
        private int classes;
        private double homophily = DEFAULT_HOMOPHILY;
        private double degreeExponent = DEFAULT_DEGREE_EXPONENT;
        private long seed = DEFAULT_SEED;
        private double trainFraction = DEFAULT_TRAIN_FRACTION;
        private double valFraction = DEFAULT_VAL_FRACTION;
        private double testFraction = DEFAULT_TEST_FRACTION;
        private double classSeparation = DEFAULT_CLASS_SEPARATION;
        private int featureDecimals = DEFAULT_FEATURE_DECIMALS;

        private Builder() {}

        public Builder vertices(int n) {
            this.vertices = n;
            return this;
        }

        public Builder avgDegree(double d) {
            this.avgDegree = d;
            return this;
        }

        public Builder features(int f) {
            this.features = f;
            return this;
        }

        public Builder classes(int c) {
            this.classes = c;
            return this;
        }

        public Builder homophily(double h) {
            this.homophily = h;
            return this;
        }

        public Builder degreeExponent(double a) {
            this.degreeExponent = a;
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Fractions of vertices in the train, val and test splits; the rest is {@code none}. */
        public Builder splits(double train, double val, double test) {
            this.trainFraction = train;
            this.valFraction = val;
            this.testFraction = test;
            return this;
        }

        public Builder classSeparation(double s) {
            this.classSeparation = s;
            return this;
        }

        public Builder featureDecimals(int d) {
            this.featureDecimals = d;
            return this;
        }

        public SyntheticGraphOptions build() {
            if (vertices < 2 || vertices > MAX_VERTICES) {
                throw new IllegalArgumentException(
                        "vertices must be between 2 and " + MAX_VERTICES + ", got " + vertices);
            }
            if (!(avgDegree > 0 && avgDegree < vertices - 1)) {
                throw new IllegalArgumentException(
                        "avg-degree must be positive and below vertices - 1 = "
                                + (vertices - 1)
                                + " (no self-loops or duplicate edges), got "
                                + avgDegree);
            }
            if (features < 1) {
                throw new IllegalArgumentException("features must be positive, got " + features);
            }
            if (classes < 2 || classes > vertices) {
                throw new IllegalArgumentException(
                        "classes must be between 2 and the number of vertices ("
                                + vertices
                                + "), got "
                                + classes);
            }
            if (!(homophily >= 0 && homophily <= 1)) {
                throw new IllegalArgumentException("homophily must be in [0, 1], got " + homophily);
            }
            if (!(degreeExponent > 2 && Double.isFinite(degreeExponent))) {
                throw new IllegalArgumentException(
                        "degree-exponent must be greater than 2 (a power law with a finite "
                                + "mean), got "
                                + degreeExponent);
            }
            fraction("train-fraction", trainFraction);
            fraction("val-fraction", valFraction);
            fraction("test-fraction", testFraction);
            if (trainFraction + valFraction + testFraction > 1 + 1e-9) {
                throw new IllegalArgumentException(
                        "train, val and test fractions must sum to at most 1, got "
                                + (trainFraction + valFraction + testFraction));
            }
            if (!(classSeparation >= 0 && Double.isFinite(classSeparation))) {
                throw new IllegalArgumentException(
                        "class-separation must be non-negative, got " + classSeparation);
            }
            if (featureDecimals < 0 || featureDecimals > 9) {
                throw new IllegalArgumentException(
                        "feature-decimals must be between 0 and 9, got " + featureDecimals);
            }
            return new SyntheticGraphOptions(this);
        }

        private static void fraction(String name, double value) {
            if (!(value >= 0 && value <= 1)) {
                throw new IllegalArgumentException(name + " must be in [0, 1], got " + value);
            }
        }
    }
}
