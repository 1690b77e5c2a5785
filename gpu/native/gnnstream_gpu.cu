// The CUDA side of io.gnnstream.operators.model.gpu.CudaKernels (JNI): a context per model with
// its own stream, cuBLAS handle and pinned staging buffers, and the kernels of a GpuModel step.
// Every kernel is deterministic: each output element is computed by one thread with the same
// operations in the same order on every run (no atomics; sums over a source's destinations gather
// through a reverse CSR). Compiled with --fmad=false so that Adam rounds exactly as the CPU model.
// Errors throw java.lang.IllegalStateException naming the call.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <jni.h>

#include <cstdint>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels.cuh"

using namespace gnnstream;

namespace {


const size_t STAGE_BYTES = size_t(32) << 20;      // per pinned staging buffer (two of them)
const size_t PARALLEL_BYTES = size_t(4) << 20;    // uploads from this size copy on several threads
const size_t WORKSPACE_BYTES = size_t(32) << 20;  // cuBLAS workspace per handle (Hopper: 32 MiB)
const int THREADS = 256;

thread_local char lastError[512] = "no error";

// Host copies into the pinned buffers on several threads (one host thread copies about 10 GB/s,
// less than a PCIe 5 link moves): a fork-join pool whose workers each copy one slice of a chunk.
class CopyPool {
   public:
    explicit CopyPool(int workers) {
        for (int w = 0; w < workers; w++) {
            threads_.emplace_back([this, w] { run(w + 1); });
        }
    }

    ~CopyPool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
            generation_++;
        }
        wake_.notify_all();
        for (std::thread& t : threads_) {
            t.join();
        }
    }

    // Copies n bytes from src to dst, the calling thread taking slice 0.
    void copy(char* dst, const char* src, size_t n) {
        int parts = static_cast<int>(threads_.size()) + 1;
        {
            std::lock_guard<std::mutex> lock(m_);
            dst_ = dst;
            src_ = src;
            n_ = n;
            pending_ = parts - 1;
            generation_++;
        }
        wake_.notify_all();
        slice(0, parts);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [this] { return pending_ == 0; });
    }

   private:
    void slice(int index, int parts) {
        size_t from = n_ / parts * index;
        size_t to = index == parts - 1 ? n_ : n_ / parts * (index + 1);
        std::memcpy(dst_ + from, src_ + from, to - from);
    }

    void run(int index) {
        unsigned long long seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                if (stop_) {
                    return;
                }
            }
            slice(index, static_cast<int>(threads_.size()) + 1);
            {
                std::lock_guard<std::mutex> lock(m_);
                pending_--;
            }
            done_.notify_one();
        }
    }

    std::vector<std::thread> threads_;
    std::mutex m_;
    std::condition_variable wake_;
    std::condition_variable done_;
    unsigned long long generation_ = 0;
    bool stop_ = false;
    int pending_ = 0;
    char* dst_ = nullptr;
    const char* src_ = nullptr;
    size_t n_ = 0;
};

struct Context {
    int device;
    cudaStream_t stream;
    cublasHandle_t blas;
    void* workspace;
    char* stage[2];
    cudaEvent_t staged[2];
    char kind[384];
    CopyPool* pool;
};

void throwState(JNIEnv* env, const char* what, const char* detail) {
    char msg[768];
    snprintf(msg, sizeof msg, "CUDA %s failed: %s", what, detail);
    jclass c = env->FindClass("java/lang/IllegalStateException");
    if (c != nullptr) {
        env->ThrowNew(c, msg);
    }
}

bool ok(JNIEnv* env, cudaError_t e, const char* what) {
    if (e == cudaSuccess) {
        return true;
    }
    throwState(env, what, cudaGetErrorString(e));
    return false;
}

bool okBlas(JNIEnv* env, cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) {
        return true;
    }
    throwState(env, what, cublasGetStatusString(s));
    return false;
}

Context* ctxOf(jlong c) { return reinterpret_cast<Context*>(c); }

template <typename T>
T* ptr(jlong p) {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(p));
}

bool enter(JNIEnv* env, Context* c) { return ok(env, cudaSetDevice(c->device), "cudaSetDevice"); }

