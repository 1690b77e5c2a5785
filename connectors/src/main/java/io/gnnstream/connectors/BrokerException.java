package io.gnnstream.connectors;

import java.io.IOException;

/**
 * A Kafka broker could not be started, reached or administered, or records could not be written to
 * it. Checked, because callers (CLI, tests) must report it to the user rather than crash.
 */
public class BrokerException extends IOException {

    private static final long serialVersionUID = 1L;

    public BrokerException(String message) {
        super(message);
    }

    public BrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
