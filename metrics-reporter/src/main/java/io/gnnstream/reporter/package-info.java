/** Metric reporters of the standalone cluster's processes, loaded from its lib/. */
package io.gnnstream.reporter;
