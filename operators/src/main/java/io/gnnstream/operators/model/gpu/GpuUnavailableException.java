package io.gnnstream.operators.model.gpu;

/**
 * The CUDA backend cannot run here: its library is missing or fails to load, or the process sees no
 * usable GPU. The message names what is missing and how to provide it; retrying on the same process
 * does not help.
 */
public final class GpuUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public GpuUnavailableException(String message) {
        super(message);
    }

    public GpuUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
