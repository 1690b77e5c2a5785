package io.gnnstream.operators.assembly;

/**
 * Switches the current key of the keyed state that {@link AssemblerCore}'s state handles read and
 * write: the operator's keyed backend (where Flink has already set the record's or timer's key), or
 * an in-memory store in tests.
 */
@FunctionalInterface
public interface CurrentKey {

    /** Makes {@code batchId} the current key. */
    void set(long batchId);
}
