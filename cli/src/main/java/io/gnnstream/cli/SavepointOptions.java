package io.gnnstream.cli;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The job's options kept next to a savepoint ({@value #FILE} in the savepoint's directory), through
 * Flink's file systems, so any savepoint URI the cluster can write works here as well.
 */
final class SavepointOptions {

    static final String FILE = "gnnstream-job.properties";

    private SavepointOptions() {}

    static void write(String savepoint, Map<String, String> options) throws IOException {
        Path file = new Path(savepoint, FILE);
        Properties p = new Properties();
        p.putAll(options);
        try (FSDataOutputStream out =
                        file.getFileSystem().create(file, FileSystem.WriteMode.OVERWRITE);
                Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            p.store(w, "options of the gnnstream training job this savepoint belongs to");
        }
    }

    /**
     * Throws {@link IllegalArgumentException} unless {@code savepoint} is a savepoint or retained
     * checkpoint directory (it holds {@code _metadata}) or its {@code _metadata} file.
     */
    static void requireSavepoint(String savepoint) throws IOException {
        Path path = new Path(savepoint);
        Path metadata = path.getName().equals("_metadata") ? path : new Path(path, "_metadata");
        if (!metadata.getFileSystem().exists(metadata)) {
            throw new IllegalArgumentException(
                    "--from-savepoint " + savepoint + " is not a savepoint (no " + metadata + ")");
        }
    }

    /** The options kept with the savepoint; empty when there are none. */
    static Map<String, String> read(String savepoint) throws IOException {
        Path file = new Path(savepoint, FILE);
        FileSystem fs = file.getFileSystem();
        if (!fs.exists(file)) {
            return Map.of();
        }
        Properties p = new Properties();
        try (FSDataInputStream in = fs.open(file);
                Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> options = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> options.put(k, p.getProperty(k)));
        return options;
    }
}
