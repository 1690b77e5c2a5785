package io.gnnstream.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterStateTest {

    @Test
    void writesAndReadsTheProcesses(@TempDir Path dir) throws Exception {
        assertTrue(ClusterState.read(dir).isEmpty());
        new ClusterState("127.0.0.1", 8082, 41, List.of(42L, 43L)).write(dir);
        ClusterState read = ClusterState.read(dir).orElseThrow();
        assertEquals("127.0.0.1:8082", read.restAddress());
        assertEquals(List.of(41L, 42L, 43L), read.pids());
        ClusterState.delete(dir);
        assertTrue(ClusterState.read(dir).isEmpty());
    }

    @Test
    void recordsZooKeeperJobManagersAndTheQuorum(@TempDir Path dir) throws Exception {
        new ClusterState("10.0.0.1", 8081, 40, List.of(41L, 44L), List.of(), "10.0.0.1:2181", "/c")
                .write(dir);
        ClusterState read = ClusterState.read(dir).orElseThrow();
        assertEquals(List.of(40L, 41L, 44L), read.pids());
        assertEquals(List.of(41L, 44L), read.jobManagerPids());
        assertEquals(40L, read.zooKeeperPid());
        assertEquals("10.0.0.1:2181", read.zooKeeperQuorum().orElseThrow());
        assertEquals("/c", read.haClusterId().orElseThrow());
    }

    @Test
    void aHostOfTaskManagersHasNoRestEndpoint(@TempDir Path dir) throws Exception {
        new ClusterState("", -1, -1, List.of(), List.of(7L), null, null).write(dir);
        ClusterState read = ClusterState.read(dir).orElseThrow();
        assertFalse(read.hasRestEndpoint());
        assertEquals(-1L, read.jobManagerPid());
        assertTrue(read.zooKeeperQuorum().isEmpty());
    }

    @Test
    void readsTheFileOfASingleJobManagerCluster(@TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve(ClusterState.FILE),
                "rest.host=127.0.0.1\nrest.port=8081\njobmanager.pid=5\ntaskmanager.pids=6,7\n");
        assertEquals(List.of(5L, 6L, 7L), ClusterState.read(dir).orElseThrow().pids());
    }

    @Test
    void startOptionsThatCannotWorkAreRefused(@TempDir Path dir) {
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).jobManagers(0).taskManagers(0).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).jobManagers(0).taskManagers(1).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).jobManagers(2).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).joinJobManager("10.0.0.1"));
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).bind("no-such-host.invalid"));
        // TaskManagers that find a highly available cluster's leader through ZooKeeper.
        StandaloneCluster.builder(dir, dir)
                .jobManagers(0)
                .taskManagers(1)
                .highAvailability("10.0.0.1:2181")
                .build();
    }

    @Test
    void aDamagedFileIsAClearError(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(ClusterState.FILE), "rest.port=x\n");
        assertThrows(java.io.IOException.class, () -> ClusterState.read(dir));
    }

    @Test
    void aPidOfAnotherProgramIsNotTheClusters(@TempDir Path dir) {
        // This test's own JVM is alive, but its command line does not name the directory.
        assertTrue(StandaloneCluster.process(ProcessHandle.current().pid(), dir).isEmpty());
        assertTrue(StandaloneCluster.process(-1, dir).isEmpty());
    }

    @Test
    void stopWithoutAClusterDoesNothing(@TempDir Path dir) throws Exception {
        assertEquals(List.of(), StandaloneCluster.stop(dir));
    }

    @Test
    void jobManagerAddressesAreHostAndPort() {
        ClusterRest rest = ClusterRest.of("10.0.0.5:8081");
        assertEquals("http://10.0.0.5:8081", rest.webUi());
        assertThrows(IllegalArgumentException.class, () -> ClusterRest.of("localhost"));
        assertThrows(IllegalArgumentException.class, () -> ClusterRest.of("localhost:http"));
    }

    @Test
    void startRefusesALibWithoutFlink(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("lib"));
        ClusterException e =
                assertThrows(
                        ClusterException.class,
                        () ->
                                StandaloneCluster.builder(
                                                dir.resolve("cluster"), dir.resolve("lib"))
                                        .build()
                                        .start());
        assertTrue(e.getMessage().contains("no Flink jars"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> StandaloneCluster.builder(dir, dir).taskManagers(-1));
    }
}
