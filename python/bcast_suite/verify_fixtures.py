"""Re-runs every committed fixture against the installed torch and reports drift: any case
whose outcome differs from its recorded `expect` is shown as a readable diff. Exit status 1 on
drift, so a new torch version's changes are seen at once.

Everything is compared exactly but the finite float values of a case that gives a `tolerance`,
which may differ within it as the runner allows (`|got - want| <= atol + rtol * |want|`, complex
values part by part): that is where torch's own answer depends on the processor (its vectorised
loop is 8 floats wide with AVX2 and 16 with AVX512, and rounds differently from its scalar tail),
so a case labelled on one x86 machine verifies on another.

    python -m bcast_suite.verify_fixtures [PATH ...]      (default: the checkout's fixtures/)
"""

import argparse
import difflib
import json
import math
import os
import sys
import time

from . import repo
from .torch_exec import run_case, torch_version


def fixture_files(paths):
    """Every *.json below the given directories (sorted), and the given files."""
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith(".json"):
                        yield os.path.join(root, f)
        else:
            yield p


def _is_float(x):
    return isinstance(x, float) and math.isfinite(x)


def outcomes_agree(recorded, got, tolerance=None):
    """Whether torch's outcome `got` is the `recorded` one: equal, or, with a case tolerance,
    equal but for finite floats that differ within it.

    >>> outcomes_agree({"values": [1.0, "nan"]}, {"values": [1.0000001, "nan"]}, {"rtol": 1e-5, "atol": 0})
    True
    >>> outcomes_agree({"values": [1.0]}, {"values": [1.0000001]})
    False
    >>> outcomes_agree({"shape": [2]}, {"shape": [3]}, {"rtol": 1, "atol": 1})
    False
    """
    if tolerance is None:
        return recorded == got
    if _is_float(recorded) and _is_float(got):
        return abs(got - recorded) <= tolerance["atol"] + tolerance["rtol"] * abs(recorded)
    if isinstance(recorded, dict) and isinstance(got, dict):
        return recorded.keys() == got.keys() and all(
            outcomes_agree(recorded[k], got[k], tolerance) for k in recorded)
    if isinstance(recorded, list) and isinstance(got, list):
        return len(recorded) == len(got) and all(
            outcomes_agree(r, g, tolerance) for r, g in zip(recorded, got))
    return recorded == got


def case_agrees(case, got):
    """Whether torch's outcome `got` is the case's recorded `expect`: outcomes_agree with the
    case's tolerance, and its gradients (schema 3) with the grad tolerance where it has one."""
    recorded = case.get("expect")
    grad_tolerance = case.get("grad", {}).get("tolerance")
    if grad_tolerance is None or "ok" not in (recorded or {}) or "ok" not in got:
        return outcomes_agree(recorded, got, case.get("tolerance"))
    strip = lambda o: {k: v for k, v in o["ok"].items() if k != "grads"}  # noqa: E731
    return (outcomes_agree(strip(recorded), strip(got), case.get("tolerance"))
            and outcomes_agree(recorded["ok"].get("grads"), got["ok"].get("grads"), grad_tolerance))


def pretty(outcome):
    return json.dumps(outcome, indent=1, sort_keys=True).splitlines()


def main(argv=None):
    root = repo.root()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", default=[os.path.join(root, "fixtures")])
    p.add_argument("--max-diffs", type=int, default=20, help="diffs shown in full (all are counted)")
    a = p.parse_args(argv)
    start = time.monotonic()
    total = drifted = 0
    versions = set()
    for path in fixture_files(a.paths):
        with open(path) as f:
            data = json.load(f)
        versions.add(data.get("torch_version"))
        for case in data["cases"]:
            total += 1
            got = run_case(case)
            if not case_agrees(case, got):
                drifted += 1
                if drifted <= a.max_diffs:
                    print(f"--- drift in {case['id']} ({os.path.relpath(path, root)})")
                    diff = difflib.unified_diff(pretty(case.get("expect")), pretty(got), "recorded",
                                                f"torch {torch_version()}", lineterm="", n=2)
                    print("\n".join(diff))
    elapsed = time.monotonic() - start
    recorded = ", ".join(sorted(v for v in versions if v))
    print(f"verified {total} cases against torch {torch_version()} (recorded with {recorded}): "
          f"{drifted} drifted, {elapsed:.1f} s")
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
