package io.gnnstream.cluster;

import java.io.IOException;

/**
 * A cluster cannot be started, reached or told what to do; the message says why and what to check.
 */
public class ClusterException extends IOException {

    private static final long serialVersionUID = 1L;

    public ClusterException(String message) {
        super(message);
    }

    public ClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
