package io.gnnstream.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** One console line per metrics record, aligned so a run can be followed at a glance. */
public final class ProgressFormat {

    private ProgressFormat() {}

    /** The training phase of a final line: from the first step to the final evaluation's end. */
    public static double trainingSeconds(JsonNode m) {
        return m.path("elapsed_s").asDouble() - m.path("first_step_s").asDouble();
    }

    public static String format(JsonNode m) {
        if (m.path("final").asBoolean(false)) {
            String kept =
                    m.has("select")
                            ? String.format(
                                    Locale.ROOT,
                                    " | kept (%s): step %d",
                                    m.path("select").asText(),
                                    m.path("selected_step").asLong())
                            : "";
            if (m.has("served_step")) {
                kept +=
                        String.format(
                                Locale.ROOT, ", serving step %d", m.path("served_step").asLong());
            }
            return String.format(
                            Locale.ROOT,
                            "final  step %d | test acc %.4f (val %.4f) | best val %.4f at step %d"
                                + " -> test %.4f | %.1fs | training %.1fs, of it evaluation %.1fs",
                            m.path("step").asLong(),
                            m.path("test_acc").asDouble(),
                            m.path("val_acc").asDouble(),
                            m.path("best_val_acc").asDouble(),
                            m.path("best_val_step").asLong(),
                            m.path("best_val_test_acc").asDouble(),
                            m.path("elapsed_s").asDouble(),
                            trainingSeconds(m),
                            m.path("eval_s").asDouble())
                    + kept;
        }
        StringBuilder b =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "step %5d | loss %.4f | train acc %.3f",
                                m.path("step").asLong(),
                                m.path("loss").asDouble(),
                                m.path("train_acc").asDouble()));
        if (m.has("val_acc")) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            " | val acc %.3f | test acc %.3f",
                            m.path("val_acc").asDouble(),
                            m.path("test_acc").asDouble()));
        }
        b.append(
                String.format(
                        Locale.ROOT,
                        " | %6.0f seeds/s (trainer %6.0f, busy %3.0f%%) | edges %d | vertices %d |"
                                + " %.1fs",
                        m.path("seeds_per_s").asDouble(),
                        m.path("trainer_seeds_per_s").asDouble(),
                        100 * m.path("busy").asDouble(),
                        m.path("edges_ingested").asLong(),
                        m.path("vertices").asLong(),
                        m.path("elapsed_s").asDouble()));
        if (m.has("freshness_p50_ms")) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            " | %d incremental predictions, fresh in %d ms (p99 %d ms)",
                            m.path("incremental_predictions").asLong(),
                            m.path("freshness_p50_ms").asLong(),
                            m.path("freshness_p99_ms").asLong()));
        }
        return b.toString();
    }
}
