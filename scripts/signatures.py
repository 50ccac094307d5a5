#!/usr/bin/env python3
"""Writes (or with --check compares) case/data/python_signatures.json, torch's Python argument parser signatures: `python -m bcast_suite.signatures` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.signatures")
