#!/usr/bin/env python3
"""Imports PyTorch's OpInfo sample and error inputs into fixtures/torch/opinfo.json: `python -m bcast_suite.opinfo` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "run_module.py"))["run"]("bcast_suite.opinfo")
