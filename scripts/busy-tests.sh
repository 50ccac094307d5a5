#!/usr/bin/env bash
# Runs the README's test command RUNS times in a row while every core is kept busy by another
# process (one shell spinning per core, at the same priority as the tests), then once with the
# machine left alone; stops at the first failing run. Shows that no test's verdict depends on
# time or load. Prints each run's exit status and wall time.
#
#     bash scripts/busy-tests.sh          # RUNS=3 (BCAST_BUSY_RUNS), then a quiet run
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${BCAST_BUSY_RUNS:-3}"
cores=$(nproc)
spinners=()
stop_spinners() {
  for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${spinners[@]}"; do wait "$pid" 2>/dev/null || true; done
  spinners=()
}
trap stop_spinners EXIT

run_tests() {
  local what=$1 began rc=0
  began=$(date +%s)
  INSTA_UPDATE=no cargo test --workspace --release >"target/busy-tests-$what.log" 2>&1 || rc=$?
  local passed
  passed=$(grep -E '^test result:' "target/busy-tests-$what.log" | awk '{s += $4} END {print s + 0}')
  echo "$what: exit $rc, $passed tests passed, $(( $(date +%s) - began )) s (log target/busy-tests-$what.log)"
  return "$rc"
}

mkdir -p target
for i in $(seq 1 "$runs"); do
  for _ in $(seq 1 "$cores"); do
    sh -c 'while :; do :; done' &
    spinners+=($!)
  done
  run_tests "busy-$i"
  stop_spinners
done
run_tests quiet
