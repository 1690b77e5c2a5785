package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The decision on sequences of failures and progress, with causes read from stack traces. */
class FailureStreakTest {

    private static final String INJECTED =
            "io.gnnstream.operators.FaultInjector$InjectedFailure: trainer subtask 0 fails at"
                    + " event 3 (injected at every attempt)\n"
                    + "\tat io.gnnstream.operators.InjectedFaults.check(InjectedFaults.java:97)\n"
                    + "\tat io.gnnstream.operators.TrainerOperator.step(TrainerOperator.java:1)\n";

    private static FailureCause cause(String trace) {
        return FailureCause.of(null, trace);
    }

    private static FailureCause kafka(String host, int port) {
        return cause(
                "org.apache.kafka.common.KafkaException: Failed to construct kafka consumer\n"
                        + "\tat org.apache.kafka.clients.consumer.KafkaConsumer.<init>(x:1)\n"
                        + "Caused by: org.apache.kafka.common.errors.SaslAuthenticationException:"
                        + " Authentication failed during authentication due to invalid"
                        + " credentials with SASL mechanism SCRAM-SHA-512 at "
                        + host
                        + ":"
                        + port
                        + "\n"
                        + "\tat org.apache.kafka.common.security.X.y(X.java:"
                        + port
                        + ")\n"
                        + "\t... 12 more\n");
    }

    @Test
    void theSameCauseAtEveryRestoreEndsAtTheLimit() {
        FailureStreak streak = new FailureStreak(3);
        streak.failure(1_000, cause(INJECTED));
        streak.failure(5_000, cause(INJECTED));
        assertFalse(streak.exhausted());
        assertEquals(2, streak.length());
        streak.failure(12_000, cause(INJECTED));
        assertTrue(streak.exhausted());
        assertEquals(
                "InjectedFailure: trainer subtask 0 fails at event 3 (injected at every attempt)",
                streak.description());
    }

    @Test
    void numbersAddressesAndIdsDoNotMakeADifferentCause() {
        FailureStreak streak = new FailureStreak(3);
        streak.failure(1, kafka("10.77.0.5", 9092));
        streak.failure(2, kafka("10.77.0.6", 39411));
        streak.failure(3, kafka("10.77.0.5", 9093));
        assertTrue(streak.exhausted());
        assertEquals(
                "SaslAuthenticationException: Authentication failed during authentication due to"
                    + " invalid credentials with SASL mechanism SCRAM-SHA-512 at 10.77.0.5:9093",
                streak.description());
    }

    @Test
    void differentCausesKeepFlinksPatience() {
        FailureStreak streak = new FailureStreak(3);
        streak.failure(1, cause(INJECTED));
        streak.failure(2, cause(INJECTED));
        streak.failure(
                3, cause("java.lang.OutOfMemoryError: Java heap space\n\tat x.Y.z(Y.java:1)"));
        streak.failure(4, cause(INJECTED));
        streak.failure(5, cause(INJECTED));
        assertFalse(streak.exhausted());
        streak.failure(6, cause(INJECTED));
        assertTrue(streak.exhausted());
    }

    @Test
    void aCheckpointBetweenFailuresKeepsFlinksPatienceAlsoWhenLearntLate() {
        FailureStreak streak = new FailureStreak(3);
        streak.failure(1_000, cause(INJECTED));
        streak.failure(5_000, cause(INJECTED));
        streak.failure(12_000, cause(INJECTED));
        assertTrue(streak.exhausted());
        // The checkpoint completed between the second and the third failure.
        streak.progressAt(8_000);
        assertFalse(streak.exhausted());
        assertEquals(1, streak.length());
        streak.failure(20_000, cause(INJECTED));
        streak.failure(30_000, cause(INJECTED));
        assertTrue(streak.exhausted());
        // A checkpoint before the streak changes nothing.
        streak.progressAt(500);
        assertTrue(streak.exhausted());
    }

