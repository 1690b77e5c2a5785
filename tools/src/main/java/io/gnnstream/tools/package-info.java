/**
 * Tools around the job that the job jar leaves out: dataset folders (scanning, loading into topics,
 * generating synthetic graphs, holding one in memory for offline inference and sampling its
 * mini-batches as the job does), the local development Kafka broker in a child JVM, and
 * scratch-directory handling.
 */
package io.gnnstream.tools;
