#!/usr/bin/env python3
"""Writes the unlabelled cases of conformance/tests/data/tch_ops.json: `python -m bcast_suite.tch_op_cases` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.tch_op_cases")