bool launched(JNIEnv* env, const char* kernel) { return ok(env, cudaGetLastError(), kernel); }

unsigned int gridFor(long long n) {
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks < 1) {
        blocks = 1;
    }
    return static_cast<unsigned int>(blocks > (1LL << 20) ? (1LL << 20) : blocks);
}

// Row kernels: a warp across 32 columns, 8 rows per block; rows beyond the grid's height loop.
const dim3 ROW_BLOCK(32, 8);

dim3 rowGrid(int columns, int rows) {
    unsigned int height = static_cast<unsigned int>((rows + 7) / 8);
    return dim3(static_cast<unsigned int>((columns + 31) / 32), height > 65535 ? 65535 : height);
}

// ---- Transfers through the two pinned staging buffers. ----

// Java array region -> pinned buffer -> device, chunk by chunk; a chunk's host copy overlaps the
// previous chunk's transfer (two staging buffers, each reused once its event says its copy is done).
// A large region is read in place (a critical section: the collector waits for the few
// milliseconds of the copy) and copied into the staging buffers on the pool's threads.
bool uploadCritical(JNIEnv* env, Context* c, jlong dst, jarray array, jint offset, jint count) {
    const size_t elem = 4;
    size_t total = static_cast<size_t>(count) * elem;
    void* host = env->GetPrimitiveArrayCritical(array, nullptr);
    if (host == nullptr) {
        return false;
    }
    const char* src = static_cast<const char*>(host) + static_cast<size_t>(offset) * elem;
    cudaError_t e = cudaSuccess;
    const char* what = "upload";
    size_t done = 0;
    int slot = 0;
    while (done < total && e == cudaSuccess) {
        size_t n = total - done < STAGE_BYTES ? total - done : STAGE_BYTES;
        if ((e = cudaEventSynchronize(c->staged[slot])) != cudaSuccess) {
            what = "upload (staging wait)";
            break;
        }
        c->pool->copy(c->stage[slot], src + done, n);
        e = cudaMemcpyAsync(ptr<char>(dst) + done, c->stage[slot], n, cudaMemcpyHostToDevice,
                            c->stream);
        if (e == cudaSuccess) {
            e = cudaEventRecord(c->staged[slot], c->stream);
        }
        done += n;
        slot ^= 1;
    }
    env->ReleasePrimitiveArrayCritical(array, host, JNI_ABORT);
    return ok(env, e, what);
}

bool uploadRegion(JNIEnv* env, Context* c, jlong dst, jarray array, jint offset, jint count,
                  bool floats) {
    const size_t elem = 4;
    size_t total = static_cast<size_t>(count) * elem;
    if (total >= PARALLEL_BYTES && c->pool != nullptr) {
        return uploadCritical(env, c, dst, array, offset, count);
    }
    size_t done = 0;
    int slot = 0;
    while (done < total) {
        size_t n = total - done < STAGE_BYTES ? total - done : STAGE_BYTES;
        if (!ok(env, cudaEventSynchronize(c->staged[slot]), "upload (staging wait)")) {
            return false;
        }
        jsize first = static_cast<jsize>(offset + done / elem);
        jsize len = static_cast<jsize>(n / elem);
        if (floats) {
            env->GetFloatArrayRegion(static_cast<jfloatArray>(array), first, len,
                                     reinterpret_cast<jfloat*>(c->stage[slot]));
        } else {
            env->GetIntArrayRegion(static_cast<jintArray>(array), first, len,
                                   reinterpret_cast<jint*>(c->stage[slot]));
        }
        if (env->ExceptionCheck()) {
            return false;
        }
        if (!ok(env,
                cudaMemcpyAsync(ptr<char>(dst) + done, c->stage[slot], n, cudaMemcpyHostToDevice,
                                c->stream),
                "upload") ||
            !ok(env, cudaEventRecord(c->staged[slot], c->stream), "upload (event)")) {
            return false;
        }
        done += n;
        slot ^= 1;
    }
    return true;
}

