#!/usr/bin/env bash
# The evaluation round with hidden rows in the layer-output store (--store-hidden-rows true, the
# baseline) against the default (the next layer's projections where narrower), on one generated
# graph of the products-size graph's shape, in one invocation: demo twice, same arguments.
# Usage: docs/benchmarks/round-rows.sh [VERTICES]   (default 500000; 2449029 is products' size)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-500000}"
data="work/bench/rows-$n-25-100-47"
if [[ ! -f "$data/edges.csv" ]]; then
  bin/gnnstream generate --vertices "$n" --avg-degree 25 --features 100 --classes 47 \
    --train-fraction 0.08 --val-fraction 0.02 --test-fraction 0.9 --out "$data" --overwrite
fi
for hidden_rows in true false; do
  log="work/bench/rows-$n-hidden-$hidden_rows.log"
  start=$(date +%s)
  bin/gnnstream demo --dataset "$data" --work-dir "work/bench/rows-run" --batch-size 1024 \
    --fanouts 15,10 --hidden 256 --max-steps 100 --eval-every 100 --layer-row-cache 512mb \
    --store-hidden-rows "$hidden_rows" > "$log" 2>&1
  echo "store-hidden-rows $hidden_rows: $(( $(date +%s) - start )) s wall"
  grep -h 'Evaluation round of step' "$log" | sed 's/.*Evaluation round/  Evaluation round/'
  grep -h '^gnnstream demo' "$log" | sed 's/^/  /'
done
