package io.gnnstream.operators.model;

/**
 * Adam with L2 weight decay, following {@code torch.optim.Adam} (non-foreach) operation by
 * operation: decay added to the gradient, moments updated with lerp/addcmul, and the bias
 * corrections applied as {@code step_size = lr / bc1} and {@code denom = sqrt(v)/sqrt(bc2) + eps}.
 */
final class Adam {

    private static final double BETA1 = 0.9;
    private static final double BETA2 = 0.999;
    private static final float EPS = 1e-8f;

    private final float weightDecay;
    final float[] m;
    final float[] v;
    long step;

    Adam(double weightDecay, int size) {
        this.weightDecay = (float) weightDecay;
        this.m = new float[size];
        this.v = new float[size];
    }

    /** {@code lr} over the first moment's bias correction at update {@code step} (from 1). */
    static float stepSize(double lr, long step) {
        return (float) ((float) lr / (1.0 - Math.pow(BETA1, step)));
    }

    /** The square root of the second moment's bias correction at update {@code step}. */
    static float bc2Sqrt(long step) {
        return (float) Math.sqrt(1.0 - Math.pow(BETA2, step));
    }

    float weightDecay() {
        return weightDecay;
    }

    /**
     * Applies one update with learning rate {@code lr} to {@code params} in place; {@code grad} is
     * not modified.
     */
    void update(float[] params, float[] grad, double lr) {
        step++;
        float stepSize = stepSize(lr, step);
        float bc2Sqrt = bc2Sqrt(step);
        float beta2 = (float) BETA2;
        float oneMinusB1 = (float) (1.0 - BETA1);
        float oneMinusB2 = (float) (1.0 - BETA2);
        for (int i = 0; i < params.length; i++) {
            float g = weightDecay == 0f ? grad[i] : grad[i] + weightDecay * params[i];
            float mi = m[i] + oneMinusB1 * (g - m[i]);
            float vi = v[i] * beta2 + oneMinusB2 * g * g;
            m[i] = mi;
            v[i] = vi;
            float denom = (float) Math.sqrt(vi) / bc2Sqrt + EPS;
            params[i] -= stepSize * (mi / denom);
        }
    }
}
