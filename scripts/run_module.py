"""Runs a bcast_suite module as `python -m` does, with this checkout's python/ first on sys.path:
the one place that puts it there. The entry points beside it (label.py, verify_fixtures.py,
regen_corpus.py, opinfo.py, extract_docs.py, tch_op_cases.py, adapters/*.py) each call run() here, so they
work from a fresh clone with nothing installed. With the package installed
(`pip install ./python`) or PYTHONPATH=python, `python -m bcast_suite.MODULE` needs none of this.

    python3 scripts/run_module.py bcast_suite.label IN OUT     # = python -m bcast_suite.label IN OUT
"""

import os
import runpy
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")


def run(module):
    """Runs `module` as __main__ with the process's arguments, as `python -m module` would."""
    sys.path.insert(0, PYTHON_DIR)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run(sys.argv.pop(1))
