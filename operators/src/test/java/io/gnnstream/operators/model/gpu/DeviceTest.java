package io.gnnstream.operators.model.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeviceTest {

    @Test
    void parsesTheThreeForms() {
        assertEquals(Device.CPU, Device.parse("cpu"));
        assertFalse(Device.parse("CPU").cuda());
        Device any = Device.parse("cuda");
        assertTrue(any.cuda());
        assertEquals(-1, any.index());
        assertEquals(new Device(true, 3), Device.parse(" cuda:3 "));
        assertEquals("cuda:3", Device.parse("cuda:3").toString());
        assertEquals("cuda", any.toString());
    }

    @Test
    void resolvesTheNamedThenTheAssignedThenTheFirstGpu() {
        assertEquals(2, Device.parse("cuda:2").resolve(1));
        assertEquals(1, Device.parse("cuda").resolve(1));
        assertEquals(0, Device.parse("cuda").resolve(-1));
        assertThrows(IllegalStateException.class, () -> Device.CPU.resolve(0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:99999", ""})
    void refusesOtherValuesNamingTheAcceptedOnes(String text) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Device.parse(text));
        assertTrue(e.getMessage().startsWith("device must be cpu, cuda or cuda:N"), e.getMessage());
    }
}
