package io.gnnstream.tools.formats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Permutations equal numpy's {@code RandomState(seed).permutation} (values from Python). */
class NumpyRandomTest {

    @Test
    void permutationsMatchNumpy() {
        assertArrayEquals(
                new int[] {2, 8, 4, 9, 1, 6, 7, 3, 0, 5},
                new NumpyRandom(0).permutation(IntStream.range(0, 10).toArray()));
        assertArrayEquals(
                new int[] {
                    117, 137, 134, 118, 132, 101, 122, 102, 109, 136, 129, 121, 113, 127, 105,
                    115, 120, 124, 111, 100, 112, 130, 116, 139, 106, 107, 131, 126, 110, 133,
                    138, 108, 135, 114, 128, 123, 119, 103, 125, 104
                },
                new NumpyRandom(7).permutation(IntStream.range(100, 140).toArray()));
        int[] big = new NumpyRandom(0xffffffffL).permutation(IntStream.range(0, 1000).toArray());
        assertArrayEquals(new int[] {94, 405, 819, 632, 217, 169, 449, 275}, Arrays.copyOf(big, 8));
    }
}
