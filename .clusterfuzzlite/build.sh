#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script: builds every cargo-fuzz target of fuzz/ with
# libFuzzer and AddressSanitizer and leaves in $OUT, per target TARGET:
#   TARGET                    the fuzzer
#   TARGET_seed_corpus.zip    fuzz/seeds/TARGET and fuzz/regressions/TARGET, flat (when any)
#   TARGET.dict               fuzz/dicts/TARGET.dict (when there is one)
#
# It runs in the image of .clusterfuzzlite/Dockerfile, whose builder sets SRC, OUT, WORK,
# SANITIZER, FUZZING_ENGINE, ARCHITECTURE, RUSTFLAGS, CFLAGS, CXXFLAGS and CUSTOM_LIBFUZZER_PATH
# (a prebuilt libFuzzer), and wraps `cargo fuzz build` for coverage builds. Outside it only SRC
# and OUT are needed (.ci/clusterfuzzlite-build runs it so); the rest has defaults.
#
# differential_torch is not built: it needs libtorch, which the image lacks, and it cannot run
# under AddressSanitizer (libtorch is not instrumented, and the tch backend's `__cxa_throw` hook
# clashes with ASan's). It is a [[bin]] with required-features = ["torch"], so cargo skips it.
set -euo pipefail

cd "$SRC/bcast/fuzz"

excluded=" differential_torch "

case "${FUZZING_ENGINE:-libfuzzer}" in
  libfuzzer) ;;
  *) echo "build.sh: FUZZING_ENGINE=$FUZZING_ENGINE: only libfuzzer is supported" >&2; exit 1 ;;
esac

# The same settings as scripts/fuzz.sh (`-s address -O --codegen-units 16`, and fuzz/Cargo.toml's
# release profile at opt-level 1), so that a build made by one is reused by the other. Coverage
# builds: the builder's cargo wrapper turns `cargo fuzz build` into a plain `cargo build`, whatever
# its options (hence `cargo fuzz build`, never `cargo +x`).
case "${SANITIZER:-address}" in
  address) sanitizer=(-s address) ;;
  coverage) sanitizer=(-s none) ;;
  *) echo "build.sh: SANITIZER=$SANITIZER: only address (and coverage) are supported" >&2; exit 1 ;;
esac

# The builder's triple, else the one ARCHITECTURE names, else the host's (cargo-fuzz's default).
if [ -n "${CARGO_BUILD_TARGET:-}" ]; then
  triple=$CARGO_BUILD_TARGET
elif [ -n "${ARCHITECTURE:-}" ]; then
  case "$ARCHITECTURE" in
    x86_64 | aarch64) triple="$ARCHITECTURE-unknown-linux-gnu" ;;
    *) echo "build.sh: ARCHITECTURE=$ARCHITECTURE is not supported" >&2; exit 1 ;;
  esac
else
  triple=$(rustc -vV | sed -n 's/^host: //p')
fi

# The builder's default toolchain is a nightly (RUSTUP_TOOLCHAIN); elsewhere ask rustup for one.
toolchain=()
rustc --version | grep -q nightly || toolchain=(+nightly)

# CFLAGS and CXXFLAGS are for C and C++ code under test, and these crates have none. The only C++
# in the build is libFuzzer itself, which libfuzzer-sys compiles when the builder gives it no
# prebuilt one (CUSTOM_LIBFUZZER_PATH): the fuzzing engine must not be built with
# -fsanitize=fuzzer-no-link, nor with clang-only flags by another compiler.
if [ -z "${CUSTOM_LIBFUZZER_PATH:-}" ]; then
  unset CFLAGS CXXFLAGS
fi

# RUSTFLAGS, when the builder sets them, are appended by cargo-fuzz to its own.
cargo "${toolchain[@]}" fuzz build -O --codegen-units 16 "${sanitizer[@]}" --target "$triple"

built="target/$triple/release"
for t in $(cargo "${toolchain[@]}" fuzz list); do
  case "$excluded" in *" $t "*) continue ;; esac
  cp "$built/$t" "$OUT/$t"
  seeds=()
  for dir in "seeds/$t" "regressions/$t"; do
    if [ -d "$dir" ]; then
      mapfile -t -O ${#seeds[@]} seeds < <(find "$dir" -type f | sort)
    fi
  done
  rm -f "$OUT/${t}_seed_corpus.zip"
  if [ ${#seeds[@]} -gt 0 ]; then
    zip -q -j "$OUT/${t}_seed_corpus.zip" "${seeds[@]}"
  fi
  if [ -f "dicts/$t.dict" ]; then
    cp "dicts/$t.dict" "$OUT/$t.dict"
  fi
done
