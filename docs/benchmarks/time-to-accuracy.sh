#!/usr/bin/env bash
# Time to accuracy of `gnnstream demo` at two commits, side by side, on one dataset folder.
#
#   docs/benchmarks/time-to-accuracy.sh DATASET_DIR [BASELINE_COMMIT] [SEEDS]
#
# Builds BASELINE_COMMIT (default: the commit before layer-wise evaluation, 9cc52aa) in a temporary
# git worktree, then runs `demo --dataset DATASET_DIR --seed S` with each build's defaults for every
# seed in SEEDS (default "1 2 3"), one run at a time, and prints per run: test accuracy, the
# training phase and the start-up around it. The training phase is measured the same way for both
# builds from their --metrics-out lines: from the first progress line (step 10) to the final line.
# The current build also reports its own figures (first step to final line, evaluation time).
set -euo pipefail
DATASET=$(cd "${1:?usage: $0 DATASET_DIR [BASELINE_COMMIT] [SEEDS]}" && pwd)
BASELINE=${2:-9cc52aa}
SEEDS=${3:-1 2 3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mktemp -d)
OLD="$OUT/baseline"
trap 'git -C "$ROOT" worktree remove --force "$OLD" >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT

git -C "$ROOT" worktree add --detach "$OLD" "$BASELINE" >/dev/null
(cd "$OLD" && mvn -B -q -o -DskipTests package) || (cd "$OLD" && mvn -B -q -DskipTests package)
(cd "$ROOT" && mvn -B -q -o -DskipTests package) || (cd "$ROOT" && mvn -B -q -DskipTests package)

run() { # build-dir label seed
  local log="$OUT/$2-$3.log" metrics="$OUT/$2-$3.jsonl" start end
  start=$(date +%s.%N)
  "$1/bin/gnnstream" demo --dataset "$DATASET" --seed "$3" --work-dir "$OUT/work-$2" \
      --metrics-out "$metrics" > "$log" 2>&1
  end=$(date +%s.%N)
  python3 - "$metrics" "$2" "$3" "$start" "$end" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
first = next(l for l in lines if not l.get("final"))
final = next(l for l in lines if l.get("final"))
wall = float(sys.argv[5]) - float(sys.argv[4])
phase = final["elapsed_s"] - first["elapsed_s"]
own = final["elapsed_s"] - final.get("first_step_s", 0.0)
print(f"{sys.argv[2]:8s} seed {sys.argv[3]}: test acc {final['test_acc']:.4f}  step10->final {phase:6.1f} s"
      f"  wall {wall:5.1f} s  start-up {wall - final['elapsed_s']:5.1f} s"
      + (f"  (own: training {own:.1f} s, evaluation {final['eval_s']:.1f} s)" if "eval_s" in final else ""))
PY
}

for seed in $SEEDS; do
  run "$OLD" baseline "$seed"
  run "$ROOT" current "$seed"
done
