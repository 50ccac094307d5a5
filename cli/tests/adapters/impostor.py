#!/usr/bin/env python3
"""A protocol adapter for the gate's own tests that answers right where it is looked at and
lies elsewhere: `impostor.py MODE ARG FIXTURE`. It answers every case with its expectation,
read from the fixture file FIXTURE (a cheat only a test adapter can make), claiming every op,
dtype and level, except:

- two-hellos DIR: the first process to start (the one that creates DIR/first) is honest;
  every later one claims only `shapes` and answers the right outcome with wrong values and
  messages, which only its own claim would let pass.
- other-hello-on-restart DIR: the first process is honest until its third case, where it
  exits; every later process says another hello (it claims only `shapes`).
- starts DIR: honest; each process leaves a file DIR/start-PID, so a test counts them.
- offset OFFSET: every fresh result tensor (`"storage": null`) gets the storage offset OFFSET
  (a JSON integer, `-1` say).
- stride STRIDE: every result tensor's first stride is STRIDE.
"""

import json
import os
import sys

MODE, ARG, FIXTURE = sys.argv[1], sys.argv[2], sys.argv[3]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
LEVELS = ["shapes", "dtypes", "values", "errors", "messages", "inplace", "aliasing", "strides"]


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def first_process():
    try:
        os.close(os.open(os.path.join(ARG, "first"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def tensors(outcome):
    result = outcome.get("ok", {}).get("result", {})
    if "tensor" in result:
        return [result["tensor"]]
    return result.get("tensors", [])


def garbled(outcome):
    """The same outcome (returned or raised, result kinds, shapes) with wrong values."""
    if "error" in outcome:
        outcome["error"]["message"] = "not what torch says"
    for tensor in tensors(outcome):
        if "values" in tensor:
            tensor["values"] = [7] * len(tensor["values"])
        if "samples" in tensor:
            tensor["samples"] = [[i, 7] for i, _ in tensor["samples"]]
    return outcome


def main():
    honest = MODE not in ("two-hellos", "other-hello-on-restart") or first_process()
    if MODE == "starts":
        open(os.path.join(ARG, "start-%d" % os.getpid()), "w").close()
    levels = LEVELS if honest else ["shapes"]
    say({"hello": {"name": "impostor", "protocol": 1,
                   "capabilities": {"ops": None, "dtypes": DTYPES, "levels": levels}}})
    with open(FIXTURE) as f:
        expected = {case["id"]: case["expect"] for case in json.load(f)["cases"]}
    for n, line in enumerate(sys.stdin):
        rid = json.loads(line)["id"]
        outcome = expected[rid]
        if MODE == "other-hello-on-restart" and honest and n == 2:
            sys.exit(3)
        if not honest:
            outcome = garbled(outcome)
        for tensor in tensors(outcome):
            if MODE == "offset" and tensor.get("storage") is None:
                tensor["offset"] = int(ARG)
            elif MODE == "stride" and tensor["strides"]:
                tensor["strides"][0] = int(ARG)
        say({"id": rid, "outcome": outcome})


main()
