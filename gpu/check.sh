#!/usr/bin/env bash
# The GPU check, run on the GPU host from the repository root with the bundle gpu/bundle.sh built
# (carried there as gpu/bundle): lists the GPUs, builds the CUDA shim (gpu/build.sh, with nvcc and
# the bundle's JNI headers), then runs GpuCheck on the bundle's Java runtime. Arguments go to
# GpuCheck (see its --help); with $OUT set, gpu-check.txt and gpu-check.json are written there.
# GNNSTREAM_JAVA_OPTS replaces the JVM options (default -Xmx32g).
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
BUNDLE=gpu/bundle
JAVA="$BUNDLE/runtime/bin/java"
JAR="$BUNDLE/gpu-check.jar"

die() { echo "gpu/check.sh: $*" >&2; exit 1; }

case "${1:-}" in
  -h|--help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$HOME_DIR/gpu/check.sh"
    [[ -x "$JAVA" && -f "$JAR" ]] && "$JAVA" -cp "$JAR" io.gnnstream.benchmarks.gpu.GpuCheck --help
    exit 0 ;;
esac

[[ -d "$BUNDLE" ]] || die "no $BUNDLE: build it with gpu/bundle.sh (bin/gnnstream gpu bundle) on a host with a JDK, then carry $BUNDLE along"
[[ -x "$JAVA" ]] || die "no Java runtime at $JAVA: rebuild the bundle with gpu/bundle.sh"
[[ -f "$JAR" ]] || die "no $JAR: rebuild the bundle with gpu/bundle.sh"
[[ -f "$BUNDLE/reference/reference.properties" ]] || die "no $BUNDLE/reference: rebuild the bundle with gpu/bundle.sh"
[[ -x gpu/build.sh ]] || die "no gpu/build.sh in this tree (the CUDA backend's build)"

echo "== nvidia-smi -L"
nvidia-smi -L || die "nvidia-smi fails: no NVIDIA driver or GPU here"

echo "== gpu/build.sh"
export JNI_INCLUDE="${JNI_INCLUDE:-$HOME_DIR/$BUNDLE/include}"
gpu/build.sh

echo "== GpuCheck"
# shellcheck disable=SC2086
exec "$JAVA" ${GNNSTREAM_JAVA_OPTS:--Xmx32g} -Dgnnstream.home="$HOME_DIR" \
  -Dgnnstream.gpu.library="$HOME_DIR/gpu/lib/libgnnstream_gpu.so" \
  -cp "$JAR" io.gnnstream.benchmarks.gpu.GpuCheck --reference "$BUNDLE/reference" "$@"
