package io.gnnstream.connectors;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Parses raw records with a {@link RecordFormat}. Valid records go to the main output; invalid ones
 * go, with their reason, to the side output {@link #REJECTS} (wire it to {@link
 * KafkaIO#deadLetterSink}) so that bad input neither stops the job nor disappears silently.
 * Counters {@value #RECORDS_METRIC} and {@value #REJECTS_METRIC} count both outcomes.
 *
 * <p>An unexpected runtime exception from the format is dead-lettered as well: a record that
 * crashes the parser would otherwise fail the job again after every restore.
 */
public class ParseFunction<T> extends ProcessFunction<RawRecord, T>
        implements ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    /** Side output of records that failed to parse. */
    public static final OutputTag<Reject> REJECTS =
            new OutputTag<>("rejects", TypeInformation.of(Reject.class));

    /** Counter of records parsed and emitted. */
    public static final String RECORDS_METRIC = "records";

    /** Counter of records sent to {@link #REJECTS}. */
    public static final String REJECTS_METRIC = "rejects";

    private final RecordFormat<T> format;

    private transient Counter records;
    private transient Counter rejects;

    public ParseFunction(RecordFormat<T> format) {
        if (format == null) {
            throw new IllegalArgumentException("format must not be null");
        }
        this.format = format;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        records = getRuntimeContext().getMetricGroup().counter(RECORDS_METRIC);
        rejects = getRuntimeContext().getMetricGroup().counter(REJECTS_METRIC);
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<T> out) {
        T parsed;
        try {
            parsed = format.parse(raw.value);
        } catch (InvalidRecordException e) {
            reject(raw, e.getMessage(), ctx);
            return;
        } catch (RuntimeException e) {
            reject(raw, "parser failure: " + e, ctx);
            return;
        }
        records.inc();
        out.collect(parsed);
    }

    private void reject(RawRecord raw, String reason, Context ctx) {
        rejects.inc();
        ctx.output(REJECTS, Reject.of(raw, reason));
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return format.producedType();
    }
}
