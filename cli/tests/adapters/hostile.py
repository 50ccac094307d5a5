#!/usr/bin/env python3
"""A protocol adapter for the gate's own tests that tries to pass without doing the work:
`hostile.py MODE [ARG]`. It runs no tensor code at all.

MODE:
- claim LEVELS_JSON: claims every op and the four dtypes and the levels given (a JSON list),
  and answers `{"int": 0}` to every case.
- claim-ops OPS_JSON: claims the ops given (a JSON list), all levels; answers `{"int": 0}`.
- floats: answers every case with the expectation's int64 values written as floats, which
  it reads from the fixture file ARG (a cheat only a test adapter can make).
- huge-shape FIXTURE, huge-samples FIXTURE: answers every case with its expectation, read from
  the fixture file FIXTURE, except that a sampled result gets a first size of 2^70
  (huge-shape) or sample indices above 2^64 (huge-samples), written as JSON integers.
- silent: says hello, then reads cases and never answers.
- slow SECONDS: answers `{"int": 0}` after sleeping SECONDS per case.
- huge-message MB: answers every case with an error whose message is MB megabytes.
- huge-values MB: answers every case with a tensor whose values list is MB megabytes of `0,`.
- marker PATH: creates PATH at start, then behaves as `claim ["shapes"]`.
- declines DECLINES_JSON: claims every op, level and dtype (all twelve) with the `declines` object given, and
  answers `{"int": 0}` (so every case it does not decline fails).
- echo-wrong PATH: claims every op and level and every dtype but complex64, and answers each case with its
  expectation, read from the fixture files under PATH (a file or a directory), except one case in four (by a
  hash of its id), answered wrong in one of four ways: a value changed, the strides or the error message
  changed, an int for the outcome, or a `failure`; messages and failures carry markup (MARKUP). A run with
  failures of every kind, at any size: the HTML report's checker (scripts/check_html_report.py) opens its page.
"""

import json
import os
import sys
import time
import zlib

MODE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else None
DTYPES = ["bool", "int64", "float32", "float64"]
ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"]
LEVELS = ["shapes", "dtypes", "values", "errors", "messages", "inplace", "aliasing", "strides"]


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello(ops=None, levels=LEVELS, dtypes=DTYPES, declines=None):
    capabilities = {"ops": ops, "dtypes": dtypes, "levels": levels}
    if declines is not None:
        capabilities["declines"] = declines
    say({"hello": {"name": "hostile-" + MODE, "protocol": 1, "capabilities": capabilities}})


def answer_zero(rid):
    say({"id": rid, "outcome": {"ok": {"result": {"int": 0}}}})


def fixture_expectations(path):
    """Every case's expectation in the fixture files under `path`, by case id."""
    files = [path]
    if os.path.isdir(path):
        files = sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names if f.endswith(".json"))
    expected = {}
    for name in files:
        with open(name) as f:
            doc = json.load(f)
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            if "expect" in case:
                expected[case["id"]] = case["expect"]
    return expected


# What `echo-wrong` puts in its messages: markup a report must show as text.
MARKUP = '</script><img src=x onerror="window.bcastPwned=1">'


