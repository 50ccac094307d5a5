#!/usr/bin/env python3
"""Labels cases with torch: `python -m bcast_suite.label` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.label")
