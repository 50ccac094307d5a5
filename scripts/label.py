#!/usr/bin/env python3
"""Labels cases with what torch does: reads unlabelled cases (a fixture file, or JSON lines of
cases) and writes a fixture file whose every case has `expect` from running torch.

    python3 scripts/label.py IN.json|IN.jsonl OUT.json [--generator TEXT]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

from casefmt import SCHEMA  # noqa: E402
from torch_exec import run_case, torch_version  # noqa: E402


def read_cases(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()], None
    data = json.loads(text)
    return data["cases"], data.get("generator")


def label(cases):
    for case in cases:
        case["expect"] = run_case(case)
    return cases


def write_fixture(path, cases, generator):
    """Writes a fixture file with one case per line, so diffs show whole cases."""
    head = {"schema": SCHEMA, "torch_version": torch_version(), "generator": generator}
    lines = [json.dumps(c, allow_nan=False, separators=(",", ":")) for c in cases]
    with open(path, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "cases": [\n')
        f.write(",\n".join(lines))
        f.write("\n]}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--generator", default=None)
    a = p.parse_args()
    cases, generator = read_cases(a.input)
    write_fixture(a.output, label(cases), a.generator or generator)


if __name__ == "__main__":
    main()
