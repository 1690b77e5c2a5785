package io.gnnstream.jobs.testing;

import io.gnnstream.connectors.RawRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * A bounded source of the lines of text files, as the Kafka sources would deliver them (one {@link
 * RawRecord} per line, the line number as its offset), so the job's topology runs without a broker.
 * The files are read when a reader opens, not shipped with the job graph.
 */
public final class FileLinesSource {

    private FileLinesSource() {}

    /**
     * The lines of {@code files} in turn, then {@code extra} lines, under the topic name {@code
     * topic}.
     */
    public static DataGeneratorSource<RawRecord> of(
            String topic, List<Path> files, List<String> extra) throws IOException {
        long count = extra.size();
        List<String> paths = new ArrayList<>();
        for (Path file : files) {
            try (var lines = Files.lines(file)) {
                count += lines.count();
            }
            paths.add(file.toAbsolutePath().toString());
        }
        return new DataGeneratorSource<>(
                new Lines(topic, paths, new ArrayList<>(extra)),
                count,
                TypeInformation.of(RawRecord.class));
    }

    private static final class Lines implements GeneratorFunction<Long, RawRecord> {
        private final String topic;
        private final List<String> paths;
        private final List<String> extra;
        private transient List<String> lines;

        Lines(String topic, List<String> paths, List<String> extra) {
            this.topic = topic;
            this.paths = paths;
            this.extra = extra;
        }

        @Override
        public void open(SourceReaderContext context) {
            lines = new ArrayList<>();
            try {
                for (String path : paths) {
                    lines.addAll(Files.readAllLines(Path.of(path)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            lines.addAll(extra);
        }

        @Override
        public RawRecord map(Long index) {
            return new RawRecord(topic, 0, index, lines.get(index.intValue()));
        }
    }
}
