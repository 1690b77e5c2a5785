/**
 * Kafka plumbing of the job: its Kafka sources and sinks, record formats and their parsing with
 * dead-lettering of bad records, and topic administration.
 */
package io.gnnstream.connectors;
