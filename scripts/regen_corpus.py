#!/usr/bin/env python3
"""Regenerates the torch corpus with the installed torch: `python -m bcast_suite.regen_corpus` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.regen_corpus")
