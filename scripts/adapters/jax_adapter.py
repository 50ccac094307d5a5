#!/usr/bin/env python3
"""JAX as a protocol adapter: `python -m bcast_suite.adapters.jax_adapter` from this checkout (see scripts/run_module.py)."""

import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(HERE, "..", "run_module.py"))["run"]("bcast_suite.adapters.jax_adapter")
