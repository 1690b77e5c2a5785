package io.gnnstream.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.records.EdgeUpdate;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ParseFunctionTest {

    private static final List<RawRecord> INPUT =
            List.of(
                    new RawRecord("edges", 0, 10, "1,2"),
                    new RawRecord("edges", 0, 11, "1,x"),
                    new RawRecord("edges", 1, 5, "{\"src\":3,\"dst\":4,\"op\":\"remove\"}"),
                    new RawRecord("edges", 1, 6, ""),
                    new RawRecord("edges", 1, 7, "5,6,-,100"));

    @Test
    void validRecordsGoToMainOutputAndInvalidOnesToRejects() throws Exception {
        try (OneInputStreamOperatorTestHarness<RawRecord, EdgeUpdate> harness =
                ProcessFunctionTestHarnesses.forProcessFunction(
                        new ParseFunction<>(new EdgeFormat()))) {
            for (RawRecord raw : INPUT) {
                harness.processElement(raw, 0);
            }
            assertEquals(
                    List.of(
                            EdgeUpdate.add(1, 2),
                            new EdgeUpdate(3, 4, true, EdgeUpdate.NO_TIMESTAMP),
                            new EdgeUpdate(5, 6, true, 100)),
                    harness.extractOutputValues());

            List<Reject> rejects = rejects(harness);
            assertEquals(2, rejects.size());
            Reject first = rejects.get(0);
            assertEquals("edges", first.topic);
            assertEquals(0, first.partition);
            assertEquals(11, first.offset);
            assertEquals("1,x", first.value);
            assertTrue(first.reason.contains("dst is not a 64-bit integer"), first.reason);
            Reject second = rejects.get(1);
            assertEquals(1, second.partition);
            assertEquals(6, second.offset);
            assertEquals("", second.value);
            assertTrue(second.reason.contains("empty record"), second.reason);
        }
    }

    @Test
    void countsRecordsAndRejects() throws Exception {
        CapturingTaskMetricGroup metrics = new CapturingTaskMetricGroup();
        try (MockEnvironment environment =
                        new MockEnvironmentBuilder().setMetricGroup(metrics).build();
                OneInputStreamOperatorTestHarness<RawRecord, EdgeUpdate> harness =
                        new OneInputStreamOperatorTestHarness<>(
                                new ProcessOperator<>(new ParseFunction<>(new EdgeFormat())),
                                environment)) {
            harness.open();
            for (RawRecord raw : INPUT) {
                harness.processElement(raw, 0);
            }
            assertEquals(
                    3, ((Counter) metrics.operator.get(ParseFunction.RECORDS_METRIC)).getCount());
            assertEquals(
                    2, ((Counter) metrics.operator.get(ParseFunction.REJECTS_METRIC)).getCount());
        }
    }

    @Test
    void unexpectedParserFailureIsDeadLetteredNotThrown() throws Exception {
        RecordFormat<String> broken =
                new RecordFormat<>() {
                    @Override
                    public String parse(String value) {
                        throw new IllegalStateException("bug for " + value);
                    }

                    @Override
                    public TypeInformation<String> producedType() {
                        return TypeInformation.of(String.class);
                    }
                };
        try (OneInputStreamOperatorTestHarness<RawRecord, String> harness =
                ProcessFunctionTestHarnesses.forProcessFunction(new ParseFunction<>(broken))) {
            harness.processElement(new RawRecord("t", 0, 0, "v"), 0);
            assertTrue(harness.extractOutputValues().isEmpty());
            List<Reject> rejects = rejects(harness);
            assertEquals(1, rejects.size());
            assertTrue(
                    rejects.get(0)
                            .reason
                            .contains("parser failure: java.lang.IllegalStateException: bug for v"),
                    rejects.get(0).reason);
        }
    }

    @Test
    void typeComesFromTheFormat() {
        assertEquals(
                new EdgeFormat().producedType(),
                new ParseFunction<>(new EdgeFormat()).getProducedType());
        assertEquals(TypeInformation.of(Reject.class), ParseFunction.REJECTS.getTypeInfo());
    }

    private static List<Reject> rejects(OneInputStreamOperatorTestHarness<RawRecord, ?> harness) {
        List<Reject> out = new ArrayList<>();
        if (harness.getSideOutput(ParseFunction.REJECTS) != null) {
            for (StreamRecord<Reject> r : harness.getSideOutput(ParseFunction.REJECTS)) {
                out.add(r.getValue());
            }
        }
        return out;
    }

    /**
     * Hands every operator the same intercepting group, so the test can read the function's
     * counters.
     */
    private static final class CapturingTaskMetricGroup
            extends UnregisteredMetricGroups.UnregisteredTaskMetricGroup {
        final InterceptingOperatorMetricGroup operator = new InterceptingOperatorMetricGroup();

        @Override
        public InternalOperatorMetricGroup getOrAddOperator(OperatorID operatorID, String name) {
            return operator;
        }
    }
}
