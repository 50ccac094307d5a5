#!/usr/bin/env bash
# Profiles rows of the benchmark (issue 17's "a profile that says why"): runs
# `bcast-dev bench --suite all --row LABEL` with libtorch beside the engine under
# `perf record` (with call chains), prints the bench's table, then each side's share of the
# samples taken inside its calls (the calls' own thread, and for two threads or more the
# engine's pool helpers and torch's OpenMP workers) and the functions holding most of them.
# The copy ceiling and the input data's generation are left out. With `--schedule apart`
# each side runs for about the same time (30 ms of untimed calls before each timed one), so
# the shares are even; the times are in the table.
#
#     scripts/profile-row.sh 'sum(-1' --no-out --torch-huge-pages
#     PROFILE_TOP=20 scripts/profile-row.sh '(2,3) < (3,)' --threads 2 --schedule apart
#
# LABEL is any part of the rows' labels (as the tables print them); the other arguments go to
# `bcast-dev bench` (defaults here: --suite all --threads 1 --reps 301 --warmup 3). Needs `perf`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
    echo "usage: scripts/profile-row.sh LABEL [bcast-dev bench arguments]" >&2
    exit 2
fi
label=$1
shift
eval "$(scripts/setup-torch.sh)"
cargo build --release --quiet -p bcast-tooling --features torch,ndarray --bin bcast-dev
defaults=()
case " $* " in *" --suite"*) ;; *) defaults+=(--suite all) ;; esac
case " $* " in *" --threads"*) ;; *) defaults+=(--threads 1) ;; esac
case " $* " in *" --reps"*) ;; *) defaults+=(--reps 301) ;; esac
case " $* " in *" --warmup"*) ;; *) defaults+=(--warmup 3) ;; esac
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf record -q -F 1000 --call-graph dwarf,16384 -o "$data" -- \
    "${CARGO_TARGET_DIR:-target}/release/bcast-dev" bench \
    --peers torch --row "$label" "${defaults[@]}" "$@"
perf script -i "$data" --no-inline -F tid,ip,sym,dso 2>/dev/null | python3 -c '
import collections, re, sys
top = int(sys.argv[1])
# Which side a sample belongs to, from the frames of its call chain (a timed call runs in
# Backend::new_result or write_into of its side, never inlined).
calls = r" as bcast_tooling::bench::Backend>::(new_result|write_into)"
sides = [("engine", re.compile(r"EnginePeer" + calls + r"|bcast_engine::loops::pool::helper")),
         ("torch", re.compile(r"TorchPeer" + calls + r"|gomp_thread_start|libgomp"))]
count = {name: collections.Counter() for name, _ in sides}
# Frames of libtorch without unwinding tables (MKL, SLEEF) end their chains early: a chain
# that reaches neither side but has such a frame counts for torch, unless it is the loading
# of the libraries (their static initialisers, run from the dynamic loader).
torch_code = re.compile(r"/(libtorch[^/]*|libc10[^/]*|libgomp[^/]*|libmkl[^/]*)\)$", re.M)
loading = re.compile(r"\b(_dl_init|call_init|dl_open_worker|_dl_start_user)\b")
def add(frames):
    if not frames:
        return
    chain = "\n".join(frames)
    for name, pattern in sides:
        fallback = name == "torch" and torch_code.search(chain) and not loading.search(chain)
        if pattern.search(chain) or fallback:
            leaf = re.sub(r"^\s*[0-9a-f]+ ", "", frames[0])
            leaf = re.sub(r"\(.*/([^/]*)\)$", r"(\1)", leaf)
            count[name][leaf[:150]] += 1
            return
frames = []
for line in sys.stdin:
    if line.startswith(("\t", " " * 8)) and line.strip():
        frames.append(line.strip())
    else:
        add(frames)
        frames = []
add(frames)
total = sum(sum(c.values()) for c in count.values()) or 1
for name, _ in sides:
    n = sum(count[name].values())
    print(f"{name}: {100 * n / total:.1f}% of the samples in calls ({n})")
    for leaf, k in count[name].most_common(top):
        print(f"  {100 * k / max(n, 1):5.1f}%  {leaf}")
' "${PROFILE_TOP:-12}"
