package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.Gradients;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ParamInfo;
import io.gnnstream.operators.model.TrainResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One model type's reference ({@link ReferenceFolder}) against a model of the backend under test:
 * the initial parameters bit for bit, then the first gradient, and the parameters after each
 * training step, each tensor within the tolerance ({@link TensorCheck}); the losses likewise.
 * Prints a line per failing tensor and one per stage with its worst tensor.
 */
final class ReferenceCheck {

    private final Path dir;
    private final String model;
    private final double tolerance;
    private final CheckReport report;
    private final List<TensorCheck> checks = new ArrayList<>();
    private final List<Map<String, Object>> losses = new ArrayList<>();

    private ReferenceCheck(Path dir, String model, double tolerance, CheckReport report) {
        this.dir = dir;
        this.model = model;
        this.tolerance = tolerance;
        this.report = report;
    }

    /**
     * Checks the model type {@code model} (its folder under {@code root}) on {@code batch}, {@code
     * steps} training steps; returns the results for the JSON report. Failures go to {@code
     * report}; an exception (a missing file, the backend failing) ends the check and is counted by
     * the caller.
     */
    static Map<String, Object> run(
            Path root,
            String model,
            MiniBatch batch,
            int steps,
            ModelBackend backend,
            double tolerance,
            CheckReport report)
            throws IOException {
        ReferenceCheck c = new ReferenceCheck(root.resolve(model), model, tolerance, report);
        int before = report.failures();
        c.check(batch, steps, backend);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("passed", report.failures() == before);
        out.put("losses", c.losses);
        out.put("tensors", c.checks.stream().map(TensorCheck::toJson).toList());
        return out;
    }

    private void check(MiniBatch batch, int steps, ModelBackend backend) throws IOException {
        ModelConfig config = ReferenceFolder.readConfig(dir);
        Properties outcomes = ReferenceFolder.load(dir.resolve(ReferenceFolder.OUTCOMES));
        try (GnnModel m = backend.open(config)) {
            List<ParamInfo> params = m.parameters();
            checkNames(params);
            stage(ReferenceFolder.INITIAL, params, 0);
            Gradients g = m.computeGradients(batch);
            stage(ReferenceFolder.GRADIENT, ReferenceFolder.slice(params, g.grad()), tolerance);
            loss(ReferenceFolder.GRADIENT, g.loss(), g.correct(), outcomes);
            for (int k = 1; k <= steps; k++) {
                TrainResult r = m.trainStep(batch);
                String step = ReferenceFolder.step(k);
                loss(step, r.loss(), r.correct(), outcomes);
                stage(step, m.parameters(), tolerance);
            }
        }
    }

    /** The model's tensors must be those of the reference, by name. */
    private void checkNames(List<ParamInfo> params) throws IOException {
        Set<String> ours =
                params.stream().map(ParamInfo::name).collect(Collectors.toCollection(TreeSet::new));
        Set<String> theirs;
        try (Stream<Path> s = Files.list(dir.resolve(ReferenceFolder.INITIAL))) {
            theirs =
                    s.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".npy"))
                            .map(n -> n.substring(0, n.length() - 4))
                            .collect(Collectors.toCollection(TreeSet::new));
        }
        if (!ours.equals(theirs)) {
            report.fail(model + " tensors: the model has " + ours + ", the reference " + theirs);
        }
    }

    private void stage(String stage, List<ParamInfo> got, double tol) throws IOException {
        Path stageDir = dir.resolve(stage);
        TensorCheck worst = null;
        for (ParamInfo p : got) {
            float[] want = ReferenceFolder.readTensor(stageDir, p);
            TensorCheck c = TensorCheck.compare(stage, p.name(), p.values(), want, tol);
            checks.add(c);
            if (!c.ok()) {
                report.fail(
                        String.format(
                                java.util.Locale.ROOT,
                                "%s %s %s: max|d| %.3g (flat index %d: %s, reference %s),"
                                        + " max|ref| %.3g, ratio %.3g > %s",
                                model,
                                stage,
                                p.name(),
                                c.maxAbsDiff(),
                                c.worstIndex(),
                                value(p.values(), c.worstIndex()),
                                value(want, c.worstIndex()),
                                c.maxAbsRef(),
                                c.ratio(),
                                tol == 0 ? "0 (must be bit-identical)" : tol));
            }
            if (worst == null
                    || Double.isNaN(c.ratio())
                    || (!Double.isNaN(worst.ratio()) && c.ratio() > worst.ratio())) {
                worst = c;
            }
        }
        if (worst != null) {
            report.printf(
                    "  %-4s %-9s %d tensors, worst max|d|/max|ref| %.3g (%s)%s",
                    model,
                    stage,
                    got.size(),
                    worst.ratio(),
                    worst.tensor(),
                    tol == 0 ? ", bit-identical: " + (checksOk(stage) ? "yes" : "NO") : "");
        }
    }

    private static String value(float[] values, int i) {
        return i >= 0 && i < values.length ? Float.toString(values[i]) : "-";
    }

    private boolean checksOk(String stage) {
        return checks.stream().filter(c -> c.stage().equals(stage)).allMatch(TensorCheck::ok);
    }

    private void loss(String stage, double loss, int correct, Properties outcomes)
            throws IOException {
        Path file = dir.resolve(ReferenceFolder.OUTCOMES);
        double want = Double.parseDouble(ReferenceFolder.field(outcomes, stage + ".loss", file));
        int wantCorrect =
                Integer.parseInt(ReferenceFolder.field(outcomes, stage + ".correct", file));
        double rel = Math.abs(loss - want) / Math.abs(want);
        boolean ok = rel <= tolerance;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stage", stage);
        m.put("loss", loss);
        m.put("reference", want);
        m.put("relative_diff", rel);
        m.put("correct", correct);
        m.put("reference_correct", wantCorrect);
        m.put("ok", ok);
        losses.add(m);
        if (!ok) {
            report.fail(
                    String.format(
                            java.util.Locale.ROOT,
                            "%s %s loss: %.8g, reference %.8g (relative %.3g > %s)",
                            model,
                            stage,
                            loss,
                            want,
                            rel,
                            tolerance));
        } else if (correct != wantCorrect) {
            // A near tie among the logits can flip a prediction within the tolerance: a note only.
            report.printf(
                    "  note: %s %s: %d correct, the reference %d",
                    model, stage, correct, wantCorrect);
        }
    }
}
