#!/usr/bin/env bash
# Times the engine against libtorch (through tch) and ndarray on the broadcasting patterns
# of notes/performance.md, in one run with interleaved repetitions, and prints one Markdown
# table per thread count. Arguments go to `bcast-dev bench` (see `bcast-dev bench --help`):
#
#     scripts/bench.sh                                  # 1 thread, then every core
#     scripts/bench.sh --reps 31 --warmup 3             # the published tables
#     scripts/bench.sh --torch-huge-pages               # libtorch with THP_MEM_ALLOC_ENABLE=1
#     scripts/bench.sh --threads 1 --patterns transposed,small-inner --peers torch
#
# Installs torch 2.13.0 on first use (scripts/setup-torch.sh); progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/setup-torch.sh)"
cargo build --release --quiet -p bcast-tooling --features torch,ndarray --bin bcast-dev
exec "${CARGO_TARGET_DIR:-target}/release/bcast-dev" bench "$@"
