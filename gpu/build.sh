#!/usr/bin/env bash
# Builds the CUDA backend's JNI shim, gpu/lib/libgnnstream_gpu.so, from gpu/native/*.cu
# (`bin/gnnstream gpu build`). Needs nvcc (CUDA 12.x or 13.x), cuBLAS and the JDK's JNI headers.
#   GNNSTREAM_CUDA_ARCHS  compute capabilities to build machine code for (default "80 89 90":
#                         A100, L4/L40/RTX 40xx, H100/H200), plus PTX of the last for newer GPUs
#   CUBLAS_HOME           a folder with include/cublas_v2.h and lib/libcublas.so* (default: the CUDA
#                         toolkit's, else the nvidia-cublas Python wheel's)
#   JNI_INCLUDE           a folder with jni.h and linux/jni_md.h (default: the device bundle's,
#                         else $JAVA_HOME/include, else the javac on the PATH)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="$ROOT/gpu/lib"
OUT="$OUT_DIR/libgnnstream_gpu.so"
NVCC="${NVCC:-nvcc}"
ARCHS="${GNNSTREAM_CUDA_ARCHS:-80 89 90}"

fail() { echo "gpu build: $*" >&2; exit 1; }

command -v "$NVCC" >/dev/null 2>&1 || fail "nvcc not found on the PATH (install the CUDA toolkit, or set NVCC)"
nvcc_path="$(command -v "$NVCC")"
# /usr/local/bin/nvcc may be a wrapper: ask nvcc where its toolkit is.
cuda_home="${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")}"
if [[ -x "$cuda_home/bin/nvcc" ]]; then :; else
  cuda_home="$(sed -n 's|^exec \(.*\)/bin/nvcc.*|\1|p' "$nvcc_path" 2>/dev/null | head -1)"
fi

if [[ -z "${JNI_INCLUDE:-}" ]]; then
  if [[ -f "$ROOT/gpu/bundle/include/jni.h" ]]; then
    JNI_INCLUDE="$ROOT/gpu/bundle/include"
  elif [[ -n "${JAVA_HOME:-}" && -f "$JAVA_HOME/include/jni.h" ]]; then
    JNI_INCLUDE="$JAVA_HOME/include"
  elif command -v javac >/dev/null 2>&1; then
    JNI_INCLUDE="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")/include"
  fi
fi
[[ -n "${JNI_INCLUDE:-}" && -f "$JNI_INCLUDE/jni.h" && -f "$JNI_INCLUDE/linux/jni_md.h" ]] \
  || fail "no JNI headers (jni.h, linux/jni_md.h): set JNI_INCLUDE or JAVA_HOME to a JDK"

if [[ -z "${CUBLAS_HOME:-}" ]]; then
  for candidate in "$cuda_home" "$cuda_home/targets/x86_64-linux" \
      "$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__ or nvidia.cublas.__path__[0]))' 2>/dev/null || true)" \
      "$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))' 2>/dev/null || true)"; do
    if [[ -n "$candidate" && -f "$candidate/include/cublas_v2.h" ]]; then CUBLAS_HOME="$candidate"; break; fi
  done
fi
[[ -n "${CUBLAS_HOME:-}" && -f "$CUBLAS_HOME/include/cublas_v2.h" ]] \
  || fail "cuBLAS not found: set CUBLAS_HOME to a folder with include/cublas_v2.h and lib/libcublas.so (the CUDA toolkit's, or the nvidia-cublas wheel's nvidia/cu13)"
blas_lib=""
for dir in "$CUBLAS_HOME/lib64" "$CUBLAS_HOME/lib"; do
  lib="$(ls "$dir"/libcublas.so "$dir"/libcublas.so.* 2>/dev/null | head -1 || true)"
  if [[ -n "$lib" ]]; then blas_lib="$lib"; break; fi
done
[[ -n "$blas_lib" ]] || fail "no libcublas.so under $CUBLAS_HOME/lib64 or $CUBLAS_HOME/lib"

gencode=()
last=""
for a in $ARCHS; do
  gencode+=("-gencode=arch=compute_$a,code=sm_$a")
  last="$a"
done
gencode+=("-gencode=arch=compute_$last,code=compute_$last")

mkdir -p "$OUT_DIR"
echo "gpu build: $(basename "$nvcc_path") $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), sm_${ARCHS// /, sm_}, cuBLAS $blas_lib" >&2
# --fmad=false: Adam and the aggregation round as the CPU model (no fused multiply-adds).
"$NVCC" -O3 -std=c++17 --fmad=false -shared -Xcompiler -fPIC,-Wall,-Wextra \
  "${gencode[@]}" \
  -I"$JNI_INCLUDE" -I"$JNI_INCLUDE/linux" -I"$CUBLAS_HOME/include" \
  "$ROOT"/gpu/native/*.cu \
  -o "$OUT" -L"$(dirname "$blas_lib")" -l:"$(basename "$blas_lib")" \
  -Xlinker -rpath -Xlinker "$(dirname "$blas_lib")"
echo "gpu build: wrote $OUT" >&2
