package io.gnnstream.operators.model.gpu;

/**
 * Where a trainer rank's model steps run: {@code cpu} (ND4J, the default) or {@code cuda[:N]} (the
 * CUDA backend, {@code N} the device index; without it the GPU Flink assigned to the slot, or
 * device 0). Serializable: it travels in the trainer's {@code TrainerConfig}.
 *
 * @param cuda whether the rank runs on a CUDA GPU
 * @param index the CUDA device index, or {@code -1} where none was named
 */
public record Device(boolean cuda, int index) implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    /** The CPU (ND4J) backend. */
    public static final Device CPU = new Device(false, -1);

    public Device {
        if (!cuda && index != -1) {
            throw new IllegalArgumentException("a CPU device has no index");
        }
        if (index < -1) {
            throw new IllegalArgumentException("device index must be >= 0, got " + index);
        }
    }

    /**
     * Parses {@code cpu}, {@code cuda} or {@code cuda:N}.
     *
     * @throws IllegalArgumentException naming the accepted forms if {@code text} is none of them
     */
    public static Device parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("cpu")) {
            return CPU;
        }
        if (t.equals("cuda")) {
            return new Device(true, -1);
        }
        if (t.startsWith("cuda:")) {
            String n = t.substring(5);
            if (!n.isEmpty() && n.chars().allMatch(Character::isDigit) && n.length() <= 4) {
                return new Device(true, Integer.parseInt(n));
            }
        }
        throw new IllegalArgumentException(
                "device must be cpu, cuda or cuda:N (N a device index >= 0), got '" + text + "'");
    }

    /**
     * The CUDA device index to open: the named one, else {@code assigned} (e.g. the GPU index
     * Flink's external resource gave the slot; {@code -1} if none), else 0.
     */
    public int resolve(int assigned) {
        if (!cuda) {
            throw new IllegalStateException("the CPU device has no CUDA index");
        }
        return index >= 0 ? index : Math.max(assigned, 0);
    }

    /**
     * The GPU rank {@code rank} takes of {@code indices} (e.g. a TaskManager's GPUs, which Flink
     * gives to every slot): the {@code rank mod n}-th in ascending order, or -1 when there are
     * none.
     */
    public static int pick(java.util.List<Integer> indices, int rank) {
        if (indices.isEmpty()) {
            return -1;
        }
        java.util.List<Integer> sorted = new java.util.ArrayList<>(indices);
        java.util.Collections.sort(sorted);
        return sorted.get(Math.floorMod(rank, sorted.size()));
    }

    @Override
    public String toString() {
        return cuda ? (index >= 0 ? "cuda:" + index : "cuda") : "cpu";
    }
}