def echo_wrong(rid, expect):
    """The answer of `echo-wrong`: the expectation, or for one case in four a wrong one."""
    h = zlib.crc32(rid.encode())
    if expect is None or h % 4 != 0:
        return {"id": rid, "outcome": expect} if expect is not None else {"id": rid, "failure": "no expectation"}
    way = (h // 4) % 4
    if way == 0 and "error" in expect:
        error = dict(expect["error"], message=expect["error"]["message"] + " (said differently) " + MARKUP)
        return {"id": rid, "outcome": {"error": error}}
    result = expect.get("ok", {}).get("result", {})
    tensor = result.get("tensor")
    if way == 1 and tensor is not None and tensor.get("values") and isinstance(tensor["values"][0], (int, float)) \
            and not isinstance(tensor["values"][0], bool):
        tensor = dict(tensor, values=[tensor["values"][0] + 1] + tensor["values"][1:])
        return {"id": rid, "outcome": {"ok": dict(expect["ok"], result={"tensor": tensor})}}
    if way in (0, 1) and tensor is not None and tensor.get("strides"):
        tensor = dict(tensor, strides=[s + 1 for s in tensor["strides"]])
        return {"id": rid, "outcome": {"ok": dict(expect["ok"], result={"tensor": tensor})}}
    if way == 2:
        return {"id": rid, "outcome": {"ok": {"result": {"int": 0}}}}
    return {"id": rid, "failure": "echo-wrong fails this case on purpose " + MARKUP}


def write_streamed(head, unit, count, tail):
    """Writes one line, `head` + `unit` * count + `tail`, a megabyte at a time: the adapter
    stays small however long the line (cli/tests/it/gate.rs measures bcast's memory as the
    largest of its own and its adapter's)."""
    sys.stdout.write(head)
    chunk = unit * max(1, (1 << 20) // len(unit))
    per_chunk = len(chunk) // len(unit)
    for _ in range(count // per_chunk):
        sys.stdout.write(chunk)
    sys.stdout.write(unit * (count % per_chunk) + tail)
    sys.stdout.flush()


def main():
    if MODE == "claim":
        hello(levels=json.loads(ARG))
    elif MODE == "claim-dtypes":
        hello(dtypes=json.loads(ARG))
    elif MODE == "claim-ops":
        hello(ops=json.loads(ARG))
    elif MODE == "declines":
        hello(dtypes=ALL_DTYPES, declines=json.loads(ARG))
    elif MODE == "marker":
        open(ARG, "w").close()
        hello(levels=["shapes"])
    elif MODE == "echo-wrong":
        # Read before the hello, whose timeout is longer than a case's.
        expected = fixture_expectations(ARG)
        hello(dtypes=[d for d in ALL_DTYPES if d != "complex64"])
    else:
        hello()
    if MODE != "echo-wrong":
        expected = {}
    if MODE in ("floats", "huge-shape", "huge-samples"):
        with open(ARG) as f:
            for case in json.load(f)["cases"]:
                expected[case["id"]] = case["expect"]
    for line in sys.stdin:
        rid = json.loads(line)["id"]
        if MODE == "silent":
            continue
        if MODE == "slow":
            time.sleep(float(ARG))
            answer_zero(rid)
        elif MODE == "floats":
            outcome = expected[rid]
            tensor = outcome["ok"]["result"]["tensor"]
            tensor["values"] = [float(v) for v in tensor["values"]]
            say({"id": rid, "outcome": outcome})
        elif MODE in ("huge-shape", "huge-samples"):
            outcome = expected[rid]
            result = outcome.get("ok", {}).get("result", {})
            for tensor in [result["tensor"]] if "tensor" in result else result.get("tensors", []):
                if "samples" not in tensor:
                    continue
                if MODE == "huge-shape":
                    tensor["shape"][0] = 2 ** 70
                else:
                    tensor["samples"] = [[2 ** 64 + i, v] for i, v in tensor["samples"]]
            say({"id": rid, "outcome": outcome})
        elif MODE == "echo-wrong":
            say(echo_wrong(rid, expected.get(rid)))
        elif MODE == "huge-message":
            write_streamed('{"id": %s, "outcome": {"error": {"type": "RuntimeError", "message": "' % json.dumps(rid),
                           "x", int(ARG) << 20, '"}}}\n')
        elif MODE == "huge-values":
            write_streamed('{"id": %s, "outcome": {"ok": {"result": {"tensor": {"shape": [3], '
                           '"dtype": "int64", "strides": [1], "values": [' % json.dumps(rid),
                           "0,", (int(ARG) << 20) // 2, '0]}}}}}\n')
        else:
            answer_zero(rid)


main()
