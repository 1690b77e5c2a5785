package io.gnnstream.jobs.testing;

import io.gnnstream.operators.GraphStoreProbe;
import io.gnnstream.operators.store.StoreProbe;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks, as the GraphStore subtasks report their writes and samples ({@link GraphStoreProbe}),
 * that no subtask samples an edge after it applied that edge's removal or a deletion of one of its
 * ends, unless the edge was added again since. Each subtask's reports come in the order it applied
 * them, on its own thread; a restore rolls state back without telling the audit, so it checks runs
 * without failures only.
 */
public final class SamplingAudit implements StoreProbe {

    private final Map<Integer, Site> sites = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private long samples;

    /** Per site, when (a per-site event count) each edge was last added and removed. */
    private static final class Site {
        long clock;
        final Map<String, Long> added = new HashMap<>();
        final Map<String, Long> removed = new HashMap<>();
        final Map<Long, Long> deleted = new HashMap<>();
    }

    private synchronized Site site(int subtask) {
        return sites.computeIfAbsent(subtask, s -> new Site());
    }

    @Override
    public void added(int subtask, long dst, long[] sources) {
        Site s = site(subtask);
        synchronized (s) {
            long t = ++s.clock;
            for (long u : sources) {
                s.added.put(u + ">" + dst, t);
            }
        }
    }

    @Override
    public void removed(int subtask, long dst, long source) {
        Site s = site(subtask);
        synchronized (s) {
            s.removed.put(source + ">" + dst, ++s.clock);
        }
    }

    @Override
    public void deleted(int subtask, long vertex) {
        Site s = site(subtask);
        synchronized (s) {
            s.deleted.put(vertex, ++s.clock);
        }
    }

    @Override
    public void sampled(int subtask, long dst, long[] neighbours) {
        Site s = site(subtask);
        synchronized (s) {
            for (long u : neighbours) {
                String edge = u + ">" + dst;
                long added = s.added.getOrDefault(edge, -1L);
                long gone =
                        Math.max(
                                s.removed.getOrDefault(edge, -1L),
                                Math.max(
                                        s.deleted.getOrDefault(u, -1L),
                                        s.deleted.getOrDefault(dst, -1L)));
                if (gone > added) {
                    record("subtask " + subtask + " sampled " + edge + " after its removal");
                }
            }
        }
        synchronized (this) {
            samples++;
        }
    }

    private synchronized void record(String violation) {
        if (violations.size() < 20) {
            violations.add(violation);
        }
    }

    public synchronized List<String> violations() {
        return new ArrayList<>(violations);
    }

    /** Sampled vertices reported. */
    public synchronized long samples() {
        return samples;
    }

    /** Removals and deletions reported. */
    public long removals() {
        long n = 0;
        synchronized (this) {
            for (Site s : sites.values()) {
                synchronized (s) {
                    n += s.removed.size() + s.deleted.size();
                }
            }
        }
        return n;
    }
}
