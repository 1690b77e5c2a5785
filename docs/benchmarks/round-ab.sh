#!/usr/bin/env bash
# The evaluation round under two values of one demo flag, on one generated graph of the
# products-size graph's shape, in one invocation: demo with the baseline value, then with the
# other, REPEATS times in turn, same arguments otherwise.
# Usage: docs/benchmarks/round-ab.sh FLAG BASELINE OTHER [VERTICES] [TRAINERS] [REPEATS]
#   e.g. round-ab.sh store-hidden-rows true false 500000
#        round-ab.sh aggregate-at-owner false true 500000 2
# VERTICES defaults to 500000 (2449029 is products' size); TRAINERS (default 1) also sets the
# parallelism; REPEATS defaults to 1. DEMO_ARGS, if set, replaces the other demo arguments'
# default, --layer-row-cache 512mb (DEMO_ARGS= keeps the job's own 1gb).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 3 ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
flag="$1" baseline="$2" other="$3"
read -r -a extra <<< "${DEMO_ARGS---layer-row-cache 512mb}"
n="${4:-500000}" trainers="${5:-1}" repeats="${6:-1}"
data="$(docs/benchmarks/shaped-graph.sh "$n")"
for ((r = 1; r <= repeats; r++)); do
  for value in "$baseline" "$other"; do
    docs/benchmarks/round-demo.sh "--$flag $value (run $r)" \
      "work/bench/round-$flag-$value-$n-t$trainers-$r.log" "$data" "$trainers" \
      ${extra[@]+"${extra[@]}"} "--$flag" "$value"
  done
done
