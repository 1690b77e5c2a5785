package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Line readers over plain or gzip ({@code .gz}) text files, and number parsing with file/line. */
final class TextFiles {

    private TextFiles() {}

    /** A reader of {@code file}, gunzipped when its name ends with {@code .gz}. */
    static BufferedReader open(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new DatasetException("missing file " + file);
        }
        InputStream in = Files.newInputStream(file);
        try {
            if (file.getFileName().toString().endsWith(".gz")) {
                in = new GZIPInputStream(in, 1 << 16);
            }
        } catch (IOException e) {
            in.close();
            throw new DatasetException("cannot read " + file + " as gzip: " + e.getMessage(), e);
        }
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }

    /** The lines of one file, counted; read failures become errors naming the file. */
    static final class Lines implements java.io.Closeable {
        final Path file;
        private final BufferedReader reader;
        long lineNo;

        Lines(Path file) throws IOException {
            this.file = file;
            this.reader = open(file);
        }

        /** The next line, or null at the end. */
        String next() throws DatasetException {
            try {
                String line = reader.readLine();
                if (line != null) {
                    lineNo++;
                }
                return line;
            } catch (IOException e) {
                throw new DatasetException(
                        "cannot read " + file + " after line " + lineNo + ": " + e.getMessage(), e);
            }
        }

        /** An error at the current line. */
        DatasetException error(String reason) {
            return TextFiles.error(file, lineNo, reason);
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }

    /** A non-negative integer, or an error naming the file and line. */
    static long parseId(String text, Path file, long lineNo) throws DatasetException {
        String t = text.trim();
        try {
            long v = Long.parseLong(t);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw error(file, lineNo, "expected a non-negative integer, got '" + t + "'");
    }

    /** A finite float, or an error naming the file and line. */
    static float parseFloat(String text, Path file, long lineNo) throws DatasetException {
        String t = text.trim();
        float v;
        try {
            v = Float.parseFloat(t);
        } catch (NumberFormatException e) {
            throw error(file, lineNo, "expected a number, got '" + t + "'");
        }
        if (!Float.isFinite(v)) {
            throw error(file, lineNo, "feature value '" + t + "' is not finite");
        }
        return v;
    }

    static DatasetException error(Path file, long lineNo, String reason) {
        return new DatasetException(file + " line " + lineNo + ": " + reason);
    }
}
