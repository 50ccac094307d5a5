#!/usr/bin/env bash
# Runs cargo-fuzz targets for a given time each.
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS] [-- extra libFuzzer args]
#
# Uses the nightly toolchain with AddressSanitizer when it is installed, and falls back to the
# stable toolchain without a sanitizer (-s none). Seeds come from fuzz/seeds/TARGET (committed)
# and the corpus grows in fuzz/corpus/TARGET (not committed). Installs cargo-fuzz if missing.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

target=${1:-all}
seconds=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

if rustup run nightly rustc --version >/dev/null 2>&1; then
  toolchain=(+nightly); sanitizer=(-s address)
else
  toolchain=(); sanitizer=(-s none)
fi

features=()
if [ -n "${BCAST_FUZZ_FEATURES:-}" ]; then features=(--features "$BCAST_FUZZ_FEATURES"); fi

if [ "$target" = all ]; then
  targets=$(cargo "${toolchain[@]}" fuzz list "${features[@]}")
else
  targets=$target
fi

for t in $targets; do
  mkdir -p "corpus/$t"
  seeds=()
  [ -d "seeds/$t" ] && seeds=("seeds/$t")
  dict=()
  [ -f "dicts/$t.dict" ] && dict=("-dict=dicts/$t.dict")
  echo "== $t for ${seconds}s (${toolchain[*]:-stable} ${sanitizer[*]})"
  cargo "${toolchain[@]}" fuzz run "${sanitizer[@]}" "${features[@]}" -O "$t" "corpus/$t" "${seeds[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 "${dict[@]}" "$@" 2>&1 \
    | grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs)|ERROR|panicked|SUMMARY|Test unit written' || true
  test "${PIPESTATUS[0]}" -eq 0
done
