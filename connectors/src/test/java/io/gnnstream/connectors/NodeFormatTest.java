package io.gnnstream.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeFormatTest {

    private final NodeFormat format = new NodeFormat(3, 4, false);

    @Test
    void parsesLabelledNode() throws Exception {
        NodeUpdate node =
                format.parse("{\"id\":7,\"label\":3,\"split\":\"train\",\"features\":[1,0,2.5]}");
        assertEquals(new NodeUpdate(7, new float[] {1, 0, 2.5f}, 3, Split.TRAIN), node);
    }

    @Test
    void parsesDeletion() throws Exception {
        NodeUpdate node = format.parse("{\"id\":7,\"op\":\"delete\"}");
        assertEquals(NodeUpdate.deletion(7), node);
        assertTrue(node.delete);
        assertEquals(
                new NodeUpdate(7, new float[] {1, 0, 2}, NodeUpdate.NO_LABEL, Split.NONE),
                format.parse("{\"op\":\"upsert\",\"id\":7,\"features\":[1,0,2]}"),
                "upsert is the default op");
    }

    @Test
    void labelAndSplitAreOptional() throws Exception {
        assertEquals(
                new NodeUpdate(1, new float[] {0, 0, 0}, NodeUpdate.NO_LABEL, Split.NONE),
                format.parse("{\"id\":1,\"features\":[0,0,0]}"));
        assertEquals(
                new NodeUpdate(2, new float[] {1, 1, 1}, NodeUpdate.NO_LABEL, Split.NONE),
                format.parse(
                        " {\"id\":2,\"features\":[1,1,1],\"label\":null,\"split\":\"none\"} "));
        assertEquals(
                new NodeUpdate(3, new float[] {1, 1, 1}, 0, Split.NONE),
                format.parse("{\"id\":3,\"features\":[1,1,1],\"label\":0}"));
    }

    @Test
    void ignoresUnknownFieldsAndAcceptsSplitInAnyCase() throws Exception {
        NodeUpdate node =
                format.parse(
                        "{\"name\":{\"a\":[1,2]},\"id\":4,\"features\":[-1,1e-3,3],"
                                + "\"label\":2,\"split\":\"VAL\"}");
        assertEquals(new NodeUpdate(4, new float[] {-1, 1e-3f, 3}, 2, Split.VAL), node);
    }

    @Test
    void rowNormalizationDividesByPositiveRowSum() throws Exception {
        NodeFormat normalizing = new NodeFormat(4, 2, true);
        assertArrayEquals(
                new float[] {0.25f, 0, 0.75f, 0},
                normalizing.parse("{\"id\":1,\"features\":[1,0,3,0]}").features);
        assertArrayEquals(
                new float[] {0, 0, 0, 0},
                normalizing.parse("{\"id\":2,\"features\":[0,0,0,0]}").features);
        assertArrayEquals(
                new float[] {-2, 1, 0, 0},
                normalizing.parse("{\"id\":3,\"features\":[-2,1,0,0]}").features);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "``                                                     | empty record",
                "{                                                      | unparseable JSON",
                "{\"id\":1,\"features\":[1,2,3]                         | unparseable JSON",
                "[1,2,3]                                                | expected a JSON object,"
                        + " got an array",
                "{\"id\":1,\"id\":2,\"features\":[1,2,3]}               | unparseable JSON:"
                        + " Duplicate field 'id'",
                "{\"id\":1,\"features\":[1,2,3]}{}                      | unexpected content after"
                        + " the JSON object",
                "{\"features\":[1,2,3]}                                 | missing field 'id'",
                "{\"id\":\"a\",\"features\":[1,2,3]}                    | id must be a non-negative"
                        + " integer, got \"a\"",
                "{\"id\":1.5,\"features\":[1,2,3]}                      | id must be a non-negative"
                        + " integer, got 1.5",
                "{\"id\":99999999999999999999,\"features\":[1,2,3]}     | id is out of 64-bit"
                        + " range",
                "{\"id\":-3,\"features\":[1,2,3]}                       | id must be non-negative,"
                        + " got -3",
                "{\"id\":1}                                             | missing field 'features'",
                "{\"id\":1,\"features\":\"1,2,3\"}                      | features must be an array"
                        + " of numbers",
                "{\"id\":1,\"features\":null}                           | features must be an array"
                        + " of numbers, got null",
                "{\"id\":1,\"features\":[1,2]}                          | wrong feature dimension:"
                        + " expected 3, got 2",
                "{\"id\":1,\"features\":[1,2,3,4]}                      | wrong feature dimension:"
                        + " expected 3, got 4",
                "{\"id\":1,\"features\":[1,\"x\",3]}                    | feature 1 is not a"
                        + " number: \"x\"",
                "{\"id\":1,\"features\":[1,null,3]}                     | feature 1 is not a"
                        + " number: null",
                "{\"id\":1,\"features\":[1,[2],3]}                      | feature 1 is not a"
                        + " number: an array",
                "{\"id\":1,\"features\":[1,2,NaN]}                      | feature 2 is NaN",
                "{\"id\":1,\"features\":[Infinity,2,3]}                 | feature 0 is infinite",
                "{\"id\":1,\"features\":[1,-Infinity,3]}                | feature 1 is infinite",
                "{\"id\":1,\"features\":[1,2,1e39]}                     | feature 2 overflows"
                        + " float: 1e39",
                "{\"id\":1,\"features\":[-1e400,2,3]}                   | feature 0 overflows"
                        + " float",
                "{\"id\":1,\"features\":[1,2,3],\"split\":\"holdout\"}  | unknown split"
                        + " \"holdout\", expected train, val, test or none",
                "{\"id\":1,\"features\":[1,2,3],\"split\":1}            | split must be a string",
                "{\"id\":1,\"features\":[1,2,3],\"label\":4}            | label 4 out of range [0,"
                        + " 4)",
                "{\"id\":1,\"features\":[1,2,3],\"label\":-1}           | label -1 out of range [0,"
                        + " 4)",
                "{\"id\":1,\"features\":[1,2,3],\"label\":3000000000}   | label 3000000000 out of"
                        + " range [0, 4)",
                "{\"id\":1,\"features\":[1,2,3],\"label\":1.5}          | label must be an integer,"
                        + " got 1.5",
                "{\"id\":1,\"features\":[1,2,3],\"label\":\"2\"}        | label must be an integer,"
                        + " got \"2\"",
                "{\"id\":1,\"features\":[1,2,3],\"split\":\"train\"}    | split 'train' requires a"
                        + " label",
                "{\"id\":1,\"features\":[1,2,3],\"split\":\"test\",\"label\":null} | split 'test'"
                        + " requires a label",
                "{\"id\":1,\"op\":\"remove\"}                         | op must be \"upsert\" or"
                        + " \"delete\"",
                "{\"id\":1,\"op\":1}                                | op must be",
                "{\"id\":1,\"op\":\"delete\",\"features\":[1,2,3]}   | a deletion takes no"
                        + " features",
                "{\"id\":1,\"op\":\"delete\",\"label\":2}            | a deletion takes no",
                "{\"op\":\"delete\"}                                 | missing field 'id'",
            })
    void rejectsWithReason(String line, String reason) {
        InvalidRecordException e =
                assertThrows(InvalidRecordException.class, () -> format.parse(line));
        assertTrue(
                e.getMessage().contains(reason),
                () -> "reason '" + e.getMessage() + "' lacks '" + reason + "'");
    }

    @Test
    void rejectsInvalidConfiguration() {
        assertThrows(IllegalArgumentException.class, () -> new NodeFormat(0, 2, false));
        assertThrows(IllegalArgumentException.class, () -> new NodeFormat(2, 0, false));
    }

    @Test
    void producesPojoTypeWithoutKryo() {
        assertInstanceOf(PojoTypeInfo.class, format.producedType());
        SerializerConfigImpl config = new SerializerConfigImpl();
        config.setGenericTypes(false);
        format.producedType().createSerializer(config);
    }
}
