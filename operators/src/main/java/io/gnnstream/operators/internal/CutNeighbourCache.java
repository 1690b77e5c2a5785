package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongObjectCursor;
import java.util.Arrays;

/**
 * The replica router's heap copy of its sources' cut out-neighbours (see {@code ReplicaRouter}):
 * per source, the sorted neighbours and how many of them lie in each site, so that an edge costs a
 * hash probe and a binary search instead of a state read and write. Entries are loaded from keyed
 * state on first use and written back by the caller ({@link #writeBack}) before every checkpoint
 * barrier and whenever the cache holds more than its capacity of neighbours, after which it is
 * emptied; so the cache is never the only copy at a checkpoint and its size stays bounded. A cache
 * that starts on empty state (a fresh job) holds every stored entry until it is first emptied, and
 * loads nothing until then.
 */
public final class CutNeighbourCache {

    /** One source's cut out-neighbours. */
    public static final class Entry {
        private long[] neighbours;
        private int size;
        /** Neighbours per site, the source's home site left at zero. */
        private final int[] perSite;
        private boolean dirty;

        private Entry(long[] stored, int sites) {
            this.neighbours = stored == null ? new long[4] : Arrays.copyOf(stored, stored.length + 4);
            this.size = stored == null ? 0 : stored.length;
            this.perSite = new int[sites];
        }

        /** Neighbours in {@code site}; a replica of the source belongs there while it is above zero. */
        public int inSite(int site) {
            return perSite[site];
        }

        public int sites() {
            return perSite.length;
        }

        /** The neighbours, sorted, in a new array; null when there are none. */
        public long[] toArray() {
            return size == 0 ? null : Arrays.copyOf(neighbours, size);
        }
    }

    /** Receives a changed entry to store. */
    @FunctionalInterface
    public interface Store {
        void write(long source, long[] neighboursOrNull) throws Exception;
    }

    /** Reads a source's stored neighbours (null when none). */
    @FunctionalInterface
    public interface Load {
        long[] read(long source) throws Exception;
    }

    /** Maps a vertex to its site. */
    @FunctionalInterface
    public interface SiteOf {
        int site(long vertex);
    }

    private final StoreSites sites;
    private final SiteOf siteOf;
    private final long capacity;
    private final LongObjectHashMap<Entry> entries = new LongObjectHashMap<>();
    private long cached;
    /** Whether every source with stored neighbours is in the cache, so a miss needs no load. */
    private boolean holdsAll;

    /**
     * A cache of at most {@code capacity} neighbours; {@code emptyState} says that no neighbours
     * are stored yet, so none needs loading until the cache is first emptied.
     */
    public CutNeighbourCache(StoreSites sites, SiteOf siteOf, long capacity, boolean emptyState) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.sites = sites;
        this.siteOf = siteOf;
        this.capacity = capacity;
        this.holdsAll = emptyState;
    }

    /** The entry of {@code source}, loaded when it is not cached. */
    public Entry get(long source, Load load) throws Exception {
        Entry entry = entries.get(source);
        if (entry == null) {
            entry = new Entry(holdsAll ? null : load.read(source), sites.parallelism());
            int home = siteOf.site(source);
            for (int i = 0; i < entry.size; i++) {
                int site = siteOf.site(entry.neighbours[i]);
                if (site != home) {
                    entry.perSite[site]++;
                }
            }
            entries.put(source, entry);
            cached += entry.size;
        }
        return entry;
    }

    /**
     * Adds {@code v} to the entry of {@code source}; returns the site whose first neighbour it is
     * (a replica to make), or -1 (already present, in the home site, or not the site's first).
     */
    public int add(long source, Entry entry, long v) {
        int at = Arrays.binarySearch(entry.neighbours, 0, entry.size, v);
        if (at >= 0) {
            return -1;
        }
        at = -at - 1;
        if (entry.size == entry.neighbours.length) {
            entry.neighbours = Arrays.copyOf(entry.neighbours, entry.size * 2);
        }
        System.arraycopy(entry.neighbours, at, entry.neighbours, at + 1, entry.size - at);
        entry.neighbours[at] = v;
        entry.size++;
        entry.dirty = true;
        cached++;
        int site = siteOf.site(v);
        return site != siteOf.site(source) && ++entry.perSite[site] == 1 ? site : -1;
    }

    /**
     * Removes {@code v} from the entry of {@code source}; returns the site whose last neighbour it
     * was (a replica to drop), or -1.
     */
    public int remove(long source, Entry entry, long v) {
        int at = Arrays.binarySearch(entry.neighbours, 0, entry.size, v);
        if (at < 0) {
            return -1;
        }
        System.arraycopy(entry.neighbours, at + 1, entry.neighbours, at, entry.size - at - 1);
        entry.size--;
        entry.dirty = true;
        cached--;
        int site = siteOf.site(v);
        return site != siteOf.site(source) && --entry.perSite[site] == 0 ? site : -1;
    }

    /** True when the cache holds more neighbours than its capacity. */
    public boolean full() {
        return cached > capacity;
    }

    /** Neighbours held. */
    public long cached() {
        return cached;
    }

    /** Stores every changed entry; with {@code empty}, then forgets them all. */
    public void writeBack(Store store, boolean empty) throws Exception {
        for (LongObjectCursor<Entry> c : entries) {
            if (c.value.dirty) {
                store.write(c.key, c.value.toArray());
                c.value.dirty = false;
            }
        }
        if (empty) {
            entries.clear();
            cached = 0;
            holdsAll = false;
        }
    }
}