// Device -> pinned buffer -> Java array region, chunk by chunk (waits for the stream).
bool downloadRegion(JNIEnv* env, Context* c, jlong src, jarray array, jint count, int kind) {
    const size_t elem = kind == 2 ? 8 : 4;
    size_t total = static_cast<size_t>(count) * elem;
    size_t done = 0;
    while (done < total) {
        size_t n = total - done < STAGE_BYTES ? total - done : STAGE_BYTES;
        if (!ok(env,
                cudaMemcpyAsync(c->stage[0], ptr<char>(src) + done, n, cudaMemcpyDeviceToHost,
                                c->stream),
                "download") ||
            !ok(env, cudaStreamSynchronize(c->stream), "download (a kernel before it)")) {
            return false;
        }
        jsize first = static_cast<jsize>(done / elem);
        jsize len = static_cast<jsize>(n / elem);
        if (kind == 0) {
            env->SetFloatArrayRegion(static_cast<jfloatArray>(array), first, len,
                                     reinterpret_cast<jfloat*>(c->stage[0]));
        } else if (kind == 1) {
            env->SetIntArrayRegion(static_cast<jintArray>(array), first, len,
                                   reinterpret_cast<jint*>(c->stage[0]));
        } else {
            env->SetDoubleArrayRegion(static_cast<jdoubleArray>(array), first, len,
                                      reinterpret_cast<jdouble*>(c->stage[0]));
        }
        if (env->ExceptionCheck()) {
            return false;
        }
        done += n;
    }
    return true;
}

void destroy(Context* c) {
    delete c->pool;
    for (int s = 0; s < 2; s++) {
        if (c->staged[s] != nullptr) {
            cudaEventDestroy(c->staged[s]);
        }
        if (c->stage[s] != nullptr) {
            cudaFreeHost(c->stage[s]);
        }
    }
    if (c->blas != nullptr) {
        cublasDestroy(c->blas);
    }
    if (c->workspace != nullptr) {
        cudaFree(c->workspace);
    }
    if (c->stream != nullptr) {
        cudaStreamDestroy(c->stream);
    }
    delete c;
}

bool failOpen(Context* c, const char* what, const char* detail) {
    snprintf(lastError, sizeof lastError, "%s: %s", what, detail);
    destroy(c);
    return false;
}

}  // namespace

#define JNI_FN(ret, name) extern "C" JNIEXPORT ret JNICALL Java_io_gnnstream_operators_model_gpu_CudaKernels_##name

JNI_FN(jint, nDeviceCount)(JNIEnv*, jclass) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(lastError, sizeof lastError, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return -1;
    }
    if (count == 0) {
        snprintf(lastError, sizeof lastError, "cudaGetDeviceCount: no CUDA device");
        return -1;
    }
    return count;
}

JNI_FN(jstring, nLastError)(JNIEnv* env, jclass) { return env->NewStringUTF(lastError); }

JNI_FN(jlong, nOpen)(JNIEnv*, jclass, jint device) {
    Context* c = new Context();
    std::memset(c, 0, sizeof(Context));
    c->device = device;
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        failOpen(c, "cudaSetDevice", cudaGetErrorString(e));
        return 0;
    }
    if ((e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        failOpen(c, "cudaStreamCreate", cudaGetErrorString(e));
        return 0;
    }
    if ((e = cudaMalloc(&c->workspace, WORKSPACE_BYTES)) != cudaSuccess) {
        failOpen(c, "cudaMalloc (cuBLAS workspace)", cudaGetErrorString(e));
        return 0;
    }
    for (int s = 0; s < 2; s++) {
        if ((e = cudaMallocHost(reinterpret_cast<void**>(&c->stage[s]), STAGE_BYTES)) !=
            cudaSuccess) {
            failOpen(c, "cudaMallocHost (pinned staging)", cudaGetErrorString(e));
            return 0;
        }
        if ((e = cudaEventCreateWithFlags(&c->staged[s], cudaEventDisableTiming)) != cudaSuccess) {
            failOpen(c, "cudaEventCreate", cudaGetErrorString(e));
            return 0;
        }
    }
    cublasStatus_t s = cublasCreate(&c->blas);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetStream(c->blas, c->stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetWorkspace(c->blas, c->workspace, WORKSPACE_BYTES);
    // Reproducible results: no atomics in cuBLAS's kernels, plain FP32 (no TF32 tensor-op math).
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetAtomicsMode(c->blas, CUBLAS_ATOMICS_NOT_ALLOWED);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH);
    if (s != CUBLAS_STATUS_SUCCESS) {
        failOpen(c, "cuBLAS setup", cublasGetStatusString(s));
        return 0;
    }
    unsigned int cores = std::thread::hardware_concurrency();
    int workers = cores >= 4 ? static_cast<int>(cores / 2 < 8 ? cores / 2 : 8) - 1 : 0;
    c->pool = workers > 0 ? new CopyPool(workers) : nullptr;
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) {
        failOpen(c, "cudaGetDeviceProperties", cudaGetErrorString(e));
        return 0;
    }
    int blasVersion = 0;
    cublasGetVersion(c->blas, &blasVersion);
    int driver = 0;
    cudaDriverGetVersion(&driver);
    snprintf(c->kind, sizeof c->kind, "cuda %s sm_%d%d %d SMs cuBLAS %d driver %d", prop.name,
             prop.major, prop.minor, prop.multiProcessorCount, blasVersion, driver);
    return reinterpret_cast<jlong>(c);
}

