package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.HighAvailability;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.tools.Directories;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cluster start --ha} on one host: a ZooKeeper server, a leading and a standby JobManager
 * and a TaskManager. Clients find the leader through ZooKeeper; when the leader is killed, the
 * standby leads and the TaskManager registers with it; {@code cluster stop} ends every process.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ClusterHaITCase {

    private static final Path DIR = Path.of("target", "it-cluster-ha").toAbsolutePath();

    @Test
    void theStandbyJobManagerTakesOver() throws Exception {
        StandaloneCluster.stop(DIR);
        Directories.deleteRecursively(DIR);
        try {
            assertEquals(
                    0,
                    GnnstreamCli.commandLine()
                            .execute(
                                    "cluster",
                                    "start",
                                    "--dir",
                                    DIR.toString(),
                                    "--ha",
                                    "--taskmanagers",
                                    "1",
                                    "--taskmanager-memory",
                                    "2500m"));
            ClusterState state = ClusterState.read(DIR).orElseThrow();
            assertEquals(2, state.jobManagerPids().size());
            assertTrue(state.zooKeeperPid() > 0);
            String quorum = state.zooKeeperQuorum().orElseThrow();
            String id = state.haClusterId().orElseThrow();
            assertEquals(
                    0,
                    GnnstreamCli.commandLine()
                            .execute("cluster", "status", "--dir", DIR.toString()));

            ClusterRest leader = HighAvailability.leaderRest(quorum, id, Duration.ofSeconds(30));
            long leaderPid =
                    leader.port() == state.restPort()
                            ? state.jobManagerPids().get(0)
                            : state.jobManagerPids().get(1);
            ProcessHandle leaderProcess = ProcessHandle.of(leaderPid).orElseThrow();
            leaderProcess.destroyForcibly();
            leaderProcess.onExit().join();

            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (true) {
                ClusterRest next = HighAvailability.leaderRest(quorum, id, Duration.ofSeconds(60));
                if (next.port() != leader.port()
                        && next.overview().map(o -> o.taskManagers() == 1).orElse(false)) {
                    assertNotEquals(leader.webUi(), next.webUi());
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "the standby did not take over");
                Thread.sleep(1000);
            }
        } finally {
            ClusterState state = ClusterState.read(DIR).orElse(null);
            StandaloneCluster.stop(DIR);
            if (state != null) {
                for (long pid : state.pids()) {
                    assertFalse(
                            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                            "process " + pid + " left");
                }
            }
        }
    }
}
