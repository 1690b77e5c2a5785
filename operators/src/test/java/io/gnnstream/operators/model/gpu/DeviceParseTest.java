package io.gnnstream.operators.model.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Device}: the values of {@code --device}, the index a rank opens, Java serialization. */
@Timeout(10)
class DeviceParseTest {

    @Test
    void parsesCpuCudaAndCudaWithAnIndex() {
        assertSame(Device.CPU, Device.parse("cpu"));
        assertSame(Device.CPU, Device.parse(" CPU "));
        assertEquals(new Device(true, -1), Device.parse("cuda"));
        assertEquals(new Device(true, 0), Device.parse("cuda:0"));
        assertEquals(new Device(true, 7), Device.parse("CUDA:7"));
        assertFalse(Device.parse("cpu").cuda());
        assertTrue(Device.parse("cuda:3").cuda());
        assertEquals(3, Device.parse("cuda:3").index());
        assertEquals(-1, Device.parse("cuda").index());
    }

    @Test
    void printsAsParsed() {
        for (String text : new String[] {"cpu", "cuda", "cuda:0", "cuda:12"}) {
            assertEquals(text, Device.parse(text).toString());
        }
    }

    @Test
    void rejectsOtherValuesNamingTheAcceptedForms() {
        for (String bad :
                new String[] {"gpu", "cuda:x", "cuda:", "cuda:-1", "cuda:1:2", "", "cpu:0"}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Device.parse(bad), bad);
            assertTrue(
                    e.getMessage().contains("device must be cpu, cuda or cuda:N")
                            && e.getMessage().contains("'" + bad + "'"),
                    e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Device.parse(null));
    }

    @Test
    void resolvesTheNamedIndexElseTheAssignedOneElseZero() {
        assertEquals(2, Device.parse("cuda:2").resolve(5), "a named index wins");
        assertEquals(2, Device.parse("cuda:2").resolve(-1));
        assertEquals(5, Device.parse("cuda").resolve(5), "else the slot's GPU");
        assertEquals(0, Device.parse("cuda").resolve(-1), "else device 0");
        assertThrows(IllegalStateException.class, () -> Device.CPU.resolve(0));
    }

    @Test
    void aRankPicksTheRankModNthOfTheGpusInOrder() {
        assertEquals(-1, Device.pick(java.util.List.of(), 3));
        assertEquals(2, Device.pick(java.util.List.of(5, 2), 0));
        assertEquals(5, Device.pick(java.util.List.of(5, 2), 3));
    }

    @Test
    void travelsInJavaSerialization() throws Exception {
        for (Device d : new Device[] {Device.CPU, Device.parse("cuda"), Device.parse("cuda:4")}) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(d);
            }
            try (ObjectInputStream in =
                    new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                assertEquals(d, in.readObject());
            }
        }
    }
}