JNI_FN(jstring, nDeviceKind)(JNIEnv* env, jclass, jlong ctx) {
    return env->NewStringUTF(ctxOf(ctx)->kind);
}

JNI_FN(void, nClose)(JNIEnv*, jclass, jlong ctx) {
    Context* c = ctxOf(ctx);
    cudaSetDevice(c->device);
    cudaStreamSynchronize(c->stream);
    destroy(c);
}

JNI_FN(void, nSynchronize)(JNIEnv* env, jclass, jlong ctx) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        ok(env, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
    }
}

JNI_FN(jlong, nAlloc)(JNIEnv* env, jclass, jlong ctx, jlong bytes) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c)) {
        return 0;
    }
    void* p = nullptr;
    if (bytes > 0 && !ok(env, cudaMalloc(&p, static_cast<size_t>(bytes)), "cudaMalloc")) {
        return 0;
    }
    return static_cast<jlong>(reinterpret_cast<uintptr_t>(p));
}

JNI_FN(void, nFree)(JNIEnv* env, jclass, jlong ctx, jlong p) {
    Context* c = ctxOf(ctx);
    if (enter(env, c) && ok(env, cudaStreamSynchronize(c->stream), "cudaFree (pending work)")) {
        ok(env, cudaFree(ptr<void>(p)), "cudaFree");
    }
}

JNI_FN(void, nUploadFloats)(JNIEnv* env, jclass, jlong ctx, jlong dst, jfloatArray src,
                            jint offset, jint count) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        uploadRegion(env, c, dst, src, offset, count, true);
    }
}

JNI_FN(void, nUploadInts)(JNIEnv* env, jclass, jlong ctx, jlong dst, jintArray src, jint offset,
                          jint count) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        uploadRegion(env, c, dst, src, offset, count, false);
    }
}

JNI_FN(void, nDownloadFloats)(JNIEnv* env, jclass, jlong ctx, jlong src, jfloatArray dst,
                              jint count) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        downloadRegion(env, c, src, dst, count, 0);
    }
}

JNI_FN(void, nDownloadInts)(JNIEnv* env, jclass, jlong ctx, jlong src, jintArray dst, jint count) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        downloadRegion(env, c, src, dst, count, 1);
    }
}

JNI_FN(void, nDownloadDoubles)(JNIEnv* env, jclass, jlong ctx, jlong src, jdoubleArray dst,
                               jint count) {
    Context* c = ctxOf(ctx);
    if (enter(env, c)) {
        downloadRegion(env, c, src, dst, count, 2);
    }
}

JNI_FN(void, nGemm)(JNIEnv* env, jclass, jlong ctx, jboolean transA, jboolean transB, jint m,
                    jint n, jint k, jlong a, jint lda, jlong b, jint ldb, jlong cOut, jint ldc) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || m == 0 || n == 0) {
        return;
    }
    const float one = 1.0f;
    const float zero = 0.0f;
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    okBlas(env,
           cublasSgemm(c->blas, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                       transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, ptr<const float>(b), ldb,
                       ptr<const float>(a), lda, &zero, ptr<float>(cOut), ldc),
           "cublasSgemm");
}

