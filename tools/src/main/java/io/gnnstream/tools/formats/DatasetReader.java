package io.gnnstream.tools.formats;

import java.io.IOException;

/**
 * One dataset folder in one format, read as the project's own lines: node lines in the nodes
 * topic's JSON format ({@code {"id":…,"label":…,"split":…,"features":[…]}}) and edge lines {@code
 * src,dst}. Each call reads the source again from the start, streaming where the format allows, so
 * a reader can be asked for its nodes and edges more than once.
 */
public interface DatasetReader {

    /** The format this reader reads. */
    DatasetFormat format();

    /** Where the node lines come from, for messages ("dir/nodes.jsonl", "dir (ogb) node"). */
    String nodesSource();

    /** Where the edge lines come from, for messages. */
    String edgesSource();

    /** Sends every node line, in node order; blank lines may be among them. */
    void nodes(LineSink sink) throws IOException;

    /** Sends every edge line; blank lines may be among them. */
    void edges(LineSink sink) throws IOException;
}
