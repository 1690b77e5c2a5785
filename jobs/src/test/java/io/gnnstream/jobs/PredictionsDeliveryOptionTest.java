package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** {@code --predictions-delivery} and {@code --transaction-timeout}. */
class PredictionsDeliveryOptionTest {

    @Test
    void theFlagTakesTheHyphenatedNamesAndRecordsThemSo() {
        JobOption<?> flag = JobOptions.byFlag("--predictions-delivery").orElseThrow();
        assertEquals(KafkaOptions.Delivery.AT_LEAST_ONCE, flag.parse("at-least-once"));
        assertEquals(KafkaOptions.Delivery.EXACTLY_ONCE, flag.parse("exactly-once"));
        assertEquals("exactly-once", flag.defaultText());
        Configuration conf = required();
        conf.set(KafkaOptions.PREDICTIONS_DELIVERY, KafkaOptions.Delivery.AT_LEAST_ONCE);
        Map<String, String> recorded = JobOptions.recorded(conf);
        assertEquals("at-least-once", recorded.get(KafkaOptions.PREDICTIONS_DELIVERY.key()));
        assertEquals(
                KafkaOptions.Delivery.AT_LEAST_ONCE,
                JobOptions.fromRecorded(recorded).get(KafkaOptions.PREDICTIONS_DELIVERY));
    }

    @Test
    void aTransactionMustOutliveACheckpointInterval() {
        Configuration conf = required();
        conf.set(KafkaOptions.TRANSACTION_TIMEOUT, Duration.ofSeconds(10));
        conf.set(RunOptions.CHECKPOINT_INTERVAL, Duration.ofSeconds(10));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertTrue(e.getMessage().contains("--transaction-timeout"), e.getMessage());
        conf.set(KafkaOptions.PREDICTIONS_DELIVERY, KafkaOptions.Delivery.AT_LEAST_ONCE);
        TrainingJob.validate(conf);
        conf.set(KafkaOptions.PREDICTIONS_DELIVERY, KafkaOptions.Delivery.EXACTLY_ONCE);
        conf.set(KafkaOptions.TRANSACTION_TIMEOUT, Duration.ofMinutes(1));
        TrainingJob.validate(conf);
    }

    private static Configuration required() {
        Configuration conf = new Configuration();
        conf.set(GraphOptions.NUM_FEATURES, 8);
        conf.set(GraphOptions.NUM_CLASSES, 3);
        return conf;
    }
}
