package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/** The model type in {@link ModelConfig} and {@link ModelType#parse}. */
class ModelConfigTypeTest {

    @Test
    void parseAcceptsNamesInAnyCase() {
        assertEquals(ModelType.SAGE, ModelType.parse("sage"));
        assertEquals(ModelType.SAGE, ModelType.parse("SAGE"));
        assertEquals(ModelType.GCN, ModelType.parse(" Gcn "));
        for (String bad : new String[] {"gin", "", "graphsage"}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ModelType.parse(bad));
            assertTrue(
                    e.getMessage().contains("'" + bad + "'")
                            && e.getMessage().contains("sage, gcn"),
                    e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ModelType.parse(null));
        assertEquals("gcn", ModelType.GCN.id());
    }

    @Test
    void defaultIsSageAndOldConstructorsMeanSage() {
        assertEquals(
                ModelType.SAGE,
                ModelConfig.builder().inFeatures(4).numClasses(2).build().modelType());
        assertEquals(ModelType.SAGE, new ModelConfig(4, 8, 2, 2, 0.5, 0.01, 0.0, 1L).modelType());
        assertEquals(
                ModelType.SAGE, new ModelConfig(4, 8, 2, 2, 0.5, 0.01, 0.0, 1L, 10L).modelType());
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () ->
                                ModelConfig.builder()
                                        .modelType(null)
                                        .inFeatures(4)
                                        .numClasses(2)
                                        .build());
        assertTrue(e.getMessage().startsWith("modelType"), e.getMessage());
    }

    @Test
    void parameterCountsDependOnTheType() {
        ModelConfig sage =
                ModelConfig.builder().inFeatures(8).hidden(5).numClasses(3).numLayers(3).build();
        ModelConfig gcn =
                ModelConfig.builder()
                        .modelType(ModelType.GCN)
                        .inFeatures(8)
                        .hidden(5)
                        .numClasses(3)
                        .numLayers(3)
                        .build();
        assertEquals((2 * 8 + 1) * 5 + (2 * 5 + 1) * 5 + (2 * 5 + 1) * 3, sage.numParameters());
        assertEquals(8 * 5 + 5, gcn.layerParameters(0));
        assertEquals(8 * 5 + 5 + 5 * 5 + 5 + 5 * 3 + 3, gcn.numParameters());
        assertEquals(sage.numParameters(), new SageModel(sage).parameterVector().length);
        assertEquals(gcn.numParameters(), new GcnModel(gcn).parameterVector().length);
    }

    @Test
    void typeTakesPartInEqualityMapAndSerialization() throws Exception {
        ModelConfig sage = ModelConfig.builder().inFeatures(8).numClasses(3).seed(4).build();
        ModelConfig gcn =
                ModelConfig.builder()
                        .modelType(ModelType.GCN)
                        .inFeatures(8)
                        .numClasses(3)
                        .seed(4)
                        .build();
        assertNotEquals(sage, gcn);
        assertNotEquals(sage.hashCode(), gcn.hashCode());
        assertEquals(
                gcn,
                ModelConfig.builder()
                        .modelType(ModelType.GCN)
                        .inFeatures(8)
                        .numClasses(3)
                        .seed(4)
                        .build());
        assertEquals("sage", sage.toMap().get("model"));
        assertEquals("gcn", gcn.toMap().get("model"));
        assertTrue(gcn.toString().contains("model=gcn"), gcn.toString());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(gcn);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            ModelConfig back = (ModelConfig) in.readObject();
            assertEquals(gcn, back);
            assertEquals(ModelType.GCN, back.modelType());
        }
    }
}
