#!/usr/bin/env bash
# Generates, once, a graph of the products-size graph's shape with N vertices (mean in-degree 25,
# 100 signed features, 47 classes, 8/2/90 % train/val/test) under work/bench, and prints its folder.
# Usage: docs/benchmarks/shaped-graph.sh N   (2449029 is products' size)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -ne 1 ]]; then
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
data="work/bench/rows-$1-25-100-47"
if [[ ! -f "$data/edges.csv" ]]; then
  bin/gnnstream generate --vertices "$1" --avg-degree 25 --features 100 --classes 47 \
    --train-fraction 0.08 --val-fraction 0.02 --test-fraction 0.9 --out "$data" --overwrite >&2
fi
echo "$data"
