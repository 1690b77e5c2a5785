package io.gnnstream.connectors;

import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Parses the text value of one Kafka record into a typed record. Formats are shipped inside Flink
 * functions, hence {@link Serializable}; they must be stateless and thread-safe.
 *
 * @param <T> the parsed record type, a Flink POJO so that it never falls back to Kryo
 */
public interface RecordFormat<T> extends Serializable {

    /**
     * Parses one record value.
     *
     * @throws InvalidRecordException with a human-readable reason when the value is not accepted
     */
    T parse(String value) throws InvalidRecordException;

    /** Type information of the parsed records (a POJO type, never a generic/Kryo type). */
    TypeInformation<T> producedType();
}
