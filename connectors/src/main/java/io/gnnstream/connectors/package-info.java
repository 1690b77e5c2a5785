/**
 * Kafka and dataset plumbing: the jobs' Kafka sources and sinks, record formats and their parsing
 * with dead-lettering of bad records, topic administration, a local single-node broker, and dataset
 * folders (scanning, loading into topics, generating synthetic graphs).
 */
package io.gnnstream.connectors;
