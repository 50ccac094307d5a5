"""Times torch on the eight broadcasting patterns of `bcast-dev bench` (float32; alloc, out=
and in-place as there) at several thread counts, medians of interleaved repetitions, and
prints one Markdown table: ms per call for each pattern, variant and thread count. For a
machine where the Rust benchmark cannot link libtorch (another torch version), so the
engine's `bcast-dev bench --peers ndarray` tables and these are read side by side.

    python scripts/device/torch_patterns.py --threads 1,4,16 --reps 11   # = python -m bcast_suite.torch_patterns
"""

import argparse
import statistics
import time

import torch

PATTERNS = [
    ("(16M,) + (16M,)", lambda: (torch.rand(16 << 20), torch.rand(16 << 20)), torch.add),
    ("(16384,1024) + (1024,)", lambda: (torch.rand(16384, 1024), torch.rand(1024)), torch.add),
    ("(32,64,64,128) * (64,1,1)", lambda: (torch.rand(32, 64, 64, 128), torch.rand(64, 1, 1)), torch.mul),
    ("(4096,1) + (1,4096)", lambda: (torch.rand(4096, 1), torch.rand(1, 4096)), torch.add),
    ("(5M,3) + (3,)", lambda: (torch.rand(5 << 20, 3), torch.rand(3)), torch.add),
    ("(1,32,32,2) - (1024,1,1,2)", lambda: (torch.rand(1, 32, 32, 2), torch.rand(1024, 1, 1, 2)), torch.sub),
    ("(4096,4096).T + (4096,4096)", lambda: (torch.rand(4096, 4096).t(), torch.rand(4096, 4096)), torch.add),
]


def median_ms(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", default="1,4,16")
    p.add_argument("--reps", type=int, default=11)
    p.add_argument("--warmup", type=int, default=2)
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    torch.manual_seed(0)
    rows = []
    for label, make, op in PATTERNS:
        x, y = make()
        out = torch.empty(torch.broadcast_shapes(x.shape, y.shape))
        variants = [("alloc", lambda: op(x, y)), ("out=", lambda: op(x, y, out=out))]
        for variant, fn in variants:
            cells = []
            for n in threads:
                torch.set_num_threads(n)
                cells.append(median_ms(fn, a.reps, a.warmup))
            rows.append((label, variant, cells))
    x, b = torch.rand(16384, 1024), torch.rand(1024)
    cells = []
    for n in threads:
        torch.set_num_threads(n)
        cells.append(median_ms(lambda: x.add_(b), a.reps, a.warmup))
    rows.append(("x(16384,1024).add_((1024,))", "in-place", cells))
    print(f"torch {torch.__version__}, {torch.get_num_interop_threads()} interop threads; ms per call (median of {a.reps})")
    print("| pattern | variant | " + " | ".join(f"{n} thread(s)" for n in threads) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in threads) + " |")
    for label, variant, cells in rows:
        print(f"| `{label}` | {variant} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
