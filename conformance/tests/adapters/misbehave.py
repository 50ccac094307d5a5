#!/usr/bin/env python3
"""A protocol adapter for the runner's own tests, that runs `Tensor.numel` honestly and
misbehaves on purpose: `misbehave.py MODE [N] [STATE_FILE]`.

MODE is one of: good, crash, hang, garbage, binary, wrong-id, bad-outcome, failure,
exit-early (exits cleanly after answering N cases), stderr-flood, no-hello, bad-hello,
exit-before-hello, old-protocol, hang-on-restart (good until case N, then crashes; every later
start hangs before its hello), fork-hang (hangs at case N with a child process whose pid it
writes to STATE_FILE.pid). The misbehaviour happens at the N-th case a process receives
(counted from 0), and only once across restarts when STATE_FILE is given: the file records it.
"""

import json
import math
import os
import subprocess
import sys
import time

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 0
STATE = sys.argv[3] if len(sys.argv) > 3 else None
HELLO = {"hello": {"name": "misbehave-" + MODE, "protocol": 1,
                   "capabilities": {"ops": ["Tensor.numel"],
                                    "dtypes": ["bool", "int64", "float32", "float64"],
                                    "levels": ["shapes", "values"]}}}


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def numel(case):
    name = case["call"]["args"][0]["tensor"]
    return math.prod(case["tensors"][name]["shape"])


def already_misbehaved():
    """Whether an earlier process misbehaved already (and records that this one does)."""
    if STATE is None or MODE == "hang-on-restart":
        return False
    if os.path.exists(STATE):
        return True
    open(STATE, "w").close()
    return False


def hang():
    while True:
        time.sleep(3600)


def main():
    if MODE == "no-hello":
        hang()
    if MODE == "bad-hello":
        print("adapter ready!", flush=True)
        hang()
    if MODE == "exit-before-hello":
        sys.stderr.write("cannot import the library\n")
        sys.exit(4)
    if MODE == "old-protocol":
        HELLO["hello"]["protocol"] = 0
    if MODE == "hang-on-restart":
        if os.path.exists(STATE):
            hang()
        open(STATE, "w").close()
    say(HELLO)
    for k, line in enumerate(sys.stdin):
        request = json.loads(line)
        rid, case = request["id"], request["case"]
        answer = {"id": rid, "outcome": {"ok": {"result": {"int": numel(case)}}}}
        if k == N and not already_misbehaved():
            if MODE in ("crash", "hang-on-restart"):
                sys.stderr.write("boom: segmentation fault (pretend)\n")
                sys.stderr.flush()
                os._exit(3)
            if MODE == "hang":
                hang()
            if MODE == "fork-hang":
                child = subprocess.Popen(["sleep", "600"])
                with open(STATE + ".pid", "w") as f:
                    f.write(str(child.pid))
                hang()
            if MODE == "garbage":
                print("Traceback (most recent call last): oops", flush=True)
                continue
            if MODE == "binary":
                sys.stdout.buffer.write(b"\xff\xfe\x00garbage\n")
                sys.stdout.flush()
                continue
            if MODE == "wrong-id":
                answer["id"] = rid + "-not"
            if MODE == "bad-outcome":
                answer["outcome"] = {"ok": {"result": {"integer": 3}}}
            if MODE == "failure":
                answer = {"id": rid, "failure": "numel of this case is beyond me"}
        if MODE == "stderr-flood":
            sys.stderr.write("warning: " + "x" * 200000 + "\n")
            sys.stderr.flush()
        say(answer)
        if MODE == "exit-early" and k + 1 == N and not already_misbehaved():
            sys.exit(0)


main()
