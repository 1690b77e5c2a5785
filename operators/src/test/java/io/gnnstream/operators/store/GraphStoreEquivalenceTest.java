package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GraphStore core on the in-memory state store answers a {@link StoreScenario} exactly as the
 * GraphStore operator does in Flink's keyed harness on RocksDB: every sample response, feature
 * part, graph event and deletion, byte for byte and in order, through a snapshot and a restore.
 */
@Timeout(120)
class GraphStoreEquivalenceTest {

    @Test
    void theCoreInMemoryAnswersAsTheOperatorOnRocksDb() throws Exception {
        StoreScenario scenario = new StoreScenario();
        List<String> operator = OperatorRun.run(scenario);
        List<String> core = CoreRun.run(scenario);
        assertTrue(
                operator.stream().filter(l -> l.startsWith("part ")).count() > 10
                        && operator.stream().anyMatch(l -> l.startsWith("deleted "))
                        && operator.stream().anyMatch(l -> l.startsWith("event LAYER_WRITTEN")),
                "the scenario exercises parts, deletions and layer writes");
        for (int i = 0; i < Math.min(operator.size(), core.size()); i++) {
            assertEquals(operator.get(i), core.get(i), "line " + i);
        }
        assertEquals(operator.size(), core.size());
    }
}
