package io.gnnstream.tools;

import java.io.IOException;

/** A dataset folder is missing, incomplete or malformed; the message names the file and line. */
public class DatasetException extends IOException {

    private static final long serialVersionUID = 1L;

    public DatasetException(String message) {
        super(message);
    }

    public DatasetException(String message, Throwable cause) {
        super(message, cause);
    }
}