    @Test
    void aFailureFromBeforeKnownProgressDoesNotCount() {
        FailureStreak streak = new FailureStreak(2);
        streak.progressAt(10_000);
        streak.failure(9_000, cause(INJECTED));
        assertEquals(0, streak.length());
        streak.failure(11_000, cause(INJECTED));
        streak.failure(12_000, cause(INJECTED));
        assertTrue(streak.exhausted());
    }

    @Test
    void aTrainingStepFurtherThanBeforeClearsTheStreak() {
        FailureStreak streak = new FailureStreak(3);
        streak.failure(1, cause(INJECTED));
        streak.failure(2, cause(INJECTED));
        streak.progress();
        streak.failure(3, cause(INJECTED));
        streak.failure(4, cause(INJECTED));
        assertFalse(streak.exhausted());
        assertNull(new FailureStreak(3).description());
    }

    @Test
    void failuresOfTheEnvironmentNeverEndTheJob() {
        FailureStreak streak = new FailureStreak(2);
        FailureCause lost =
                cause(
                        "org.apache.flink.runtime.jobmaster.JobMasterException: TaskManager with"
                                + " id 10.77.0.3:40123-a1b2c3 is no longer reachable.\n"
                                + "\tat org.apache.flink.runtime.jobmaster.JobMaster.x(J.java:1)");
        FailureCause slots =
                cause(
                        "java.util.concurrent.CompletionException: x\n"
                                + "\tat a.b(C.java:1)\n"
                                + "Caused by: org.apache.flink.runtime.jobmanager.scheduler"
                                + ".NoResourceAvailableException: Could not acquire the minimum"
                                + " required resources.\n"
                                + "\tat a.b(C.java:1)");
        FailureCause partition =
                cause(
                        "org.apache.flink.runtime.io.network.netty.exception"
                                + ".RemoteTransportException: Connection unexpectedly closed by"
                                + " remote task manager '10.77.0.4/10.77.0.4:35111'.\n"
                                + "\tat a.b(C.java:1)");
        FailureCause kafkaTimeout =
                cause(
                        "org.apache.kafka.common.errors.TimeoutException: Timeout expired after"
                                + " 60000ms while awaiting InitProducerId\n");
        for (FailureCause c : new FailureCause[] {lost, slots, partition, kafkaTimeout}) {
            assertTrue(c.environmental(), c.toString());
            for (int i = 0; i < 5; i++) {
                streak.failure(i, c);
            }
            assertFalse(streak.exhausted(), c.toString());
        }
        streak.failure(10, cause(INJECTED));
        streak.failure(11, lost);
        streak.failure(12, cause(INJECTED));
        assertFalse(streak.exhausted());
    }

    @Test
    void zeroNeverEnds() {
        FailureStreak streak = new FailureStreak(0);
        for (int i = 0; i < 10; i++) {
            streak.failure(i, cause(INJECTED));
        }
        assertFalse(streak.exhausted());
    }

    @Test
    void theRootOfTheCauseChainIsTheCauseAndAMessageMaySpanLines() {
        FailureCause c =
                cause(
                        "org.apache.flink.runtime.JobException: Recovery is suppressed\n"
                                + "\tat a.b(C.java:1)\n"
                                + "\tSuppressed: java.io.IOException: not me\n"
                                + "\t\tat a.b(C.java:1)\n"
                                + "Caused by: java.lang.RuntimeException: wrapper\n"
                                + "\tat a.b(C.java:1)\n"
                                + "\t... 3 more\n"
                                + "Caused by: java.lang.IllegalStateException: line one\n"
                                + "line two\n"
                                + "\tat a.b(C.java:1)\n"
                                + "\t... 3 more\n");
        assertEquals("java.lang.IllegalStateException", c.className());
        assertEquals("line one\nline two", c.message());
        assertEquals("line one line two", c.description());
        assertFalse(c.environmental());
        assertEquals("Boom", FailureCause.of("a.b.Boom", null).description());
        assertEquals(
                "NullPointerException",
                FailureCause.of(new RuntimeException("x", new NullPointerException()))
                        .description());
    }
}
