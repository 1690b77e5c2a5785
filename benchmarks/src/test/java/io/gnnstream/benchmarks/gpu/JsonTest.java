package io.gnnstream.benchmarks.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void writeThenParseGivesTheValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a \"quoted\"\\ line\n\tend\u0001");
        m.put("count", 3);
        m.put("rate", 1234.5678);
        m.put("small", 1.5e-7);
        m.put("nan", Double.NaN);
        m.put("ok", true);
        m.put("none", null);
        m.put("list", List.of(1, 2.5, "x"));
        m.put("steps", new double[] {0.25, 2});
        m.put("empty", Map.of());
        Map<?, ?> back = (Map<?, ?>) Json.parse(Json.write(m));
        assertEquals(m.get("name"), back.get("name"));
        assertEquals(3.0, back.get("count"));
        assertEquals(1234.5678, back.get("rate"));
        assertEquals(1.5e-7, back.get("small"));
        assertEquals(null, back.get("nan"));
        assertTrue(back.containsKey("nan"));
        assertEquals(true, back.get("ok"));
        assertEquals(List.of(1.0, 2.5, "x"), back.get("list"));
        assertEquals(List.of(0.25, 2.0), back.get("steps"));
        assertEquals(Map.of(), back.get("empty"));
    }

    @Test
    void parsesWhatPythonsJsonModuleWrites() {
        Object v =
                Json.parse(
                        "{\"torch\": \"2.9.0+cu130\", \"seeds_per_s\": [1.5e5, NaN, Infinity,"
                                + " -Infinity], \"x\": {\"y\": [] }, \"u\": \"\\u00e9\"}");
        Map<?, ?> m = (Map<?, ?>) v;
        assertEquals("2.9.0+cu130", m.get("torch"));
        List<?> r = (List<?>) m.get("seeds_per_s");
        assertEquals(150000.0, r.get(0));
        assertTrue(Double.isNaN((Double) r.get(1)));
        assertEquals(Double.NEGATIVE_INFINITY, r.get(3));
        assertEquals("\u00e9", m.get("u"));
        for (String bad : Arrays.asList("{", "[1,]x", "{\"a\" 1}", "\"open", "tru", "{} 1")) {
            assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
        }
    }
}
