package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import java.util.List;
import org.junit.jupiter.api.Test;

class GradientExchangeTest {

    /**
     * Chunks leave grouped by reducer (chunk c goes to reducer c mod R), and the sums make the
     * mean.
     */
    @Test
    void sendsChunksGroupedByReducerAndAveragesTheSums() {
        int params = 5 * GradientExchange.MAX_CHUNK_FLOATS;
        GradientExchange exchange = new GradientExchange(1, params, 2);
        assertEquals(5, exchange.numChunks());
        PendingStep step = new PendingStep();
        step.step = 3;
        step.seeds = 4;
        step.grad = new float[params];
        for (int i = 0; i < params; i++) {
            step.grad[i] = i % 7;
        }
        List<GradientChunk> chunks = exchange.begin(step);
        assertArrayEquals(
                new int[] {0, 2, 4, 1, 3}, chunks.stream().mapToInt(c -> c.chunk).toArray());
        float[] mean = null;
        for (GradientChunk c : chunks) {
            assertEquals(1, c.rank);
            assertNull(mean, "the mean comes with the last chunk");
            float[] doubled = c.values.clone();
            for (int i = 0; i < doubled.length; i++) {
                doubled[i] *= 2;
            }
            mean = exchange.accept(new ReducedChunk(c.step, c.chunk, c.numChunks, 8, doubled));
        }
        for (int i = 0; i < params; i += 9_973) {
            assertEquals((i % 7) * 2 / 8f, mean[i], 0f);
        }
    }
}
