/**
 * The GPU device check: {@link io.gnnstream.benchmarks.gpu.GpuReference} writes, on the CPU with
 * the ND4J models, the reference results that {@link io.gnnstream.benchmarks.gpu.GpuCheck} compares
 * the CUDA backend with on a GPU host, where it also checks two ranks on one GPU and times the step
 * next to the plain-PyTorch peer. Everything GpuCheck reaches uses java.base only, so it runs from
 * the small bundle {@code gpu/bundle.sh} builds (a jlink'd runtime and one jar).
 */
package io.gnnstream.benchmarks.gpu;
