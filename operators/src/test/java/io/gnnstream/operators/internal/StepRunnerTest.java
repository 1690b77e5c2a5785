package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailboxImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Steps off the task thread, outcomes back through a real Flink task mailbox. */
@Timeout(30)
class StepRunnerTest {

    private final TaskMailbox mailbox = new TaskMailboxImpl(Thread.currentThread());
    private final List<String> delivered = new ArrayList<>();
    private final List<Thread> deliveredOn = new ArrayList<>();

    private StepRunner<String> runner() {
        return new StepRunner<>(
                "test-steps",
                new MailboxExecutorImpl(mailbox, 0, StreamTaskActionExecutor.IMMEDIATE),
                outcome -> {
                    delivered.add(outcome);
                    deliveredOn.add(Thread.currentThread());
                });
    }

    @Test
    void runsTheStepOnItsOwnThreadAndDeliversOnTheMailboxThread() throws Exception {
        try (StepRunner<String> steps = runner()) {
            Thread[] stepThread = new Thread[1];
            steps.submit(
                    () -> {
                        stepThread[0] = Thread.currentThread();
                        return "a";
                    });
            assertTrue(steps.busy());
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
            assertFalse(steps.busy());
            assertEquals(List.of("a"), delivered);
            assertEquals(Thread.currentThread(), deliveredOn.get(0));
            assertNotEquals(Thread.currentThread(), stepThread[0]);
        }
    }

    @Test
    void awaitDeliversOnceAndTheLaterMailIsANoOp() throws Exception {
        try (StepRunner<String> steps = runner()) {
            CountDownLatch release = new CountDownLatch(1);
            steps.submit(
                    () -> {
                        release.await();
                        return "a";
                    });
            release.countDown();
            steps.await();
            assertEquals(List.of("a"), delivered);
            steps.submit(() -> "b");
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
            mailbox.take(TaskMailbox.MIN_PRIORITY).run();
            assertEquals(
                    List.of("a", "b"), delivered, "the first step's mail delivered nothing twice");
        }
    }

    @Test
    void aFailedStepFailsOnTheTaskThread() throws Exception {
        try (StepRunner<String> steps = runner()) {
            steps.submit(
                    () -> {
                        throw new IllegalStateException("diverged");
                    });
            IllegalStateException e = assertThrows(IllegalStateException.class, steps::await);
            assertEquals("diverged", e.getMessage());
            assertTrue(delivered.isEmpty());
        }
    }

    @Test
    void oneStepAtATime() throws Exception {
        try (StepRunner<String> steps = runner()) {
            steps.submit(() -> "a");
            assertThrows(IllegalStateException.class, () -> steps.submit(() -> "b"));
            steps.await();
        }
    }
}
