"""The adapter side of the runner's JSON-lines protocol (version 1, see PROTOCOL.md).

An adapter calls serve(name, capabilities, run_case): it prints the hello line, then for each
request line answers {"id", "outcome"} with run_case(case)'s outcome, or {"id", "failure"} when
run_case raises (the adapter could not run the case). Nothing else may go to stdout, so while
serve runs, print() goes to stderr.
"""

import json
import sys
import traceback

PROTOCOL = 1


class Unsupported(Exception):
    """The adapter cannot express this case (an argument or op variant it does not map)."""


def serve(name, capabilities, run_case, stdin=None, stdout=None):
    """Runs the protocol until stdin ends; stdin and stdout default to the process's own."""
    out = stdout or sys.stdout
    requests = stdin or sys.stdin
    saved, sys.stdout = sys.stdout, sys.stderr  # stray prints must not corrupt the stream

    def say(obj):
        out.write(json.dumps(obj, allow_nan=False, separators=(",", ":")) + "\n")
        out.flush()

    try:
        say({"hello": {"name": name, "protocol": PROTOCOL, "capabilities": capabilities}})
        for line in requests:
            if not line.strip():
                continue
            request = json.loads(line)
            rid = request["id"]
            try:
                answer = {"id": rid, "outcome": run_case(request["case"])}
                json.dumps(answer, allow_nan=False)
            except Unsupported as e:
                answer = {"id": rid, "failure": str(e)}
            except Exception as e:  # noqa: BLE001 - a bug of the adapter fails this case only
                last = traceback.extract_tb(e.__traceback__)[-1]
                answer = {"id": rid, "failure": f"{type(e).__name__}: {e} (at {last.filename}:{last.lineno})"}
            say(answer)
    finally:
        sys.stdout = saved
