#!/usr/bin/env python3
"""A protocol adapter that runs `Tensor.numel` honestly and starts processes meant to outlive
it: `descendants.py KINDS PID_FILE [HANG_AT]`, for the tests of `tests/it/adapter_processes.rs`.

KINDS is a comma-separated list of what each start of the adapter leaves running (each a
`sleep`, with the adapter's stdout and stderr inherited):
  group    a child in the adapter's process group;
  pgroup   a child in a process group of its own (same session);
  session  a child in a session of its own (setsid);
  daemon   a grandchild in a session of its own whose parent exits (setsid and double fork),
           so that it is orphaned while the adapter runs.
Each start appends one line `KIND PID ADAPTER_PID` per process to PID_FILE before its hello.
With HANG_AT, the first start (only: PID_FILE.hung records it) hangs at case HANG_AT; every
start exits by itself at the end of its input.
"""

import json
import math
import os
import subprocess
import sys
import time

KINDS = [k for k in sys.argv[1].split(",") if k]
PID_FILE = sys.argv[2]
HANG_AT = int(sys.argv[3]) if len(sys.argv) > 3 else None
SLEEP = ["sleep", "1000"]


def record(kind, pid):
    with open(PID_FILE, "a") as f:
        f.write(f"{kind} {pid} {os.getpid()}\n")


def daemon():
    """Double fork: the middle process calls setsid, forks the sleeper, and exits."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(r)
        os.setsid()
        sleeper = os.fork()
        if sleeper == 0:
            os.close(w)
            os.execvp(SLEEP[0], SLEEP)
        os.write(w, str(sleeper).encode())
        os._exit(0)
    os.close(w)
    pid = b""
    while chunk := os.read(r, 64):
        pid += chunk
    os.close(r)
    os.waitpid(middle, 0)
    return int(pid)


def start(kind):
    if kind == "group":
        return subprocess.Popen(SLEEP).pid
    if kind == "pgroup":
        return subprocess.Popen(SLEEP, process_group=0).pid
    if kind == "session":
        return subprocess.Popen(SLEEP, start_new_session=True).pid
    if kind == "daemon":
        return daemon()
    raise SystemExit(f"unknown kind {kind!r}")


def main():
    for kind in KINDS:
        record(kind, start(kind))
    hang = HANG_AT is not None and not os.path.exists(PID_FILE + ".hung")
    print(json.dumps({"hello": {"name": "descendants", "protocol": 1,
                                "capabilities": {"ops": ["Tensor.numel"],
                                                 "dtypes": ["float32"],
                                                 "levels": ["shapes", "values"]}}}),
          flush=True)
    for k, line in enumerate(sys.stdin):
        request = json.loads(line)
        if hang and k == HANG_AT:
            open(PID_FILE + ".hung", "w").close()
            while True:
                time.sleep(3600)
        case = request["case"]
        shape = case["tensors"][case["call"]["args"][0]["tensor"]]["shape"]
        print(json.dumps({"id": request["id"],
                          "outcome": {"ok": {"result": {"int": math.prod(shape)}}}}),
              flush=True)


main()
