package io.gnnstream.operators.model;

import io.gnnstream.operators.model.gpu.CudaKernels;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.model.gpu.GpuKernels;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import java.util.Objects;

/**
 * Makes a trainer rank's model on its {@link Device}: fresh ({@link #create}) or from a snapshot
 * ({@link #restore}). {@link #CPU} makes the ND4J models ({@link GnnModel#create}, {@link
 * GnnModel#restore}); {@link #cuda} opens a CUDA device and makes a {@link GpuModel} on it.
 */
@FunctionalInterface
public interface ModelFactory {

    /** The ND4J models. */
    ModelFactory CPU =
            (config, state) ->
                    state == null ? GnnModel.create(config) : GnnModel.restore(config, state);

    /**
     * A model of {@code config}: restored from {@code state}, or freshly initialized where {@code
     * state} is null.
     *
     * @throws GpuUnavailableException if the model's device cannot be opened
     */
    GnnModel model(ModelConfig config, ModelState state);

    /** A freshly initialized model of {@code config}. */
    default GnnModel create(ModelConfig config) {
        return model(config, null);
    }

    /** A model of {@code config} rebuilt from {@code state}. */
    default GnnModel restore(ModelConfig config, ModelState state) {
        return model(config, Objects.requireNonNull(state, "state"));
    }

    /**
     * The factory of {@code device}: {@link #CPU}, or {@link #cuda} on the device index it resolves
     * to with {@code assignedIndex} (a GPU of Flink's external resource on the TaskManager, {@code
     * -1} if none).
     */
    static ModelFactory of(Device device, int assignedIndex) {
        return device.cuda() ? cuda(device.resolve(assignedIndex)) : CPU;
    }

    /**
     * The factory of rank {@code rank}: as {@link #of(Device, int)}, but where neither the device
     * nor an assignment names a GPU, GPU {@code rank mod n} of the n this process sees (a
     * MiniCluster, or a cluster without Flink's GPU resource).
     *
     * @throws GpuUnavailableException if the GPUs must be counted and cannot be
     */
    static ModelFactory of(Device device, int assignedIndex, int rank) {
        if (device.cuda() && device.index() < 0 && assignedIndex < 0) {
            return cuda(Math.floorMod(rank, CudaKernels.deviceCount()));
        }
        return of(device, assignedIndex);
    }

    /**
     * {@link GpuModel}s on CUDA device {@code index}: each model opens the device ({@link
     * CudaKernels#open}) and owns its kernels; they are closed again if the model cannot be built.
     *
     * @throws GpuUnavailableException (from {@link #model}) if the library, driver or device is
     *     missing
     */
    static ModelFactory cuda(int index) {
        return (config, state) -> {
            GpuKernels kernels = CudaKernels.open(index);
            try {
                return state == null
                        ? new GpuModel(config, kernels)
                        : GpuModel.restore(config, state, kernels);
            } catch (RuntimeException | Error e) {
                try {
                    kernels.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
        };
    }
}
