#!/usr/bin/env bash
# The evaluation round of two builds, in one invocation: demo from a clone of BASE (a commit) and
# demo from this working tree, in turn, on one generated graph of the products-size graph's shape,
# same arguments otherwise (round-demo.sh).
# Usage: docs/benchmarks/round-builds.sh BASE [VERTICES] [TRAINERS] [REPEATS]
#   e.g. round-builds.sh f6fa5b4 2449029 2
# VERTICES defaults to 500000 (2449029 is products' size); TRAINERS (default 1) also sets the
# parallelism; REPEATS defaults to 1. The clone is built offline (mvn -o) under work/bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
base="$(git rev-parse --short "$1")"
n="${2:-500000}" trainers="${3:-1}" repeats="${4:-1}"
data="$(docs/benchmarks/shaped-graph.sh "$n")"
clone="work/bench/build-$base"
if [[ ! -f "$clone/cli/target/.gnnstream-built" ]]; then
  rm -rf "$clone"
  git clone -q . "$clone"
  git -C "$clone" checkout -q "$base"
  (cd "$clone" && mvn -B -o -q -DskipTests package) > "work/bench/build-$base.log" 2>&1
  touch "$clone/cli/target/.gnnstream-built"
fi
for ((r = 1; r <= repeats; r++)); do
  for build in "$base" head; do
    home=.
    [[ $build == head ]] || home="$clone"
    GNNSTREAM_HOME="$home" docs/benchmarks/round-demo.sh "$build (run $r)" \
      "work/bench/round-build-$build-$n-t$trainers-$r.log" "$data" "$trainers"
  done
done
