package io.gnnstream.benchmarks.gpu;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@link GpuCheck}'s options, from plain arguments (no option library: the bundle stays small). */
final class CheckOptions {

    Path reference = Path.of("gpu/bundle/reference");
    int device = 0;
    double tolerance = 1e-4;
    boolean references = true;
    boolean ranks = true;
    boolean timing = true;
    boolean torch = true;
    boolean dryRun = false;
    boolean help = false;

    int rankSteps = 20;
    int rankSeeds = 256;
    int[] rankFanouts = {10, 5};
    int rankFeatures = 128;
    int rankHidden = 256;

    int seeds = 1024;
    int[] fanouts = {25, 10};
    int[] features = {128, 602};
    int hidden = 256;
    int classes = 47;
    int steps = 50;
    int warmup = 10;

    String python = "python3";
    Path torchScript = Path.of("docs/benchmarks/torch_sage.py");
    long torchTimeoutSeconds = 600;

    /** Where gpu-check.txt and gpu-check.json go; null: nowhere. */
    Path out;

    static String usage() {
        return String.join(
                "\n",
                "usage: GpuCheck [options]      (gpu/check.sh runs it on the GPU host)",
                "Checks gnnstream's CUDA backend (GpuModel) on one GPU:",
                "  (a) opens the device and prints its kind;",
                "  (b) per reference model (sage, gcn, written on the CPU by GpuReference): the",
                "      initial parameters bit for bit, the first gradient and the parameters after",
                "      each of the reference's training steps within the tolerance (per tensor",
                "      max|d| / max|ref|), and the losses (relative);",
                "  (c) two ranks on the one GPU: two contexts, two models of one config, trained",
                "      on the same batches concurrently, must have equal checksums after every"
                        + " step;",
                "  (d) times trainStep (median of the timed steps -> seeds/s) for each F;",
                "  (e) runs the plain-PyTorch peer (torch_sage.py --device cuda) on the same"
                        + " batch;",
                "  (f) prints a table: device, F, gnnstream GPU seeds/s, PyTorch CUDA seeds/s,"
                        + " ratio.",
                "Each section catches its own errors and the rest still runs: the timings run even",
                "after a failed check (marked so), since a GPU session is scarce.",
                "",
                "Options:",
                "  --reference DIR      the reference folder (default gpu/bundle/reference)",
                "  --device N           the CUDA device (default 0)",
                "  --tolerance X        per tensor max|d| / max|ref| (default 1e-4)",
                "  --skip-reference     skip (b)          --skip-ranks   skip (c)",
                "  --skip-timing        skip (d) and (e)  --no-torch     skip (e)",
                "  --rank-steps N       steps of (c) (default 20)",
                "  --rank-shape S:F1,F2:F:H  seeds, fanouts, features, hidden of (c)"
                        + " (default 256:10,5:128:256)",
                "  --seeds N            timing batch seeds (default 1024)",
                "  --fanouts A,B        timing fanouts (default 25,10)",
                "  --features A,B       timing feature widths (default 128,602)",
                "  --hidden N           timing hidden width (default 256)",
                "  --classes N          classes of (c) and (d) (default 47)",
                "  --steps N            timed steps (default 50)",
                "  --warmup N           untimed steps first (default 10)",
                "  --python CMD         Python with torch for (e) (default python3)",
                "  --torch-script FILE  (default docs/benchmarks/torch_sage.py)",
                "  --torch-timeout S    seconds per peer run (default 600)",
                "  --out DIR            also write gpu-check.txt and gpu-check.json there",
                "                       (default: $OUT when set)",
                "  --dry-run            no GPU: read the references, load the check's classes and",
                "                       write and read a batch file (checks a bundle on any host)",
                "  -h, --help           this text",
                "Exit status: 0 every check passed; 1 a check failed or no GPU is usable;"
                        + " 2 bad arguments.",
                "");
    }

