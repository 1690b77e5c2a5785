#!/usr/bin/env bash
# Builds the GPU check's bundle under gpu/bundle/, what a GPU host without Java needs besides the
# repository's tracked files (gpu/check.sh runs it there):
#   runtime/          a jlink'd Java runtime (java.base, java.management and jdk.unsupported only)
#   include/          the JNI headers (jni.h, linux/jni_md.h) that gpu/build.sh compiles the shim with
#   gpu-check.jar     the classes of the GPU model and of GpuCheck, and Jackson; nothing of ND4J or Flink
#   reference/        the CPU (ND4J) reference results GpuCheck compares the CUDA backend with
# then checks the bundle here (--help, --dry-run, and a run that must fail cleanly for want of a
# GPU) and prints the sizes of what travels: the tracked files, the untracked files git does not
# ignore, and the bundle (an ignored path, carried explicitly). Fails if they exceed 64 MiB.
#
# usage: gpu/bundle.sh [--no-build] [--offline]
#   --no-build  use the classes already built (operators, benchmarks) instead of running Maven
#   --offline   run Maven offline (-o)
set -euo pipefail

HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HOME_DIR"
BUNDLE=gpu/bundle
LIMIT=$((64 << 20))

die() { echo "gpu/bundle.sh: $*" >&2; exit 1; }

build=1
mvn_args=(-B -q)
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --offline) mvn_args+=(-o) ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$HOME_DIR/gpu/bundle.sh"; exit 0 ;;
    *) die "unknown argument $arg (see --help)" ;;
  esac
done

# The JDK: $JAVA_HOME, else the one jlink or javac on the PATH belongs to.
if [[ -n "${JAVA_HOME:-}" ]]; then
  JDK="$JAVA_HOME"
else
  tool="$(command -v jlink || command -v javac || true)"
  [[ -n "$tool" ]] || die "no JDK found: set JAVA_HOME to a JDK 17"
  JDK="$(dirname "$(dirname "$(readlink -f "$tool")")")"
fi
[[ -x "$JDK/bin/jlink" && -d "$JDK/jmods" ]] || die "$JDK has no jlink or no jmods/ (needs a full JDK 17)"
[[ -f "$JDK/include/jni.h" && -f "$JDK/include/linux/jni_md.h" ]] || die "$JDK has no JNI headers"

OPS=operators/target/classes
BEN=benchmarks/target/classes
if [[ $build == 1 ]]; then
  echo "Building operators and benchmarks (log: work/gpu-bundle-build.log)..."
  mkdir -p work
  if ! mvn "${mvn_args[@]}" -pl operators,benchmarks -am -DskipTests package > work/gpu-bundle-build.log 2>&1; then
    cat work/gpu-bundle-build.log >&2
    die "the Maven build failed (log: work/gpu-bundle-build.log)"
  fi
fi
[[ -f "$BEN/io/gnnstream/benchmarks/gpu/GpuCheck.class" && -f benchmarks/target/runtime-classpath.txt ]] \
  || die "no built classes: run without --no-build"

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/include/linux"

echo "jlink: the runtime..."
"$JDK/bin/jlink" --add-modules java.base,java.management,jdk.unsupported --compress=2 --strip-debug \
  --no-header-files --no-man-pages --output "$BUNDLE/runtime"

cp "$JDK/include/jni.h" "$BUNDLE/include/"
cp "$JDK/include/linux/jni_md.h" "$BUNDLE/include/linux/"

echo "jar: the GPU model's and the check's classes..."
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
copy() { # copy ROOT PATTERN...: the files under ROOT matching the patterns, keeping their paths
  local root="$1"; shift
  (cd "$root" && for p in "$@"; do compgen -G "$p" > /dev/null || die "no $root/$p"; done \
    && cp --parents -r $@ "$stage/")
}
copy "$OPS" 'io/gnnstream/operators/model' \
  'io/gnnstream/operators/messages/MiniBatch*.class' 'io/gnnstream/operators/messages/BatchAddress.class'
