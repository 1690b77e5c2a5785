package io.gnnstream.benchmarks.gpu;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One tensor of the model under test against its reference: the largest absolute difference and the
 * largest absolute reference value. It passes when {@code maxAbsDiff <= tolerance * maxAbsRef} (a
 * tolerance of 0: when every value is the same float, bit for bit); a NaN fails.
 *
 * @param stage what was compared, e.g. {@code gradient} or {@code step-3}
 * @param tensor the tensor's name
 * @param maxAbsDiff {@code max |got - want|} (NaN if {@code got} has a NaN where {@code want} has
 *     not)
 * @param maxAbsRef {@code max |want|}
 * @param worstIndex the (flat, row-major) index of the largest difference or of the first NaN
 * @param ok whether the check passed
 */
record TensorCheck(
        String stage,
        String tensor,
        double maxAbsDiff,
        double maxAbsRef,
        int worstIndex,
        boolean ok) {

    /** Compares {@code got} with {@code want} within {@code tolerance} (0: bit for bit). */
    static TensorCheck compare(
            String stage, String tensor, float[] got, float[] want, double tolerance) {
        if (got.length != want.length) {
            return new TensorCheck(stage, tensor, Double.NaN, Double.NaN, -1, false);
        }
        double maxDiff = 0;
        double maxRef = 0;
        boolean nan = false;
        boolean identical = true;
        int worst = 0;
        for (int i = 0; i < got.length; i++) {
            double d = Math.abs((double) got[i] - want[i]);
            if (Double.isNaN(d)) {
                if (!nan) {
                    worst = i;
                }
                nan = true;
            } else if (d > maxDiff) {
                maxDiff = d;
                worst = nan ? worst : i;
            }
            maxRef = Math.max(maxRef, Math.abs(want[i]));
            identical &= Float.floatToRawIntBits(got[i]) == Float.floatToRawIntBits(want[i]);
        }
        boolean ok = tolerance == 0 ? identical : !nan && maxDiff <= tolerance * maxRef;
        return new TensorCheck(stage, tensor, nan ? Double.NaN : maxDiff, maxRef, worst, ok);
    }

    /** {@code maxAbsDiff / maxAbsRef}: 0 when both are 0, NaN when undefined. */
    double ratio() {
        if (maxAbsDiff == 0) {
            return 0;
        }
        return maxAbsDiff / maxAbsRef;
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stage", stage);
        m.put("tensor", tensor);
        m.put("max_abs_diff", maxAbsDiff);
        m.put("max_abs_ref", maxAbsRef);
        m.put("ratio", ratio());
        m.put("worst_index", worstIndex);
        m.put("ok", ok);
        return m;
    }
}
