package io.gnnstream.cli;

import io.gnnstream.cluster.ClusterException;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.HighAvailability;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Option;

/**
 * Which cluster a command talks to: {@code --jobmanager host:port} (any Flink cluster's REST
 * endpoint), {@code --zookeeper} (the leader of a highly available cluster, found through
 * ZooKeeper), else the cluster that {@code cluster start} started in {@code --cluster-dir} (its
 * leader through ZooKeeper when it was started with {@code --ha}).
 */
final class ClusterTarget {

    static final String DEFAULT_DIR = "work/cluster";

    /** How long a command waits for a highly available cluster to have a leader. */
    private static final Duration LEADER_TIMEOUT = Duration.ofSeconds(60);

    @Option(
            names = "--jobmanager",
            paramLabel = "HOST:PORT",
            description =
                    "REST address of the cluster's JobManager (default: the cluster started in"
                            + " --cluster-dir).")
    String jobManager;

    @Option(
            names = "--zookeeper",
            paramLabel = "HOST:PORT[,...]",
            description =
                    "ZooKeeper quorum of a highly available cluster: the command talks to the"
                            + " JobManager that leads, and follows a failover.")
    String zooKeeper;

    @Option(
            names = "--ha-cluster-id",
            defaultValue = HighAvailability.DEFAULT_CLUSTER_ID,
            description =
                    "With --zookeeper: the cluster's id in ZooKeeper (default: ${DEFAULT-VALUE}).")
    String haClusterId;

    @Option(
            names = "--cluster-dir",
            defaultValue = DEFAULT_DIR,
            description =
                    "Directory of the cluster started by `cluster start` (default:"
                            + " ${DEFAULT-VALUE}).")
    Path clusterDir;

    /**
     * The cluster's REST endpoint (its leader's, when highly available); a clear error when none is
     * given and none was started.
     */
    ClusterRest rest() throws IOException {
        if (jobManager != null) {
            return ClusterRest.of(jobManager);
        }
        Optional<String[]> ha = highAvailability();
        if (ha.isPresent()) {
            return HighAvailability.leaderRest(ha.get()[0], ha.get()[1], LEADER_TIMEOUT);
        }
        ClusterState state = state();
        if (!state.hasRestEndpoint()) {
            throw new ClusterException(
                    "the cluster in "
                            + clusterDir.toAbsolutePath()
                            + " runs no JobManager here: give --jobmanager HOST:PORT (its REST"
                            + " port)");
        }
        return new ClusterRest(state.restHost(), state.restPort());
    }

    /**
     * Adds what a Flink client needs to follow a highly available cluster's leader (a job client
     * made from it follows a failover); nothing for a cluster without.
     */
    Configuration clientConfiguration(Configuration conf) throws IOException {
        if (jobManager == null) {
            highAvailability()
                    .ifPresent(ha -> HighAvailability.clientConfiguration(conf, ha[0], ha[1]));
        }
        return conf;
    }

    /** Quorum and cluster id when the target is highly available. */
    private Optional<String[]> highAvailability() throws IOException {
        if (zooKeeper != null) {
            return Optional.of(new String[] {zooKeeper, haClusterId});
        }
        if (jobManager != null) {
            return Optional.empty();
        }
        ClusterState state = state();
        return state.zooKeeperQuorum()
                .map(q -> new String[] {q, state.haClusterId().orElse(haClusterId)});
    }

    private ClusterState state() throws IOException {
        return ClusterState.read(clusterDir.toAbsolutePath())
                .orElseThrow(
                        () ->
                                new ClusterException(
                                        "no cluster was started in "
                                                + clusterDir.toAbsolutePath()
                                                + ": run `bin/gnnstream cluster start` or give"
                                                + " --jobmanager HOST:PORT or --zookeeper"
                                                + " HOST:PORT"));
    }

    /** Default checkpoint directory of jobs submitted to the local cluster. */
    Path defaultCheckpointDir() {
        return clusterDir.toAbsolutePath().resolve("checkpoints");
    }
}
