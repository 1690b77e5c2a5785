package io.gnnstream.state.records;

import java.util.Objects;

/**
 * An edge {@code src -> dst} added or removed: {@code dst} aggregates from {@code src}. A Flink
 * POJO (public fields, no-arg constructor) so it is serialized without Kryo.
 */
public class EdgeUpdate {

    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    public long src;
    public long dst;
    public boolean remove;
    public long timestamp = NO_TIMESTAMP;

    public EdgeUpdate() {}

    public EdgeUpdate(long src, long dst, boolean remove, long timestamp) {
        this.src = src;
        this.dst = dst;
        this.remove = remove;
        this.timestamp = timestamp;
    }

    public static EdgeUpdate add(long src, long dst) {
        return new EdgeUpdate(src, dst, false, NO_TIMESTAMP);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EdgeUpdate)) {
            return false;
        }
        EdgeUpdate e = (EdgeUpdate) o;
        return src == e.src && dst == e.dst && remove == e.remove && timestamp == e.timestamp;
    }

    @Override
    public int hashCode() {
        return Objects.hash(src, dst, remove, timestamp);
    }

    @Override
    public String toString() {
        return (remove ? "-" : "+") + src + "->" + dst;
    }
}
