"""Re-runs every committed fixture against the installed torch and reports drift: any case
whose outcome differs from its recorded `expect` is shown as a readable diff. Exit status 1 on
drift, so a new torch version's changes are seen at once.

    python -m bcast_suite.verify_fixtures [PATH ...]      (default: the checkout's fixtures/)
"""

import argparse
import difflib
import json
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
            if got != case.get("expect"):
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
