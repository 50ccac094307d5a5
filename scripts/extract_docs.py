#!/usr/bin/env python3
"""Extracts every example of the seed documents into fixture cases labelled by torch.

    python3 scripts/extract_docs.py [--seeds DIR] [--out fixtures/docs] [--report] [--check]

For each document it writes fixtures/docs/<document>.json: one case per torch call (one per
claim when the document states several outcomes of one call), with the document's line, and
the document's claim beside torch's outcome. The same input gives byte-identical output; no
network. --report prints, per document, the examples, cases and claims, and every line that
made no case with the reason. --check writes nothing: it fails unless the files in --out are
byte for byte what this run produces."""

import argparse
import filecmp
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from docex.cases import build_cases  # noqa: E402
from docex.reader import FORMATS, read_document  # noqa: E402
from docex.runner import DocRunner  # noqa: E402
from label import write_fixture  # noqa: E402

DEFAULT_SEEDS = "/work/shared/seeds"


def extract(path):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    runner = DocRunner(name, text)
    runner.run(read_document(name, text), FORMATS[name[:3]]["format"])
    return runner, build_cases(runner.calls, name, name[:3])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default=DEFAULT_SEEDS)
    p.add_argument("--out", default=os.path.join(HERE, "..", "fixtures", "docs"))
    p.add_argument("--report", action="store_true")
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as scratch:
        out = scratch if a.check else a.out
        os.makedirs(out, exist_ok=True)
        written = []
        for fname in sorted(os.listdir(a.seeds)):
            if fname[:3] not in FORMATS:
                continue
            runner, pairs = extract(os.path.join(a.seeds, fname))
            cases = [c for _, c in pairs]
            target = os.path.splitext(fname)[0] + ".json"
            write_fixture(os.path.join(out, target), cases, "scripts/extract_docs.py")
            written.append(target)
            if a.report:
                report(fname, runner, pairs, cases)
        if a.check:
            stale = [f for f in written if not os.path.exists(os.path.join(a.out, f))
                     or not filecmp.cmp(os.path.join(scratch, f), os.path.join(a.out, f), shallow=False)]
            for f in stale:
                print(f"{os.path.join(a.out, f)} is not what scripts/extract_docs.py writes", file=sys.stderr)
            sys.exit(1 if stale else 0)


def report(fname, runner, pairs, cases):
    examples = {call.example for call, _ in pairs}
    claims = sum(1 for c in cases if "doc" in c)
    print(f"{fname}: {len(examples)} examples, {len({id(c) for c, _ in pairs})} calls, "
          f"{len(cases)} cases, {claims} claims")
    for line, why in runner.skipped:
        print(f"  skipped L{line}: {why}")


if __name__ == "__main__":
    main()
