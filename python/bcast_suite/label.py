"""Labels cases with what torch does: reads unlabelled cases (a fixture file, or JSON lines of
cases) and writes a fixture file whose every case has `expect` from running torch.

    python -m bcast_suite.label IN.json|IN.jsonl OUT.json [--generator TEXT]
"""

import argparse
import json
import sys

from .casefmt import schema_for
from .protocol import Unsupported
from .torch_exec import run_case, torch_version


def read_cases(path):
    """The cases of a fixture file or a JSON-lines file, and the file's generator (or None)."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()], None
    data = json.loads(text)
    return data["cases"], data.get("generator")


def label(cases):
    """Sets every case's `expect` to torch's outcome; returns the cases the schema can hold. The
    others are left out, each with a note on stderr: a result of a dtype outside the schema
    (none of torch's CPU computations gives one since complex32 is in it), upstream gradients
    that do not match the results, and a
    failed internal assert of torch's (a bug of torch's, whose message names its build's source
    paths) unless the case is tagged `torch-internal-assert`: such a case pins torch's failure
    on purpose (`fixtures/regressions/error-paths.json`)."""
    kept = []
    for case in cases:
        try:
            case["expect"] = run_case(case)
        except Unsupported as e:
            print(f"left out {case['id']}: {e}", file=sys.stderr)
            continue
        message = case["expect"].get("error", {}).get("message", "")
        backward = case["expect"].get("ok", {}).get("backward_error", {}).get("message", "")
        if not upstream_fits(case):
            print(f"left out {case['id']}: its upstream gradients do not match torch's results", file=sys.stderr)
            continue
        if "INTERNAL ASSERT FAILED" in message + backward and "torch-internal-assert" not in case.get("tags", []):
            # A torch bug, not its semantics (the backward of torch.pow(True, t) in 2.13.0).
            print(f"left out {case['id']}: torch fails an internal assert: {message or backward}", file=sys.stderr)
            continue
        kept.append(case)
    return kept


def upstream_fits(case):
    """Whether a case with `grad` names one upstream gradient per result tensor torch returned
    (the loader's rule); a case without `grad`, or whose call raised, always fits."""
    ok = case["expect"].get("ok")
    if "grad" not in case or ok is None:
        return True
    result = ok["result"]
    tensors = 0 if not isinstance(result, dict) else 1 if "tensor" in result else len(result.get("tensors", []))
    return len(case["grad"]["upstream"]) == tensors


def fixture_text(cases, generator):
    """A fixture file's text, one case per line, so diffs show whole cases; schema 1 unless a case
    uses what a later schema added (casefmt.schema_for)."""
    head = {"schema": schema_for(cases), "torch_version": torch_version(), "generator": generator}
    lines = [json.dumps(c, allow_nan=False, separators=(",", ":")) for c in cases]
    return json.dumps(head)[:-1] + ', "cases": [\n' + ",\n".join(lines) + "\n]}\n"


def write_fixture(path, cases, generator):
    """Writes a fixture file (see fixture_text)."""
    with open(path, "w") as f:
        f.write(fixture_text(cases, generator))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--generator", default=None)
    a = p.parse_args(argv)
    cases, generator = read_cases(a.input)
    write_fixture(a.output, label(cases), a.generator or generator)


if __name__ == "__main__":
    main()