JNI_FN(void, nDropout)(JNIEnv* env, jclass, jlong ctx, jlong src, jlong dst, jlong count, jlong key,
                       jint threshold, jfloat scale) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || count <= 0) {
        return;
    }
    dropoutKernel<<<gridFor(count), THREADS, 0, c->stream>>>(
            ptr<const float>(src), ptr<float>(dst), count, static_cast<u64>(key), threshold, scale);
    launched(env, "dropout kernel");
}

JNI_FN(void, nAggregate)(JNIEnv* env, jclass, jlong ctx, jint mode, jlong src, jint in,
                         jlong indptr, jlong indices, jlong summed, jint nDst, jlong x) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || nDst <= 0) {
        return;
    }
    aggregateKernel<<<rowGrid(in, nDst), ROW_BLOCK, 0, c->stream>>>(mode, ptr<const float>(src), in,
                                                   ptr<const int>(indptr), ptr<const int>(indices),
                                                   ptr<const int>(summed), nDst, ptr<float>(x));
    launched(env, "aggregate kernel");
}

JNI_FN(void, nRelu)(JNIEnv* env, jclass, jlong ctx, jlong z, jlong act, jlong count) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || count <= 0) {
        return;
    }
    reluKernel<<<gridFor(count), THREADS, 0, c->stream>>>(ptr<const float>(z), ptr<float>(act),
                                                          count);
    launched(env, "relu kernel");
}

JNI_FN(void, nScatter)(JNIEnv* env, jclass, jlong ctx, jint mode, jlong dx, jint in, jlong indptr,
                       jlong revPtr, jlong revDst, jint nDst, jint nSrc, jlong dSrc) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || nSrc <= 0) {
        return;
    }
    scatterKernel<<<rowGrid(in, nSrc), ROW_BLOCK, 0, c->stream>>>(
            mode, ptr<const float>(dx), in, ptr<const int>(indptr), ptr<const int>(revPtr),
            ptr<const int>(revDst), nDst, nSrc, ptr<float>(dSrc));
    launched(env, "scatter kernel");
}

JNI_FN(void, nReluDropoutBackward)(JNIEnv* env, jclass, jlong ctx, jlong grad, jlong act,
                                   jlong count, jlong key, jint threshold, jfloat scale,
                                   jlong out) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || count <= 0) {
        return;
    }
    reluDropoutBackwardKernel<<<gridFor(count), THREADS, 0, c->stream>>>(
            ptr<const float>(grad), ptr<const float>(act), count, static_cast<u64>(key), threshold,
            scale, ptr<float>(out));
    launched(env, "relu/dropout backward kernel");
}

JNI_FN(void, nSoftmaxLoss)(JNIEnv* env, jclass, jlong ctx, jlong logits, jlong labels, jint seeds,
                           jint classes, jint labelled, jboolean gradient, jlong loss,
                           jlong predictions) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || seeds <= 0) {
        return;
    }
    softmaxLossKernel<<<(seeds + THREADS - 1) / THREADS, THREADS, 0, c->stream>>>(
            ptr<float>(logits), ptr<const int>(labels), seeds, classes, labelled > 0 ? labelled : 1,
            gradient != JNI_FALSE, ptr<double>(loss), ptr<int>(predictions));
    launched(env, "softmax loss kernel");
}

JNI_FN(void, nAdam)(JNIEnv* env, jclass, jlong ctx, jlong params, jlong grad, jlong m, jlong v,
                    jlong count, jfloat stepSize, jfloat bc2Sqrt, jfloat weightDecay) {
    Context* c = ctxOf(ctx);
    if (!enter(env, c) || count <= 0) {
        return;
    }
    adamKernel<<<gridFor(count), THREADS, 0, c->stream>>>(ptr<float>(params), ptr<const float>(grad),
                                                          ptr<float>(m), ptr<float>(v), count,
                                                          stepSize, bc2Sqrt, weightDecay);
    launched(env, "adam kernel");
}
