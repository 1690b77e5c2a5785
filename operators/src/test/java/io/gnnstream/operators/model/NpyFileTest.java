package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpyFileTest {

    @Test
    void writeThenReadGivesTheValuesAndShape(@TempDir Path dir) throws IOException {
        float[] values = {1.5f, -0f, Float.MIN_VALUE, 3, 4, 5};
        Path file = dir.resolve("t.npy");
        NpyFile.write(file, new int[] {2, 3}, values);
        assertArrayEquals(new int[] {2, 3}, NpyFile.shape(file));
        assertArrayEquals(values, NpyFile.read(file, new int[] {2, 3}));
        assertEquals(0, (NpyFile.encode(new int[] {6}, values).length - 24) % 64);

        NpyFile.write(file, new int[] {6}, values);
        assertArrayEquals(new int[] {6}, NpyFile.shape(file));
        IOException e = assertThrows(IOException.class, () -> NpyFile.read(file, new int[] {2, 3}));
        assertTrue(e.getMessage().contains("shape [6], expected [2, 3]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NpyFile.encode(new int[] {4}, values));
        e = assertThrows(IOException.class, () -> NpyFile.shape(dir.resolve("none.npy")));
        assertTrue(e.getMessage().contains("missing tensor file"), e.getMessage());
    }
}
