package io.gnnstream.jobs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.JobExceptionsHeaders;
import org.apache.flink.runtime.rest.messages.JobExceptionsInfoWithHistory;
import org.apache.flink.runtime.rest.messages.JobExceptionsInfoWithHistory.RootExceptionInfo;
import org.apache.flink.runtime.rest.messages.JobMessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobExceptionsMessageParameters;

/**
 * Follows a running job's failures and checkpoints through the REST endpoint of its cluster (a
 * local MiniCluster's or a standalone cluster's, its leader through ZooKeeper when highly
 * available) and feeds them to a {@link FailureStreak}: each entry of the exception history ({@code
 * /jobs/:id/exceptions}) as a failure at its time, each completed checkpoint ({@code
 * /jobs/:id/checkpoints}) as progress at its time. Requests run in the background; {@link #poll}
 * never blocks, and a request that fails (a cluster between leaders) is asked again.
 */
final class FailureWatch implements AutoCloseable {

    /** How often the exception history and the checkpoints are asked for. */
    private static final Duration INTERVAL = Duration.ofSeconds(1);

    /**
     * How long a streak must stay at its limit before it ends the job: longer than the REST
     * endpoint caches its views of the job ({@code web.refresh-interval}, 3 s by default), so that
     * a checkpoint completed before the last failure has been seen.
     */
    static final Duration SETTLE = Duration.ofSeconds(5);

    private final RestClusterClient<StandaloneClusterId> rest;
    private final JobID job;
    private final FailureStreak streak;
    private final int limit;
    private final Consumer<String> report;

    private CompletableFuture<JobExceptionsInfoWithHistory> exceptions;
    private CompletableFuture<CheckpointingStatistics> checkpoints;
    private long askedAt = System.nanoTime() - INTERVAL.toNanos();
    private long lastFailureAt = Long.MIN_VALUE;
    private long exhaustedSince = -1;

    private FailureWatch(
            RestClusterClient<StandaloneClusterId> rest,
            JobID job,
            int limit,
            Consumer<String> report) {
        this.rest = rest;
        this.job = job;
        this.limit = limit;
        this.streak = new FailureStreak(limit);
        this.report = report;
    }

    /**
     * A watch of {@code job} on the cluster that {@code client} (an execution environment's
     * configuration) submits to, ending it after {@code limit} failures in a row with one cause;
     * empty when {@code limit} is 0 or the configuration names no REST endpoint (a local
     * environment on a port of its choosing). {@code report} gets each failure in one line.
     */
    static Optional<FailureWatch> of(
            ReadableConfig client, JobID job, int limit, Consumer<String> report) {
        boolean highlyAvailable =
                !"NONE".equalsIgnoreCase(client.get(HighAvailabilityOptions.HA_MODE));
        if (limit == 0 || !(highlyAvailable || client.getOptional(RestOptions.PORT).isPresent())) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new FailureWatch(
                            new RestClusterClient<>(
                                    Configuration.fromMap(client.toMap()),
                                    StandaloneClusterId.getInstance()),
                            job,
                            limit,
                            report));
        } catch (Exception e) {
            report.accept("Note: failures are not followed (" + e + ")");
            return Optional.empty();
        }
    }

    /** Takes in what the last requests returned and asks again when it is time. */
    void poll() {
        if (exceptions != null && exceptions.isDone()) {
            if (!exceptions.isCompletedExceptionally()) {
                failures(exceptions.join());
            }
            exceptions = null;
        }
        if (checkpoints != null && checkpoints.isDone()) {
            if (!checkpoints.isCompletedExceptionally()) {
                progress(checkpoints.join());
            }
            checkpoints = null;
        }
        long now = System.nanoTime();
        if (exceptions == null && checkpoints == null && now - askedAt >= INTERVAL.toNanos()) {
            askedAt = now;
            JobExceptionsMessageParameters failures = new JobExceptionsMessageParameters();
            failures.jobPathParameter.resolve(job);
            exceptions =
                    rest.sendRequest(
                            JobExceptionsHeaders.getInstance(),
                            failures,
                            EmptyRequestBody.getInstance());
            JobMessageParameters stats = new JobMessageParameters();
            stats.jobPathParameter.resolve(job);
            checkpoints =
                    rest.sendRequest(
                            CheckpointingStatisticsHeaders.getInstance(),
                            stats,
                            EmptyRequestBody.getInstance());
        }
        if (!streak.exhausted()) {
            exhaustedSince = -1;
        } else if (exhaustedSince < 0) {
            exhaustedSince = now;
        }
    }

    /** A training step further than any before: progress after every failure so far. */
    void progressed() {
        streak.progress();
    }

    /**
     * The repeated cause in one line once the streak has stayed at its limit for {@link #SETTLE},
     * else null.
     */
    String repeatedCause() {
        return exhaustedSince >= 0
                        && streak.exhausted()
                        && System.nanoTime() - exhaustedSince >= SETTLE.toNanos()
                ? streak.description()
                : null;
    }

    /** Failures in the current streak. */
    int streakLength() {
        return streak.length();
    }

    private void failures(JobExceptionsInfoWithHistory info) {
        List<RootExceptionInfo> entries = new ArrayList<>(info.getExceptionHistory().getEntries());
        entries.sort(Comparator.comparingLong(RootExceptionInfo::getTimestamp));
        for (RootExceptionInfo entry : entries) {
            if (entry.getTimestamp() <= lastFailureAt) {
                continue;
            }
            lastFailureAt = entry.getTimestamp();
            FailureCause cause = FailureCause.of(entry.getExceptionName(), entry.getStacktrace());
            streak.failure(entry.getTimestamp(), cause);
            report.accept(
                    "Job failed"
                            + (cause.environmental()
                                    ? " (the environment's, Flink restarts it)"
                                    : streak.length() == 0
                                            ? ""
                                            : String.format(
                                                    Locale.ROOT,
                                                    " (%d of %d in a row with this cause)",
                                                    streak.length(),
                                                    limit))
                            + ": "
                            + cause.description());
        }
    }

    private void progress(CheckpointingStatistics stats) {
        for (CheckpointStatistics checkpoint : stats.getHistory()) {
            if (checkpoint.getStatus().isCompleted()) {
                streak.progressAt(checkpoint.getLatestAckTimestamp());
            }
        }
    }

    @Override
    public void close() {
        rest.close();
    }
}
