#!/usr/bin/env bash
# The evaluation round with and without one Flink setting, in one invocation: demo with
# flink-conf/config.yaml as it is, then with SETTING in it (replacing the key's line; the file is
# restored afterwards), on one generated graph of the products-size graph's shape, same arguments
# otherwise (round-demo.sh).
# Usage: docs/benchmarks/round-conf.sh 'KEY: VALUE' [VERTICES] [TRAINERS]
#   e.g. round-conf.sh 'state.backend.rocksdb.compression.per.level: SNAPPY_COMPRESSION' 2449029 2
# VERTICES defaults to 500000 (2449029 is products' size); TRAINERS (default 1) also sets the
# parallelism.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
setting="$1" n="${2:-500000}" trainers="${3:-1}"
data="$(docs/benchmarks/shaped-graph.sh "$n")"
mkdir -p work/bench
cp flink-conf/config.yaml work/bench/config.yaml.base
trap 'cp work/bench/config.yaml.base flink-conf/config.yaml' EXIT
for run in base setting; do
  cp work/bench/config.yaml.base flink-conf/config.yaml
  if [[ $run == setting ]]; then
    # The setting replaces the key's line, if the file has one.
    grep -v "^${setting%%:*}:" work/bench/config.yaml.base > flink-conf/config.yaml || true
    printf '%s\n' "$setting" >> flink-conf/config.yaml
  fi
  docs/benchmarks/round-demo.sh "$run (${setting})" \
    "work/bench/round-conf-$run-$n-t$trainers.log" "$data" "$trainers"
done