    /**
     * The options {@code args} give; {@code outEnv} (the environment's {@code OUT}, may be null) is
     * the default of {@code --out}.
     *
     * @throws IllegalArgumentException naming the bad argument
     */
    static CheckOptions parse(String[] args, String outEnv) {
        CheckOptions o = new CheckOptions();
        if (outEnv != null && !outEnv.isBlank()) {
            o.out = Path.of(outEnv);
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h", "--help" -> o.help = true;
                case "--skip-reference" -> o.references = false;
                case "--skip-ranks" -> o.ranks = false;
                case "--skip-timing" -> o.timing = false;
                case "--no-torch" -> o.torch = false;
                case "--dry-run" -> o.dryRun = true;
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(
                                a.startsWith("--")
                                        ? a + " needs a value"
                                        : "unknown argument " + a);
                    }
                    String v = args[++i];
                    o.set(a, v);
                }
            }
        }
        return o;
    }

    private void set(String name, String v) {
        switch (name) {
            case "--reference" -> reference = Path.of(v);
            case "--device" -> device = nonNegative(name, v);
            case "--tolerance" -> {
                tolerance = number(name, v);
                if (!(tolerance >= 0)) {
                    throw new IllegalArgumentException(name + " must be >= 0, got " + v);
                }
            }
            case "--rank-steps" -> rankSteps = positive(name, v);
            case "--rank-shape" -> {
                String[] parts = v.split(":");
                if (parts.length != 4) {
                    throw new IllegalArgumentException(
                            name + " must be SEEDS:F1,F2:FEATURES:HIDDEN, got " + v);
                }
                rankSeeds = positive(name, parts[0]);
                rankFanouts = list(name, parts[1]);
                rankFeatures = positive(name, parts[2]);
                rankHidden = positive(name, parts[3]);
            }
            case "--seeds" -> seeds = positive(name, v);
            case "--fanouts" -> fanouts = list(name, v);
            case "--features" -> features = list(name, v);
            case "--hidden" -> hidden = positive(name, v);
            case "--classes" -> {
                classes = positive(name, v);
                if (classes < 2) {
                    throw new IllegalArgumentException(name + " must be >= 2, got " + v);
                }
            }
            case "--steps" -> steps = positive(name, v);
            case "--warmup" -> warmup = nonNegative(name, v);
            case "--python" -> python = v;
            case "--torch-script" -> torchScript = Path.of(v);
            case "--torch-timeout" -> torchTimeoutSeconds = positive(name, v);
            case "--out" -> out = Path.of(v);
            default -> throw new IllegalArgumentException("unknown option " + name);
        }
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reference", reference.toString());
        m.put("device", device);
        m.put("tolerance", tolerance);
        m.put("rank_steps", rankSteps);
        m.put(
                "rank_shape",
                rankSeeds + ":" + join(rankFanouts) + ":" + rankFeatures + ":" + rankHidden);
        m.put("seeds", seeds);
        m.put("fanouts", join(fanouts));
        m.put("features", join(features));
        m.put("hidden", hidden);
        m.put("classes", classes);
        m.put("steps", steps);
        m.put("warmup", warmup);
        m.put(
                "sections",
                (references ? "reference " : "")
                        + (ranks ? "ranks " : "")
                        + (timing ? "timing " : "")
                        + (timing && torch ? "torch" : ""));
        return m;
    }

    private static String join(int[] values) {
        return Arrays.toString(values).replaceAll("[\\[\\] ]", "");
    }

    private static int[] list(String name, String v) {
        try {
            int[] values =
                    Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
            if (values.length == 0 || Arrays.stream(values).anyMatch(x -> x < 1)) {
                throw new NumberFormatException();
            }
            return values;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    name + " must be a comma-separated list of integers >= 1, got " + v);
        }
    }

    private static int positive(String name, String v) {
        int n = nonNegative(name, v);
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, got " + v);
        }
        return n;
    }

    private static int nonNegative(String name, String v) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer >= 0, got " + v);
        }
    }

    private static double number(String name, String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, got " + v);
        }
    }
}
