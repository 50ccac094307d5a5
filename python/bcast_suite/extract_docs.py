"""Extracts every example of the seed documents into fixture cases labelled by torch.

    python -m bcast_suite.extract_docs [--seeds docs/seeds] [--out fixtures/docs] [--report] [--check]

For each document it writes fixtures/docs/<document>.json: one case per torch call (one per
claim when the document states several outcomes of one call), with the document's line, and
the document's claim beside torch's outcome. The same input gives byte-identical output; no
network. --report prints, per document, the examples, cases and claims, and every line that
made no case with the reason. --check writes nothing: it fails unless the files in --out are
byte for byte what this run produces. Both directories default to the checkout's."""

import argparse
import filecmp
import os
import sys
import tempfile

import torch

from . import repo
from .docex.cases import build_cases
from .docex.reader import FORMATS, read_document
from .docex.runner import DocRunner
from .label import write_fixture

# The `generator` recorded in every document fixture.
GENERATOR = "scripts/extract_docs.py"


def extract(path):
    """One document's DocRunner (after its run) and its (call, case) pairs."""
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    runner = DocRunner(name, text)
    runner.run(read_document(name, text), FORMATS[name[:3]]["format"])
    return runner, build_cases(runner.calls, name, name[:3])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default=repo.path("docs", "seeds"))
    p.add_argument("--out", default=repo.path("fixtures", "docs"))
    p.add_argument("--report", action="store_true")
    p.add_argument("--check", action="store_true")
    a = p.parse_args(argv)
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
            write_fixture(os.path.join(out, target), cases, GENERATOR)
            written.append(target)
            if a.report:
                report(fname, runner, pairs, cases)
        if not written:
            print(f"no seed documents in {a.seeds}", file=sys.stderr)
            return 1
        if a.check:
            stale = [f for f in written if not os.path.exists(os.path.join(a.out, f))
                     or not filecmp.cmp(os.path.join(scratch, f), os.path.join(a.out, f), shallow=False)]
            for f in stale:
                print(f"{os.path.join(a.out, f)} is not what scripts/extract_docs.py writes", file=sys.stderr)
            return 1 if stale else 0
    return 0


def report(fname, runner, pairs, cases):
    examples = {call.example for call, _ in pairs}
    claims = sum(1 for c in cases if "doc" in c)
    print(f"{fname}: {len(examples)} examples, {len({id(c) for c, _ in pairs})} calls, "
          f"{len(cases)} cases, {claims} claims")
    for line, why in runner.skipped:
        print(f"  skipped L{line}: {why}")


if __name__ == "__main__":
    sys.exit(main())
