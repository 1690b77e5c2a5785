package io.gnnstream.cli;

import io.gnnstream.cluster.ClusterException;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Which cluster a command talks to: {@code --jobmanager host:port} (any Flink cluster's REST
 * endpoint), else the cluster that {@code cluster start} started in {@code --cluster-dir}.
 */
final class ClusterTarget {

    static final String DEFAULT_DIR = "work/cluster";

    @Option(
            names = "--jobmanager",
            paramLabel = "HOST:PORT",
            description =
                    "REST address of the cluster's JobManager (default: the cluster started in"
                            + " --cluster-dir).")
    String jobManager;

    @Option(
            names = "--cluster-dir",
            defaultValue = DEFAULT_DIR,
            description =
                    "Directory of the cluster started by `cluster start` (default:"
                            + " ${DEFAULT-VALUE}).")
    Path clusterDir;

    /** The cluster's REST endpoint; a clear error when none is given and none was started. */
    ClusterRest rest() throws IOException {
        if (jobManager != null) {
            return ClusterRest.of(jobManager);
        }
        Optional<ClusterState> state = ClusterState.read(clusterDir.toAbsolutePath());
        if (state.isEmpty()) {
            throw new ClusterException(
                    "no cluster was started in "
                            + clusterDir.toAbsolutePath()
                            + ": run `bin/gnnstream cluster start` or give --jobmanager HOST:PORT");
        }
        return new ClusterRest(state.get().restHost(), state.get().restPort());
    }

    /** Default checkpoint directory of jobs submitted to the local cluster. */
    Path defaultCheckpointDir() {
        return clusterDir.toAbsolutePath().resolve("checkpoints");
    }
}
