package io.gnnstream.jobs.cli;

import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Makes the typed {@link ConfigOption} defaults the single source of the CLI's defaults, so
 * {@code --help} and a job submitted with a config file agree. An option with its own annotated
 * default keeps it, so that a flag of another command with the same name ({@code generate --seed})
 * is not given a training default.
 */
final class OptionDefaults implements IDefaultValueProvider {

    static final Map<String, ConfigOption<?>> BY_FLAG = Map.ofEntries(
            Map.entry("--partitions", GraphOptions.PARTITIONS),
            Map.entry("--num-features", GraphOptions.NUM_FEATURES),
            Map.entry("--num-classes", GraphOptions.NUM_CLASSES),
            Map.entry("--normalize-features", GraphOptions.NORMALIZE_FEATURES),
            Map.entry("--record-cache", GraphOptions.RECORD_CACHE),
            Map.entry("--adjacency-cache", GraphOptions.ADJACENCY_CACHE),
            Map.entry("--edge-buffer", GraphOptions.EDGE_BUFFER),
            Map.entry("--fanouts", SamplingOptions.FANOUTS),
            Map.entry("--batch-size", SamplingOptions.BATCH_SIZE),
            Map.entry("--eval-batch-size", SamplingOptions.EVAL_BATCH_SIZE),
            Map.entry("--prefetch", SamplingOptions.PREFETCH),
            Map.entry("--max-outstanding-vertices", SamplingOptions.MAX_OUTSTANDING_VERTICES),
            Map.entry("--eval-every", SamplingOptions.EVAL_EVERY),
            Map.entry("--min-train-seeds", SamplingOptions.MIN_TRAIN_SEEDS),
            Map.entry("--batch-timeout-ms", SamplingOptions.BATCH_TIMEOUT_MS),
            Map.entry("--seed", SamplingOptions.SEED),
            Map.entry("--hidden", ModelOptions.HIDDEN),
            Map.entry("--dropout", ModelOptions.DROPOUT),
            Map.entry("--lr", ModelOptions.LEARNING_RATE),
            Map.entry("--weight-decay", ModelOptions.WEIGHT_DECAY),
            Map.entry("--lr-schedule", ModelOptions.LR_SCHEDULE),
            Map.entry("--trainer-threads", ModelOptions.TRAINER_THREADS),
            Map.entry("--feature-cache", ModelOptions.FEATURE_CACHE),
            Map.entry("--log-every", ModelOptions.LOG_EVERY),
            Map.entry("--topic-prefix", KafkaOptions.TOPIC_PREFIX),
            Map.entry("--group-id", KafkaOptions.GROUP_ID));

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec) || argSpec.defaultValue() != null) {
            return null;
        }
        ConfigOption<?> option = BY_FLAG.get(((OptionSpec) argSpec).longestName());
        if (option == null || !option.hasDefaultValue()) {
            return null;
        }
        Object value = option.defaultValue();
        if (value instanceof List) {
            return ((List<?>) value).stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        return String.valueOf(value);
    }
}
