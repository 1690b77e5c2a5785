package io.gnnstream.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.records.EdgeUpdate;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EdgeFormatTest {

    private static final long NONE = EdgeUpdate.NO_TIMESTAMP;

    private final EdgeFormat format = new EdgeFormat();

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "1,2                                   | 1 | 2 | false | " + NONE,
                "`  3 ,  4  `                          | 3 | 4 | false | " + NONE,
                "1,2,+                                 | 1 | 2 | false | " + NONE,
                "1,2,-                                 | 1 | 2 | true  | " + NONE,
                "1,2,add                               | 1 | 2 | false | " + NONE,
                "1,2,REMOVE                            | 1 | 2 | true  | " + NONE,
                "1,2,-,1700000000000                   | 1 | 2 | true  | 1700000000000",
                "1,2,1700000000000                     | 1 | 2 | false | 1700000000000",
                "1,2,,5                                | 1 | 2 | false | 5",
                "0,9223372036854775807                 | 0 | 9223372036854775807 | false | " + NONE,
                "{\"src\":1,\"dst\":2}                 | 1 | 2 | false | " + NONE,
                "{\"src\":1,\"dst\":2,\"op\":\"remove\",\"ts\":7} | 1 | 2 | true | 7",
                "` {\"dst\":5,\"src\":6,\"op\":\"add\",\"weight\":0.5} ` | 6 | 5 | false | " + NONE,
                "{\"src\":1,\"dst\":2,\"op\":null,\"ts\":null} | 1 | 2 | false | " + NONE,
            })
    void parsesValidEdges(String line, long src, long dst, boolean remove, long ts)
            throws Exception {
        assertEquals(new EdgeUpdate(src, dst, remove, ts), format.parse(line));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "``                               | empty record",
                "`   `                            | empty record",
                "17                               | missing dst",
                "a,2                              | src is not a 64-bit integer: \"a\"",
                "1,b                              | dst is not a 64-bit integer: \"b\"",
                "1.5,2                            | src is not a 64-bit integer",
                "99999999999999999999,2           | src is not a 64-bit integer",
                "`,2`                             | src is empty",
                "-1,2                             | src must be non-negative, got -1",
                "1,-2                             | dst must be non-negative, got -2",
                "1,2,flip                         | unknown op \"flip\"",
                "1,2,*,5                          | unknown op \"*\"",
                "1,2,+,abc                        | timestamp is not an integer",
                "1,2,+,-5                         | timestamp must be non-negative",
                "1,2,12x                          | timestamp is not an integer",
                "1,2,+,5,6                        | too many fields: 5",
                "{                                | unparseable JSON",
                "{\"src\":1,\"dst\":2} trailing   | unparseable JSON",
                "{\"src\":1,\"src\":2,\"dst\":3}  | unparseable JSON: Duplicate field 'src'",
                "{\"src\":1}                      | missing field 'dst'",
                "{\"dst\":1}                      | missing field 'src'",
                "{\"src\":\"1\",\"dst\":2}        | src must be an integer, got \"1\"",
                "{\"src\":1.5,\"dst\":2}          | src must be an integer, got 1.5",
                "{\"src\":1,\"dst\":1e30}         | dst must be an integer",
                "{\"src\":99999999999999999999,\"dst\":2} | src is out of 64-bit range",
                "{\"src\":-1,\"dst\":2}           | src must be non-negative",
                "{\"src\":1,\"dst\":2,\"op\":\"flip\"} | unknown op \"flip\"",
                "{\"src\":1,\"dst\":2,\"op\":1}   | op must be a string",
                "{\"src\":1,\"dst\":2,\"ts\":\"x\"} | ts must be an integer",
                "{\"src\":1,\"dst\":2,\"ts\":-4}  | timestamp must be non-negative",
            })
    void rejectsWithReason(String line, String reason) {
        InvalidRecordException e =
                assertThrows(InvalidRecordException.class, () -> format.parse(line));
        assertTrue(
                e.getMessage().contains(reason),
                () -> "reason '" + e.getMessage() + "' lacks '" + reason + "'");
    }

    @Test
    void rejectsNull() {
        assertThrows(InvalidRecordException.class, () -> format.parse(null));
    }

    @Test
    void producesPojoTypeWithoutKryo() {
        assertInstanceOf(PojoTypeInfo.class, format.producedType());
        SerializerConfigImpl config = new SerializerConfigImpl();
        config.setGenericTypes(false);
        format.producedType().createSerializer(config);
    }
}
