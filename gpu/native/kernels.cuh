// The kernels of a GpuModel step (included by gnnstream_gpu.cu, which launches them). Each output
// element is computed by one thread with the same operations in the same order on every run: no
// atomics, so replicas on one kind of GPU compute the same bits.
#pragma once

#include <cstdint>

namespace gnnstream {

typedef unsigned long long u64;

const u64 GOLDEN = 0x9E3779B97F4A7C15ULL;

// ---- Dropout: the CPU model's counter-based mask (Dropout.java), bit for bit. ----

__device__ __forceinline__ u64 mix(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ u64 keepBits(u64 key, int threshold, u64 word) {
    if (threshold >= 65536) {
        return 0ULL;
    }
    u64 base = key + word * (16ULL * GOLDEN);
    u64 undecided = ~0ULL;
    u64 kept = 0ULL;
    for (int bit = 15; bit >= 0; bit--) {
        u64 u = mix(base + static_cast<u64>(15 - bit) * GOLDEN);
        if ((threshold >> bit) & 1) {
            undecided &= u;
        } else {
            kept |= u & undecided;
            undecided &= ~u;
        }
        if (undecided == 0ULL || (threshold & ((1 << bit) - 1)) == 0) {
            break;
        }
    }
    return kept | undecided;
}

__device__ __forceinline__ float multiplier(u64 key, int threshold, float scale, long long e) {
    if (threshold == 0) {
        return scale;
    }
    u64 bits = keepBits(key, threshold, static_cast<u64>(e) >> 6);
    return ((bits >> (e & 63)) & 1ULL) ? scale : 0.0f;
}

__global__ void dropoutKernel(const float* src, float* dst, long long n, u64 key, int threshold,
                              float scale) {
    long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        dst[e] = src[e] * multiplier(key, threshold, scale, e);
    }
}

// ---- Aggregation: one thread per (destination, column); neighbours added in edge order. ----

__global__ void aggregateKernel(int mode, const float* src, int in, const int* indptr,
                                const int* indices, const int* summed, int nDst, float* x) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int width = (mode == 0 ? 2 : 1) * in + 1;
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < nDst; i += gridDim.y * blockDim.y) {
        float* row = x + static_cast<long long>(i) * width;
        if (c == 0) {
            row[width - 1] = 1.0f;
        }
        if (c >= in) {
            continue;
        }
        int start = indptr[i];
        int end = indptr[i + 1];
        float own = src[static_cast<long long>(i) * in + c];
        if (mode == 0) {
            float sum = 0.0f;
            for (int k = start; k < end; k++) {
                sum += src[static_cast<long long>(indices[k]) * in + c];
            }
            if (end > start) {
                int degree = end - start + (summed != nullptr ? summed[i] : 0);
                sum *= 1.0f / static_cast<float>(degree);
            }
            row[c] = own;
            row[in + c] = sum;
        } else {
            float sum = own;
            for (int k = start; k < end; k++) {
                sum += src[static_cast<long long>(indices[k]) * in + c];
            }
            if (end > start) {
                sum *= 1.0f / static_cast<float>(end - start + 1);
            }
            row[c] = sum;
        }
    }
}

// ---- The input-row gradient back to the source rows, gathered per (source, column). ----

__global__ void scatterKernel(int mode, const float* dx, int in, const int* indptr,
                              const int* revPtr, const int* revDst, int nDst, int nSrc,
                              float* dSrc) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= in) {
        return;
    }
    int width = (mode == 0 ? 2 : 1) * in + 1;
    for (int u = blockIdx.y * blockDim.y + threadIdx.y; u < nSrc; u += gridDim.y * blockDim.y) {
        float acc = 0.0f;
        if (u < nDst) {
            float g = dx[static_cast<long long>(u) * width + c];
            int deg = indptr[u + 1] - indptr[u];
            if (mode == 1 && deg > 0) {
                g *= 1.0f / static_cast<float>(deg + 1);
            }
            acc += g;
        }
        for (int r = revPtr[u]; r < revPtr[u + 1]; r++) {
            int i = revDst[r];
            int deg = indptr[i + 1] - indptr[i];
            if (mode == 0) {
                acc += dx[static_cast<long long>(i) * width + in + c] *
                       (1.0f / static_cast<float>(deg));
            } else {
                acc += dx[static_cast<long long>(i) * width + c] *
                       (1.0f / static_cast<float>(deg + 1));
            }
        }
        dSrc[static_cast<long long>(u) * in + c] = acc;
    }
}

__global__ void reluKernel(const float* z, float* act, long long n) {
    long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        float v = z[e];
        act[e] = v > 0.0f ? v : 0.0f;
    }
}

__global__ void reluDropoutBackwardKernel(const float* grad, const float* act, long long n, u64 key,
                                          int threshold, float scale, float* out) {
    long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        float g = grad[e] * multiplier(key, threshold, scale, e);
        out[e] = act[e] > 0.0f ? g : 0.0f;
    }
}

// ---- Softmax cross-entropy in double, one thread per seed (SoftmaxLoss.java). ----

__global__ void softmaxLossKernel(float* logits, const int* labels, int seeds, int classes,
                                  int labelled, bool gradient, double* loss, int* predictions) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= seeds) {
        return;
    }
    float* l = logits + static_cast<long long>(i) * classes;
    int best = 0;
    for (int c = 1; c < classes; c++) {
        if (l[c] > l[best]) {
            best = c;
        }
    }
    double max = l[best];
    double sum = 0.0;
    for (int c = 0; c < classes; c++) {
        sum += exp(static_cast<double>(l[c]) - max);
    }
    predictions[i] = best;
    int label = labels[i];
    if (label < 0) {
        loss[i] = 0.0;
        if (gradient) {
            for (int c = 0; c < classes; c++) {
                l[c] = 0.0f;
            }
        }
        return;
    }
    loss[i] = max + log(sum) - static_cast<double>(l[label]);
    if (gradient) {
        for (int c = 0; c < classes; c++) {
            double p = exp(static_cast<double>(l[c]) - max) / sum;
            l[c] = static_cast<float>((p - (c == label ? 1.0 : 0.0)) / labelled);
        }
    }
}

// ---- Adam, operation by operation as Adam.java (no fused multiply-adds: --fmad=false). ----

__global__ void adamKernel(float* params, const float* grad, float* m, float* v, long long n,
                           float stepSize, float bc2Sqrt, float weightDecay) {
    const float beta2 = static_cast<float>(0.999);
    const float oneMinusB1 = static_cast<float>(1.0 - 0.9);
    const float oneMinusB2 = static_cast<float>(1.0 - 0.999);
    const float eps = 1e-8f;
    long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        float p = params[e];
        float g = weightDecay == 0.0f ? grad[e] : grad[e] + weightDecay * p;
        float mi = m[e] + oneMinusB1 * (g - m[e]);
        float vi = v[e] * beta2 + oneMinusB2 * g * g;
        m[e] = mi;
        v[e] = vi;
        float denom = sqrtf(vi) / bc2Sqrt + eps;
        params[e] = p - stepSize * (mi / denom);
    }
}

}  // namespace gnnstream
