/**
 * Readers of the dataset layouts users bring (OGB's raw node-property layout, Planetoid's pickles,
 * gnn-benchmark {@code .npz}, DGL {@code CSVDataset}) besides the project's own folder, each
 * sending the project's node and edge lines ({@link io.gnnstream.tools.formats.DatasetReader});
 * {@link io.gnnstream.tools.formats.DatasetFormat} detects a folder's layout.
 */
package io.gnnstream.tools.formats;
