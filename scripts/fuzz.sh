#!/usr/bin/env bash
# Runs cargo-fuzz targets for a given time each; fails on the first finding.
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS] [-- extra libFuzzer args]
#   scripts/fuzz.sh build               # builds what "all" runs, runs nothing (.ci/run starts
#                                       # it early, beside the other steps)
#
# Uses the nightly toolchain with AddressSanitizer when it is installed, and falls back to the
# stable toolchain without a sanitizer (-s none). Seeds come from fuzz/seeds/TARGET (committed),
# dictionaries from fuzz/dicts/TARGET.dict, and the corpus grows in fuzz/corpus/TARGET (not
# committed); findings land in fuzz/artifacts/TARGET/. Installs cargo-fuzz if missing.
#
# differential_torch (the engine against libtorch) needs BCAST_FUZZ_FEATURES=torch and the
# environment of `eval "$(scripts/setup-torch.sh)"`; "all" skips it otherwise. The features
# apply to that target alone (the others need no libtorch). It always runs
# without a sanitizer: libtorch is not instrumented, and the tch backend's `__cxa_throw` hook
# would clash with AddressSanitizer's.
#
# The build is `-O --codegen-units 16` with fuzz/Cargo.toml's release profile (opt-level 1), the
# same as .clusterfuzzlite/build.sh's, so either reuses the other's.
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
torch=false
if [ -n "${BCAST_FUZZ_FEATURES:-}" ]; then
  features=(--features "$BCAST_FUZZ_FEATURES")
  case ",$BCAST_FUZZ_FEATURES," in *,torch,*) torch=true ;; esac
fi

build_only=false
if [ "$target" = build ]; then
  build_only=true
  target=all
fi

if [ "$target" = all ]; then
  targets=$(cargo "${toolchain[@]}" fuzz list)
else
  targets=$target
fi

for t in $targets; do
  san=("${sanitizer[@]}")
  feats=()
  if [ "$t" = differential_torch ]; then
    if ! $torch; then
      [ "$target" = all ] && { echo "== $t skipped (needs BCAST_FUZZ_FEATURES=torch)"; continue; }
      echo "differential_torch needs BCAST_FUZZ_FEATURES=torch and scripts/setup-torch.sh" >&2
      exit 2
    fi
    # Its own target directory, so the two sanitizer settings do not rebuild each other.
    san=(-s none --target-dir target/torch)
    feats=("${features[@]}")
  fi
  if $build_only; then
    echo "== $t: build (${toolchain[*]:-stable} ${san[*]})"
    cargo "${toolchain[@]}" fuzz build "${san[@]}" "${feats[@]}" -O --codegen-units 16 "$t"
    continue
  fi
  mkdir -p "corpus/$t"
  seeds=()
  [ -d "seeds/$t" ] && seeds=("seeds/$t")
  dict=()
  [ -f "dicts/$t.dict" ] && dict=("-dict=dicts/$t.dict")
  echo "== $t for ${seconds}s (${toolchain[*]:-stable} ${san[*]})"
  cargo "${toolchain[@]}" fuzz run "${san[@]}" "${feats[@]}" -O --codegen-units 16 "$t" "corpus/$t" "${seeds[@]}" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 "${dict[@]}" "$@" 2>&1 \
    | grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs)|ERROR|panicked|SUMMARY|Test unit written' || true
  test "${PIPESTATUS[0]}" -eq 0
done
