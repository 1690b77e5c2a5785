/**
 * Helpers of the connectors: the shared Jackson configuration of the input formats and the
 * dead-letter record encodings.
 */
package io.gnnstream.connectors.internal;
