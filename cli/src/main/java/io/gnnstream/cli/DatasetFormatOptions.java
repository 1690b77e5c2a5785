package io.gnnstream.cli;

import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.FormatOptions;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * How {@code --dataset} is read, for every command that takes one ({@code load}, {@code demo},
 * {@code partition}, {@code predict}, {@code bench}): a {@code @Mixin}.
 */
public final class DatasetFormatOptions {

    @Option(
            names = "--format",
            paramLabel = "auto|gnnstream|ogb|planetoid|npz|dgl-csv",
            defaultValue = "auto",
            converter = FormatConverter.class,
            description =
                    "Layout of --dataset: gnnstream (nodes.jsonl + edges.csv), ogb (raw/*.csv.gz"
                            + " + split/<name>/), planetoid (ind.<name>.*), npz (one gnn-benchmark"
                            + " .npz), dgl-csv (meta.yaml + CSV files); auto detects it from the"
                            + " folder's files (default: ${DEFAULT-VALUE}).")
    DatasetFormat format = DatasetFormat.AUTO;

    @Option(
            names = "--split-name",
            paramLabel = "NAME",
            description = "ogb: the folder under split/ to use (default: the only one).")
    String splitName;

    @Option(
            names = "--add-inverse-edges",
            description = "ogb: also read every edge row backwards (as OGB does for products).")
    boolean addInverseEdges;

    @Option(
            names = "--split-seed",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "npz: seed of the per-class split drawn for files without one (numpy"
                            + " RandomState; 20 train and 30 val per class, the rest test;"
                            + " default: ${DEFAULT-VALUE}).")
    long splitSeed;

    /** The options as the tools take them. */
    public FormatOptions toOptions() {
        return new FormatOptions(
                format,
                splitName,
                addInverseEdges,
                splitSeed,
                FormatOptions.DEFAULT_TRAIN_PER_CLASS,
                FormatOptions.DEFAULT_VAL_PER_CLASS);
    }

    /** Reads a format name in any case. */
    static final class FormatConverter implements ITypeConverter<DatasetFormat> {
        @Override
        public DatasetFormat convert(String value) {
            return DatasetFormat.parse(value);
        }
    }
}
