#!/usr/bin/env python3
"""array-api-strict as a protocol adapter: `python -m bcast_suite.adapters.array_api_strict_adapter` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "..", "run_module.py"))["run"]("bcast_suite.adapters.array_api_strict_adapter")
