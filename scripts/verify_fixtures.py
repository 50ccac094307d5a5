#!/usr/bin/env python3
"""Re-runs every fixture against the installed torch and shows drift: `python -m bcast_suite.verify_fixtures` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.verify_fixtures")
