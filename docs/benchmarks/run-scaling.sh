#!/usr/bin/env bash
# The scaling study of BENCHMARKS.md: ingestion and sampling against graph size and average degree,
# sampling and the whole pipeline against fanouts, then the plots. Appends to scaling.json (delete it
# first for a fresh study). Takes about half an hour on 2 cores; graphs are generated once into work/bench.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
JSON=docs/benchmarks/scaling.json
G=bin/gnnstream

for graph in 10000,10 10000,50 100000,10 100000,50 1000000,10 1000000,50; do
  repeat=3
  [[ $graph == 1000000,* ]] && repeat=1
  # One parallelism per invocation, so that peak RSS is not inherited from an earlier run.
  $G bench ingest --synthetic "$graph,128,10" --threads 1 --repeat "$repeat" --json "$JSON"
  $G bench ingest --synthetic "$graph,128,10" --threads 2 --repeat "$repeat" --json "$JSON"
  $G bench sample --synthetic "$graph,128,10" --threads 1 --repeat 30 --fanouts 25,10 --json "$JSON"
done
for fanouts in 10,5 15,10,5; do
  for graph in 100000,10 1000000,10; do
    $G bench sample --synthetic "$graph,128,10" --threads 1 --repeat 30 --fanouts "$fanouts" --json "$JSON"
  done
done
for fanouts in 10,5 25,10 15,10,5; do
  $G bench pipeline --synthetic 100000,10,128,10 --threads 1 --repeat 20 --fanouts "$fanouts" --json "$JSON"
done
$G plot --json "$JSON" --out docs/benchmarks