copy "$BEN" 'io/gnnstream/benchmarks/gpu' \
  'io/gnnstream/benchmarks/bench/BatchFile*.class' 'io/gnnstream/benchmarks/bench/FullExpansionBatch.class' \
  'io/gnnstream/benchmarks/bench/Stats.class'
# Jackson (the check's JSON) goes into the same jar, without its module descriptors.
for lib in $(tr ':' '\n' < benchmarks/target/runtime-classpath.txt | grep -E '/jackson-(core|databind|annotations)-[^/]*\.jar$'); do
  (cd "$stage" && unzip -q -o "$lib" -x 'META-INF/*')
done
[[ -d "$stage/com/fasterxml/jackson/databind" ]] || die "no jackson-databind on the benchmarks' class path"
"$JDK/bin/jar" --create --file "$BUNDLE/gpu-check.jar" \
  --main-class io.gnnstream.benchmarks.gpu.GpuCheck -C "$stage" .

echo "GpuReference: the CPU references..."
CP="$BEN:$(cat benchmarks/target/runtime-classpath.txt)"
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" "$JDK/bin/java" -Xmx2g \
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -Dlog4j.configurationFile="$HOME_DIR/flink-conf/log4j2-cli.properties" \
  -cp "$CP" io.gnnstream.benchmarks.gpu.GpuReference --out "$BUNDLE/reference"

# The bundle on its own runtime: usage, the dry run, and a clean failure without a GPU.
JAVA_B="$BUNDLE/runtime/bin/java"
echo "Checking the bundle on its own runtime..."
env -u OUT "$JAVA_B" -cp "$BUNDLE/gpu-check.jar" io.gnnstream.benchmarks.gpu.GpuCheck --help > /dev/null \
  || die "GpuCheck --help fails on the bundle's runtime"
if ! out="$(env -u OUT "$JAVA_B" -cp "$BUNDLE/gpu-check.jar" io.gnnstream.benchmarks.gpu.GpuCheck \
      --dry-run --reference "$BUNDLE/reference" 2>&1)"; then
  echo "$out" >&2
  die "GpuCheck --dry-run fails on the bundle"
fi
echo "$out" | sed -n 's/^/  /;/ND4J\|reference \|batch file\|PASSED/p'
set +e
out="$(env -u OUT "$JAVA_B" -Dgnnstream.gpu.library="$stage/absent/libgnnstream_gpu.so" \
  -cp "$BUNDLE/gpu-check.jar" io.gnnstream.benchmarks.gpu.GpuCheck --reference "$BUNDLE/reference" 2>&1)"
rc=$?
set -e
if [[ $rc != 1 ]] || ! grep -q "FAIL no usable GPU: --device cuda" <<< "$out" \
    || grep -q "NoClassDefFoundError\|ClassNotFoundException" <<< "$out"; then
  echo "$out" >&2
  die "without a GPU, GpuCheck must fail cleanly (exit 1, GpuUnavailableException), got exit $rc"
fi
echo "  without a GPU: exit 1, $(grep -m1 'FAIL no usable GPU' <<< "$out" | cut -c1-100)..."

# What travels: tracked files, untracked files git does not ignore, and the bundle (carried).
sum_files() { xargs -0 -r du -b 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
tracked=$(git ls-files -z | sum_files)
untracked=$(git ls-files -z --others --exclude-standard | sum_files)
bundle=$(du -sb "$BUNDLE" | cut -f1)
total=$((tracked + untracked + bundle))
mib() { awk -v b="$1" 'BEGIN { printf "%8.2f MiB", b / 1048576 }'; }
echo
echo "What a GPU run transfers (carry: $BUNDLE):"
echo "  tracked files          $(mib "$tracked")"
echo "  untracked, not ignored $(mib "$untracked")"
echo "  $BUNDLE             $(mib "$bundle")"
for part in runtime gpu-check.jar reference include; do
  printf '    %-20s %s\n' "$part" "$(mib "$(du -sb "$BUNDLE/$part" | cut -f1)")"
done
echo "  total                  $(mib "$total")   (limit $(mib "$LIMIT"))"
if ((total > LIMIT)); then
  die "the transfer exceeds 64 MiB"
fi
