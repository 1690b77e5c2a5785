/**
 * A Flink standalone session cluster from the Maven jars ({@link
 * io.gnnstream.cluster.StandaloneCluster}), its recorded processes ({@link
 * io.gnnstream.cluster.ClusterState}) and the REST calls the command line makes to any cluster
 * ({@link io.gnnstream.cluster.ClusterRest}). Tool code: not part of the job jar.
 */
package io.gnnstream.cluster;
