#!/usr/bin/env python3
"""torch on the benchmark's eight patterns at several thread counts: `python -m bcast_suite.torch_patterns` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "..", "run_module.py"))["run"]("bcast_suite.torch_patterns")
