package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertSame;

import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import org.junit.jupiter.api.Test;

/** The architecture a {@link GraphStoreConfig} names for its layer-output store. */
class GraphStoreConfigModelTypeTest {

    private static GraphStoreConfig base() {
        return new GraphStoreConfig(42L, 4, 1000L, 4096, 4096, 1000, 0);
    }

    @Test
    void theTypeIsTheDefaultUntilSetAndSurvivesOtherSettings() {
        assertSame(ModelType.DEFAULT, base().modelType());
        for (ModelType type : ModelType.values()) {
            GraphStoreConfig c =
                    base().withModelType(type)
                            .withHalo(true)
                            .withLayerRowCache(1024)
                            .withLayerRootWidths(3)
                            .withAggregationAtOwner(false)
                            .withIncrementalMaxMarks(10);
            assertSame(type, c.modelType());
        }
    }

    @Test
    void incrementalPredictionsBringTheirModelsType() {
        for (ModelType type : ModelType.values()) {
            ModelConfig model =
                    ModelConfig.builder().modelType(type).inFeatures(4).numClasses(2).build();
            assertSame(type, base().withIncremental(model, false, 5).modelType());
        }
    }
}
