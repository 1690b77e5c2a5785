#!/usr/bin/env bash
# One demo of the round scripts (round-ab.sh, round-builds.sh, round-conf.sh, round-java.sh): on
# the graph DATA, 100 steps and the final round at --batch-size 1024 --fanouts 15,10 --hidden 256,
# TRAINERS trainers at that parallelism, with EXTRA demo arguments; every thread's CPU time is
# recorded (thread-cpu.py) next to LOG; prints the wall time, the round's line and demo's last line.
# Usage: docs/benchmarks/round-demo.sh NAME LOG DATA TRAINERS [EXTRA...]
# GNNSTREAM_HOME (default .) names the checkout whose bin/gnnstream runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 4 ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
name="$1" log="$2" data="$3" trainers="$4"
shift 4
python3 docs/benchmarks/thread-cpu.py record "${log%.log}.cpu" &
recorder=$!
start=$(date +%s)
"${GNNSTREAM_HOME:-.}/bin/gnnstream" demo --dataset "$data" --work-dir work/bench/round-run \
  --batch-size 1024 --fanouts 15,10 --hidden 256 --max-steps 100 --eval-every 100 \
  --trainers "$trainers" --parallelism "$trainers" "$@" > "$log" 2>&1 || true
kill "$recorder"
echo "$name: $(( $(date +%s) - start )) s wall"
grep -h 'Evaluation round of step' "$log" | sed 's/.*Evaluation round/  Evaluation round/'
grep -h '^gnnstream demo' "$log" | sed 's/^/  /'
du -sh work/bench/round-run | sed 's/^/  work dir: /'
rm -rf work/bench/round-run
