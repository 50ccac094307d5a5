#!/usr/bin/env bash
# Thread scaling on a many-core machine without a Rust toolchain (the device of
# notes/performance.md, "Thread scaling on 16 cores"): the engine's pattern suite from a
# static `bcast-dev` (built here with RUSTFLAGS="-C target-feature=+crt-static" and
# `--features ndarray`, copied to target/device/), then torch on the same patterns through
# its Python package (default allocator and THP_MEM_ALLOC_ENABLE=1). Writes to $OUT.
set -uo pipefail
out="${OUT:-out}"; mkdir -p "$out"
threads="${THREADS:-1,4,16}"
{ nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|NUMA node\(s\)'; python3 -c 'import torch; print("torch", torch.__version__)'; } > "$out/machine.txt" 2>&1
timeout 200 target/device/bcast-dev bench --threads "$threads" --reps 11 --warmup 2 --dtypes float32 \
    > "$out/engine-patterns.md" 2> "$out/engine-patterns.err"
timeout 100 python3 scripts/device/torch_patterns.py --threads "$threads" --reps 11 > "$out/torch-default.md" 2>&1
THP_MEM_ALLOC_ENABLE=1 timeout 100 python3 scripts/device/torch_patterns.py --threads "$threads" --reps 11 > "$out/torch-thp.md" 2>&1
timeout 120 target/device/bcast-dev bench --suite broad --groups reduce,op,mixed --threads "$threads" --reps 5 --warmup 1 \
    > "$out/engine-broad.md" 2> "$out/engine-broad.err"
echo done > "$out/done"
