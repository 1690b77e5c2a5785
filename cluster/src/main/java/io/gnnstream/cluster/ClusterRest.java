package io.gnnstream.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The REST calls the command line makes to a Flink cluster (ours or any other): its overview, its
 * jobs, a job's user configuration, and stopping a job with a savepoint.
 *
 * <p>Stopping: the training job's iteration heads wait for feedback for ever, so Flink's
 * stop-with-savepoint writes the savepoint but never finishes the job. {@link #savepointAndCancel}
 * therefore triggers a savepoint and, once it is complete, cancels the job: the savepoint is the
 * state to resume from, and whatever the job did between the two (at most a few records) is
 * discarded with it, like any work after a checkpoint.
 */
public final class ClusterRest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SAVEPOINT_RETRY_DELAY = Duration.ofSeconds(2);
    private static final Duration MIN_CANCEL_WAIT = Duration.ofSeconds(30);

    private final String host;
    private final int port;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public ClusterRest(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** {@code host:port} as a user writes it for {@code --jobmanager}. */
    public static ClusterRest of(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException(
                    "--jobmanager must be host:port (the REST port), got " + address);
        }
        try {
            return new ClusterRest(
                    address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--jobmanager must be host:port (the REST port), got " + address);
        }
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String webUi() {
        return "http://" + host + ":" + port;
    }

    /** The cluster's overview, or empty when its REST endpoint does not answer. */
    public Optional<Overview> overview() {
        try {
            JsonNode o = get("/overview");
            return Optional.of(
                    new Overview(
                            o.path("taskmanagers").asInt(),
                            o.path("slots-total").asInt(),
                            o.path("slots-available").asInt(),
                            o.path("jobs-running").asInt(),
                            o.path("flink-version").asText()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The registered TaskManagers with their slots and task heap. */
    public List<TaskManagerInfo> taskManagers() throws IOException {
        List<TaskManagerInfo> tms = new ArrayList<>();
        for (JsonNode tm : get("/taskmanagers").path("taskmanagers")) {
            tms.add(
                    new TaskManagerInfo(
                            tm.path("id").asText(),
                            tm.path("slotsNumber").asInt(),
                            tm.path("freeSlots").asInt(),
                            tm.path("memoryConfiguration").path("taskHeap").asLong(0)));
        }
        return tms;
    }

    /** Every job the cluster knows, newest first. */
    public List<JobInfo> jobs() throws IOException {
        List<JobInfo> jobs = new ArrayList<>();
        for (JsonNode j : get("/jobs/overview").path("jobs")) {
            jobs.add(
                    new JobInfo(
                            JobID.fromHexString(j.path("jid").asText()),
                            j.path("name").asText(),
                            JobStatus.valueOf(j.path("state").asText()),
                            j.path("start-time").asLong()));
        }
        jobs.sort((a, b) -> Long.compare(b.startTime(), a.startTime()));
        return jobs;
    }

    public JobStatus status(JobID job) throws IOException {
        return JobStatus.valueOf(get("/jobs/" + job).path("state").asText());
    }

    /**
     * Whether every task of the job is running (a failover restarts the tasks of the failed region
     * while the job's status stays {@code RUNNING}).
     */
    public boolean allTasksRunning(JobID job) throws IOException {
        JsonNode counts = get("/jobs/" + job).path("status-counts");
        int total = 0;
        for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) counts::fields) {
            total += e.getValue().asInt();
        }
        return total > 0 && counts.path("RUNNING").asInt() == total;
    }

    /** The job's global job parameters (its user configuration). */
    public Map<String, String> userConfiguration(JobID job) throws IOException {
        Map<String, String> conf = new LinkedHashMap<>();
        get("/jobs/" + job + "/config")
                .path("execution-config")
                .path("user-config")
                .fields()
                .forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
        return conf;
    }

    /** The path of the job's latest completed checkpoint, if any. */
    public Optional<String> latestCheckpoint(JobID job) throws IOException {
        JsonNode completed = get("/jobs/" + job + "/checkpoints").path("latest").path("completed");
        return completed.isMissingNode() || completed.isNull()
                ? Optional.empty()
                : Optional.of(completed.path("external_path").asText());
    }

    /**
     * Writes a savepoint of the job (canonical format, so it can be restored on any state backend
     * and at any parallelism) into {@code directory} (null: the cluster's {@code
     * state.savepoints.dir}), then cancels the job and waits until it is cancelled; returns the
     * savepoint's path. A savepoint that fails while the job keeps running (declined by a task that
     * is restarting or not yet running, aborted by a failover) is triggered again until the
     * timeout; each failure is reported to {@code log}.
     */
    public String savepointAndCancel(JobID job, String directory, Duration timeout, PrintStream log)
            throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (RestClusterClient<StandaloneClusterId> client = client()) {
            String path = null;
            for (int attempt = 1; path == null; attempt++) {
                long left = deadline - System.nanoTime();
                try {
                    path =
                            client.triggerSavepoint(job, directory, SavepointFormatType.CANONICAL)
                                    .get(Math.max(1, left), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new ClusterException(
                            "the savepoint of job "
                                    + job
                                    + " did not complete within "
                                    + timeout.toSeconds()
                                    + " s; the job keeps running");
                } catch (ExecutionException e) {
                    String cause = rootMessage(e);
                    JobStatus status = status(job);
                    if (status.isGloballyTerminalState()
                            || System.nanoTime() + SAVEPOINT_RETRY_DELAY.toNanos() > deadline) {
                        throw new ClusterException(
                                "the savepoint of job "
                                        + job
                                        + " failed (attempt "
                                        + attempt
                                        + ", job "
                                        + status
                                        + "): "
                                        + cause,
                                e);
                    }
                    log.println(
                            "The savepoint failed (attempt "
                                    + attempt
                                    + ", job "
                                    + status
                                    + "): "
                                    + cause
                                    + "; triggering it again");
                    Thread.sleep(SAVEPOINT_RETRY_DELAY.toMillis());
                }
            }
            cancel(
                    client,
                    job,
                    Duration.ofNanos(
                            Math.max(deadline - System.nanoTime(), MIN_CANCEL_WAIT.toNanos())));
            return path;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
        }
    }

    /** Cancels the job and waits until it is cancelled. */
    public void cancel(JobID job, Duration timeout) throws IOException {
        try (RestClusterClient<StandaloneClusterId> client = client()) {
            cancel(client, job, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
        }
    }

    private void cancel(RestClusterClient<StandaloneClusterId> client, JobID job, Duration timeout)
            throws IOException, InterruptedException {
        try {
            client.cancel(job).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new ClusterException("cancelling job " + job + " failed: " + rootMessage(e), e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!status(job).isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new ClusterException(
                        "job " + job + " was not cancelled within " + timeout.toSeconds() + " s");
            }
            Thread.sleep(200);
        }
    }

    private RestClusterClient<StandaloneClusterId> client() throws ClusterException {
        Configuration conf = new Configuration();
        conf.set(RestOptions.ADDRESS, host);
        conf.set(RestOptions.PORT, port);
        try {
            return new RestClusterClient<>(conf, StandaloneClusterId.getInstance());
        } catch (Exception e) {
            throw new ClusterException(
                    "cannot reach the cluster at " + webUi() + ": " + e.getMessage(), e);
        }
    }

    private JsonNode get(String path) throws IOException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(webUi() + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
        } catch (IOException e) {
            throw new ClusterException(
                    "cannot reach the cluster at " + webUi() + " (" + e + ")", e);
        }
        if (response.statusCode() == 404) {
            throw new ClusterException("not found at " + webUi() + ": " + path);
        }
        if (response.statusCode() != 200) {
            throw new ClusterException(
                    "GET "
                            + path
                            + " at "
                            + webUi()
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    /** What {@code /overview} says. */
    public record Overview(
            int taskManagers,
            int slotsTotal,
            int slotsAvailable,
            int jobsRunning,
            String flinkVersion) {}

    /** One TaskManager of {@code /taskmanagers}. */
    /** A TaskManager: its slots and its task heap in bytes (0 where the cluster does not say). */
    public record TaskManagerInfo(String id, int slots, int freeSlots, long taskHeapBytes) {}

    /** One job of {@code /jobs/overview}. */
    public record JobInfo(JobID id, String name, JobStatus status, long startTime) {}
}
