/**
 * Pieces of the topology that are not operators (key selectors, record adapters) and file helpers.
 */
package io.gnnstream.jobs.internal;
