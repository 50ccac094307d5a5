#!/usr/bin/env python3
"""PyTorch as a protocol adapter (see PROTOCOL.md): runs each case with scripts/lib/torch_exec.py,
the same code that labels the fixtures, so it claims every op, dtype and level. Gating it checks
the protocol and the runner end to end; with another torch build it checks that build.

    bcast run --backend "python scripts/adapters/torch_adapter.py"
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from adapter_protocol import Unsupported, serve  # noqa: E402
from casefmt import DTYPES  # noqa: E402
from torch_exec import FixtureError, run_case, torch_version  # noqa: E402

LEVELS = ["shapes", "dtypes", "values", "errors", "messages", "inplace", "aliasing", "strides"]


def run(case):
    try:
        return run_case(case)
    except FixtureError as e:
        raise Unsupported(str(e)) from e


if __name__ == "__main__":
    serve(f"pytorch {torch_version()}", {"ops": None, "dtypes": list(DTYPES), "levels": LEVELS}, run)
