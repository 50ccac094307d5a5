#!/usr/bin/env bash
# One long fuzzing session of one target, budgeted in CPU time rather than wall time (the
# machine is shared: a session gets what CPU it can and stops once it has had its budget).
#
#   scripts/fuzz-campaign.sh TARGET CPU_SECONDS [extra libFuzzer args]
#
# Builds nothing: run `cargo +nightly fuzz build -s address -O` first (fuzz.sh does; for
# differential_torch, `cargo +nightly fuzz build -s none --target-dir target/torch --features
# torch -O differential_torch` in the environment of scripts/setup-torch.sh). Runs a
# private copy of the built binary (so rebuilding does not disturb it) on fuzz/corpus/TARGET
# plus fuzz/seeds/TARGET, with fuzz/dicts/TARGET.dict when present, and logs libFuzzer's
# output, the wall and CPU time, to fuzz/logs/TARGET-DATE.log. Findings land in
# fuzz/artifacts/TARGET/. The session also ends after 4 wall-clock hours.
set -uo pipefail
root="$(cd "$(dirname "$0")/../fuzz" && pwd)"
t=$1
budget=$2
shift 2

# differential_torch is built apart, without a sanitizer (see scripts/fuzz.sh).
dir=target
[ "$t" = differential_torch ] && dir=target/torch
built="$root/$dir/x86_64-unknown-linux-gnu/release/$t"
[ -x "$built" ] || { echo "no built target $t: run cargo +nightly fuzz build first" >&2; exit 2; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
bin="${TMPDIR:-/tmp}/bcast-fuzz-$t-$stamp"
cp "$built" "$bin"
mkdir -p "$root/corpus/$t" "$root/artifacts/$t" "$root/logs"
log="$root/logs/$t-$stamp.log"
args=(-artifact_prefix="$root/artifacts/$t/" -rss_limit_mb=4096 -timeout=30
      -max_total_time=14400 -print_final_stats=1)
[ -f "$root/dicts/$t.dict" ] && args+=(-dict="$root/dicts/$t.dict")
seeds=()
[ -d "$root/seeds/$t" ] && seeds=("$root/seeds/$t")

cd "$root"
echo "session start $(date -u +%FT%TZ) target=$t cpu_budget=${budget}s args: ${args[*]} $*" >"$log"
start=$(date +%s)
"$bin" "${args[@]}" "$@" "$root/corpus/$t" "${seeds[@]}" >>"$log" 2>&1 &
pid=$!
tick=$(getconf CLK_TCK)
cpu=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 20
  # utime + stime of the fuzzer, in clock ticks (fields 14 and 15 of /proc/PID/stat).
  if read -r -a stat <"/proc/$pid/stat" 2>/dev/null; then
    cpu=$(( (stat[13] + stat[14]) / tick ))
    if [ "$cpu" -ge "$budget" ]; then kill -INT "$pid"; fi
  fi
done
wait "$pid"
rc=$?
echo "session end $(date -u +%FT%TZ) rc=$rc wall=$(( $(date +%s) - start ))s cpu=${cpu}s" >>"$log"
rm -f "$bin"
exit "$rc"
