package io.gnnstream.connectors;

/**
 * A record that a {@link RecordFormat} cannot accept. The message is the human-readable reason that
 * ends up in the dead-letter topic, so it names the field and the offending value.
 */
public class InvalidRecordException extends Exception {

    private static final long serialVersionUID = 1L;

    public InvalidRecordException(String reason) {
        super(reason);
    }
}
