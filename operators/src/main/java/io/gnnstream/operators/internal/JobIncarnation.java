package io.gnnstream.operators.internal;

import io.gnnstream.state.Mix;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * A number for the incarnation of the job a task runs in: its job id and the task's attempt. A
 * failover restarts every task of the job (its operators are all connected, one failover region),
 * so the tasks of one incarnation share it and a restore gives a new one; a job resumed from a
 * savepoint has another id.
 */
public final class JobIncarnation {

    private JobIncarnation() {}

    /** The incarnation of the task of {@code context}. */
    public static long of(RuntimeContext context) {
        JobID job = context.getJobInfo().getJobId();
        return of(job.getUpperPart(), job.getLowerPart(), context.getTaskInfo().getAttemptNumber());
    }

    /** The incarnation of attempt {@code attempt} of the job with id {@code upper, lower}. */
    public static long of(long upper, long lower, int attempt) {
        return Mix.seed(upper, lower, attempt);
    }
}
