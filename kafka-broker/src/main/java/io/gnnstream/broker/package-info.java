/**
 * The entry point of the local development Kafka broker, run as a child process by {@code
 * io.gnnstream.tools.LocalKafkaBroker} with the jars of this module; it exits when its parent does.
 */
package io.gnnstream.broker;
