package io.gnnstream.operators.messages;

import io.gnnstream.state.StoreSites;

/**
 * One site's copy of a vertex deletion (docs/design.md, "Vertex deletion"): a deletion reaches
 * every GraphStore subtask and every replica router subtask, keyed by the anchor of {@link #route},
 * the first partition of the copy's site. Each site removes the deleted vertex from the
 * in-adjacency of its own vertices; the site owning the vertex also removes its attributes and
 * in-edges.
 */
public class VertexDeletion {

    public long vertex;

    /** The partition whose anchor keys this copy: the first partition of its site. */
    public int route;

    public VertexDeletion() {}

    public VertexDeletion(long vertex, int route) {
        this.vertex = vertex;
        this.route = route;
    }

    /**
     * The route of each site's copy: the first partition of every subtask of an operator with
     * {@code parallelism} subtasks over {@code partitions} logical partitions (key groups).
     */
    public static int[] routes(int partitions, int parallelism) {
        StoreSites sites = new StoreSites(partitions, parallelism);
        int[] routes = new int[parallelism];
        for (int site = 0; site < parallelism; site++) {
            routes[site] = sites.holderOfSite(site);
        }
        return routes;
    }

    @Override
    public String toString() {
        return "VertexDeletion(" + vertex + ", route " + route + ")";
    }
}
