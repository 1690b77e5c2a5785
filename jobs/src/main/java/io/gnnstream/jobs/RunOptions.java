package io.gnnstream.jobs;

import static io.gnnstream.jobs.OptionCheck.nonNegative;
import static io.gnnstream.jobs.OptionCheck.positive;
import static io.gnnstream.jobs.OptionCheck.that;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * Flink settings a run of the job is commonly given on the command line. They use Flink's own keys,
 * so a cluster's configuration file sets them as well.
 */
public final class RunOptions {

    private RunOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Run");

    public static final ConfigOption<Integer> PARALLELISM =
            GROUP.declare(
                    ConfigOptions.key(CoreOptions.DEFAULT_PARALLELISM.key())
                            .intType()
                            .defaultValue(1)
                            .withDescription(
                                    "Parallelism of the graph store and sampling operators."),
                    "--parallelism",
                    positive());

    public static final ConfigOption<String> CHECKPOINT_DIR =
            GROUP.declare(
                    ConfigOptions.key(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key())
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Checkpoint directory: a Flink file system URI or a local path"
                                            + " (default: <work dir>/checkpoints)."),
                    "--checkpoint-dir",
                    that(s -> !s.isBlank(), "must not be empty"));

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
            GROUP.declare(
                    ConfigOptions.key(CheckpointingOptions.CHECKPOINTING_INTERVAL.key())
                            .durationType()
                            .defaultValue(Duration.ofSeconds(10))
                            .withDescription("Checkpoint interval, e.g. 10s, 2min."),
                    "--checkpoint-interval",
                    that(d -> !d.isNegative() && !d.isZero(), "must be positive"));

    public static final ConfigOption<Integer> MAX_RESTARTS =
            GROUP.declare(
                    ConfigOptions.key(
                                    RestartStrategyOptions
                                            .RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS
                                            .key())
                            .intType()
                            .defaultValue(20)
                            .withDescription(
                                    "Restarts from the last checkpoint after failures in a row,"
                                        + " each after a delay doubling from 2 s to 1 min, before"
                                        + " the job fails and demo, train and submit --follow exit"
                                        + " with its cause (Flink's exponential-delay restart"
                                        + " strategy, used unless restart-strategy.type is"
                                        + " configured). A lost TaskManager or an expired"
                                        + " checkpoint is ridden out; a failure that repeats at"
                                        + " every restore ends sooner (--max-same-failures)."
                                        + " Failures at the same time count once; the count starts"
                                        + " again after --restart-reset-after without a failure."),
                    "--max-restarts",
                    positive());

    private static final ConfigOption<Duration> RESET_BACKOFF_THRESHOLD =
            RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD;

    public static final ConfigOption<Duration> RESTART_RESET_AFTER =
            GROUP.declare(
                    ConfigOptions.key(RESET_BACKOFF_THRESHOLD.key())
                            .durationType()
                            .defaultValue(Duration.ofMinutes(30))
                            .withDescription(
                                    "Time without a failure after which the restarts of"
                                        + " --max-restarts and their delay are counted from zero"
                                        + " again, e.g. 30min."),
                    "--restart-reset-after",
                    that(d -> !d.isNegative() && !d.isZero(), "must be positive"));

    public static final ConfigOption<Integer> MAX_SAME_FAILURES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.max-same-failures")
                            .intType()
                            .defaultValue(3)
                            .withDescription(
                                    "demo, train and submit --follow cancel the job and exit 1 with"
                                        + " its cause when it fails this many times in a row with"
                                        + " the same root cause (class and message, numbers aside)"
                                        + " and no progress between the failures (no completed"
                                        + " checkpoint, no training step further than before): a"
                                        + " failure that repeats at every restore ends within a"
                                        + " minute instead of after --max-restarts. Failures of the"
                                        + " environment (a lost TaskManager, missing slots,"
                                        + " timeouts, an expired checkpoint, a retriable Kafka"
                                        + " error) are left to --max-restarts. 0: never."),
                    nonNegative());

    private static final String FAULT_OPERATORS =
            "(trainer|gradient-reducer|graph-store|graph-store-ingest|layer-store|edge-bundles"
                    + "|replica-router)";

    private static final String FAULT_SPEC = FAULT_OPERATORS + ":\\d+:\\d+(:always)?";

    public static final ConfigOption<String> INJECT_FAULT =
            GROUP.declareHidden(
                    ConfigOptions.key("gnnstream.test.inject-fault")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Failure injection for tests: operator:subtask:n makes that"
                                        + " subtask of trainer (at step n), gradient-reducer (at"
                                        + " its n-th contribution), graph-store (at its n-th sample"
                                        + " request), graph-store-ingest (at its n-th graph update:"
                                        + " edge bundle, node update, deletion or replica message),"
                                        + " layer-store (the graph store at its n-th stored record"
                                        + " of layer outputs), edge-bundles (at its n-th edge) or"
                                        + " replica-router (at its n-th input) throw once (needs"
                                        + " --fault-marker), or with a fourth field,"
                                        + " operator:subtask:n:always, at every attempt. Several"
                                        + " specs, separated by commas, inject one failure each."),
                    that(
                            s -> s.matches(FAULT_SPEC + "(," + FAULT_SPEC + ")*"),
                            "must be " + FAULT_OPERATORS + ":subtask:n[:always], comma-separated"));

    public static final ConfigOption<String> FAULT_MARKER =
            GROUP.declareHidden(
                    ConfigOptions.key("gnnstream.test.fault-marker")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "File created when the injected failure happens, so that it"
                                            + " happens once."),
                    that(s -> !s.isBlank(), "must not be empty"));
}
