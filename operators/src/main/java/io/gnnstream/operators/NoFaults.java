package io.gnnstream.operators;

/** {@link FaultInjector#NONE}: checks nothing; one instance, also after deserialization. */
enum NoFaults implements FaultInjector {
    INSTANCE;

    @Override
    public void check(String operator, int subtask, long count) {}
}
