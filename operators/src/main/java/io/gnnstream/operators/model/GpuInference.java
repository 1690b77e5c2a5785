package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.gpu.BatchLayout;
import io.gnnstream.operators.model.gpu.DeviceBuffer;
import io.gnnstream.operators.model.gpu.GpuKernels;

/**
 * {@link GpuModel}'s layer-wise inference ({@link GnnModel#inferLayer}, {@link GnnModel#project},
 * {@link GnnModel#inferProjected}) on its own device buffers: a block's ints and source rows go up,
 * the layer's aggregation, product and ReLU run on the device, its output rows come down. Not
 * thread-safe.
 */
final class GpuInference {

    private final ModelConfig config;
    private final GpuKernels k;
    private final int mode;
    private final int blocks;
    private final BatchLayout layout = new BatchLayout();
    private final DeviceBuffer ints;
    private final DeviceBuffer rows;
    private final DeviceBuffer x;
    private final DeviceBuffer z;
    private final DeviceBuffer act;
    private final DeviceBuffer selector;
    private int selectorLayer = -1;
    private long selectorVersion = -1;

    GpuInference(ModelConfig config, GpuKernels kernels, int mode, int blocks) {
        this.config = config;
        this.k = kernels;
        this.mode = mode;
        this.blocks = blocks;
        this.ints = new DeviceBuffer(kernels);
        this.rows = new DeviceBuffer(kernels);
        this.x = new DeviceBuffer(kernels);
        this.z = new DeviceBuffer(kernels);
        this.act = new DeviceBuffer(kernels);
        this.selector = new DeviceBuffer(kernels);
    }

    /**
     * {@code h}'s products with each of the layer's {@code blocks} weight blocks, side by side;
     * {@code weights} points at the layer's parameter slice.
     */
    float[] project(int layer, float[] h, int count, long weights) {
        int in = config.layerIn(layer);
        int out = config.layerOut(layer);
        int width = blocks * out;
        float[] result = new float[count * width];
        if (count == 0) {
            return result;
        }
        k.uploadFloats(rows.ensure((long) count * in), h, 0, count * in);
        long products = z.ensure((long) count * width);
        for (int b = 0; b < blocks; b++) {
            k.gemm(
                    false,
                    false,
                    count,
                    out,
                    in,
                    rows.ptr(),
                    in,
                    weights + 4L * b * in * out,
                    out,
                    products + 4L * b * out,
                    width);
        }
        k.downloadFloats(products, result, result.length);
        return result;
    }

    /**
     * The selector of {@link GnnModel#inferProjected}: per aggregation b, block b of the aggregated
     * projections is the layer's term b; a 0/1 matrix above the bias row selects them and adds the
     * bias. Uploaded again only when the layer or the parameters' {@code version} changed.
     */
    long selector(int layer, float[] bias, int biasOffset, long version) {
        int out = config.layerOut(layer);
        int width = blocks * out;
        int selectorRows = blocks * width + 1;
        if (layer != selectorLayer || version != selectorVersion) {
            float[] sel = new float[selectorRows * out];
            for (int b = 0; b < blocks; b++) {
                for (int c = 0; c < out; c++) {
                    sel[(b * width + b * out + c) * out + c] = 1f;
                }
            }
            System.arraycopy(bias, biasOffset, sel, (selectorRows - 1) * out, out);
            k.uploadFloats(selector.ensure(sel.length), sel, 0, sel.length);
            selectorLayer = layer;
            selectorVersion = version;
        }
        return selector.ptr();
    }

    /**
     * Layer {@code layer}'s output for the destinations of the one-hop {@code block} from source
     * rows of {@code in} floats, with {@code weights} the weights of their dense input rows.
     */
    float[] infer(int layer, MiniBatch block, float[] input, int in, long weights) {
        int out = config.layerOut(layer);
        BatchValidator.validateBlock(block, in, input);
        int nDst = block.numDst(1);
        if (nDst == 0) {
            return new float[0];
        }
        int width = blocks * in + 1;
        layout.build(block, 0);
        long ints = this.ints.ensure(layout.size());
        k.uploadInts(ints, layout.ints(), 0, layout.size());
        int nSrc = block.numSrc(1);
        k.uploadFloats(rows.ensure((long) nSrc * in), input, 0, nSrc * in);
        long summed = layout.summed() < 0 ? 0L : ints + 4L * layout.summed();
        k.aggregate(
                mode,
                rows.ptr(),
                in,
                ints + 4L * layout.indptr(1),
                ints + 4L * layout.indices(1),
                summed,
                nDst,
                x.ensure((long) nDst * width));
        long result = z.ensure((long) nDst * out);
        k.gemm(false, false, nDst, out, width, x.ptr(), width, weights, out, result, out);
        if (layer < config.numLayers() - 1) {
            k.relu(result, act.ensure((long) nDst * out), (long) nDst * out);
            result = act.ptr();
        }
        float[] values = new float[nDst * out];
        k.downloadFloats(result, values, values.length);
        return values;
    }

    void release() {
        for (DeviceBuffer b : new DeviceBuffer[] {ints, rows, x, z, act, selector}) {
            b.release();
        }
    }
}
