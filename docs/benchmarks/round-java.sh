#!/usr/bin/env bash
# The evaluation round under two sets of JVM options, in one invocation: demo with
# GNNSTREAM_JAVA_OPTS=BASELINE, then with OTHER, on one generated graph of the products-size
# graph's shape, same arguments otherwise (round-demo.sh).
# Usage: docs/benchmarks/round-java.sh 'BASELINE' 'OTHER' [VERTICES] [TRAINERS]
#   e.g. round-java.sh '-Xms6g -Xmx6g -Xmn1g -XX:+UseParallelGC' \
#          '-Xms6g -Xmx6g -Xmn1g -XX:+UseParallelGC -XX:+UseTransparentHugePages' 2449029 2
# VERTICES defaults to 500000 (2449029 is products' size); TRAINERS (default 1) also sets the
# parallelism.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 2 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
n="${3:-500000}" trainers="${4:-1}"
data="$(docs/benchmarks/shaped-graph.sh "$n")"
run=1
for opts in "$1" "$2"; do
  GNNSTREAM_JAVA_OPTS="$opts" docs/benchmarks/round-demo.sh "$opts" \
    "work/bench/round-java-$run-$n-t$trainers.log" "$data" "$trainers"
  run=$((run + 1))
done
