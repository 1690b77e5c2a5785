package io.gnnstream.cluster;

import java.net.URI;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalService;
import org.apache.flink.runtime.util.LeaderRetrievalUtils;

/**
 * ZooKeeper high availability of a standalone cluster: the settings its processes and clients
 * share, and finding the leading JobManager's REST endpoint through ZooKeeper, as Flink's own
 * clients do.
 *
 * <p>The ZooKeeper session timeout is 15 s, not Flink's 60 s: a killed leader's session (and with
 * it its leadership) lasts that long after its death, so it bounds how soon a standby takes over.
 */
public final class HighAvailability {

    /** {@code high-availability.cluster-id} unless given. */
    public static final String DEFAULT_CLUSTER_ID = "/gnnstream";

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(15);

    private HighAvailability() {}

    /** Sets ZooKeeper high availability in {@code conf}. */
    public static Configuration configure(
            Configuration conf, String quorum, String clusterId, String storageDir) {
        clientConfiguration(conf, quorum, clusterId);
        conf.set(HighAvailabilityOptions.HA_STORAGE_PATH, storageDir);
        return conf;
    }

    /** What a client needs to find the leader: the quorum and the cluster id. */
    public static Configuration clientConfiguration(
            Configuration conf, String quorum, String clusterId) {
        conf.set(HighAvailabilityOptions.HA_MODE, "zookeeper");
        conf.set(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM, quorum);
        conf.set(HighAvailabilityOptions.HA_CLUSTER_ID, clusterId);
        conf.set(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT, SESSION_TIMEOUT);
        conf.set(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT, Duration.ofSeconds(10));
        return conf;
    }

    /**
     * The REST endpoint of the JobManager that leads now, as ZooKeeper names it; waits up to {@code
     * timeout} for a leader.
     */
    public static ClusterRest leaderRest(String quorum, String clusterId, Duration timeout)
            throws ClusterException {
        Configuration conf = clientConfiguration(new Configuration(), quorum, clusterId);
        try (ClientHighAvailabilityServices services =
                HighAvailabilityServicesUtils.createClientHAService(
                        conf,
                        error -> {
                            // leader retrieval reports its own failures through the call below
                        })) {
            LeaderRetrievalService retrieval = services.getClusterRestEndpointLeaderRetriever();
            String address =
                    LeaderRetrievalUtils.retrieveLeaderInformation(retrieval, timeout)
                            .getLeaderAddress();
            URI uri = URI.create(address);
            return new ClusterRest(uri.getHost(), uri.getPort());
        } catch (Exception e) {
            throw new ClusterException(
                    "no leading JobManager found through ZooKeeper "
                            + quorum
                            + " (cluster id "
                            + clusterId
                            + ") within "
                            + timeout.toSeconds()
                            + " s: "
                            + e.getMessage(),
                    e);
        }
    }
}
