package io.gnnstream.tools.formats;

import java.io.IOException;

/** Receives the lines a {@link DatasetReader} produces, one call per line. */
@FunctionalInterface
public interface LineSink {

    /** Takes one line, without its line terminator. */
    void line(String line) throws IOException;
}
