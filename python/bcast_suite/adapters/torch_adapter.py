"""PyTorch as a protocol adapter (see PROTOCOL.md): runs each case with bcast_suite.torch_exec,
the same code that labels the fixtures, so it claims every op, dtype and level. Gating it checks
the protocol and the runner end to end; with another torch build it checks that build.

    bcast run --backend "python3 scripts/adapters/torch_adapter.py"     # from a checkout
    bcast run --backend "python3 -m bcast_suite.adapters.torch_adapter"  # the package installed
    bcast run --backend "python3 scripts/adapters/torch_adapter.py --device cuda"  # on a GPU

`--device` puts every storage on that torch device (default `cpu`); the fixtures were labelled
on the CPU, so the run measures how the device differs (messages naming the device, ops a
device lacks). A device torch cannot use ends the adapter before its hello, saying why.
"""

import argparse
import sys

import torch

from .. import kit
from ..torch_exec import FixtureError, run_case, torch_version


def main(argv=None):
    parser = argparse.ArgumentParser(description="PyTorch as a bcast protocol adapter")
    parser.add_argument("--device", default="cpu", help="torch device for every storage (default: cpu)")
    args = parser.parse_args(argv)
    try:
        torch.empty(1, device=args.device)
    except Exception as e:  # noqa: BLE001 - any reason the device is unusable ends the adapter
        print(f"torch_adapter: device {args.device!r} is not usable: {e}", file=sys.stderr)
        sys.exit(2)

    def run(case):
        """torch's outcome; a malformed case is a failure of this case only."""
        try:
            return run_case(case, args.device)
        except FixtureError as e:
            raise kit.Unsupported(str(e)) from e

    name = f"pytorch {torch_version()}" + ("" if args.device == "cpu" else f" ({args.device})")
    kit.serve(name, {"ops": None, "dtypes": list(kit.DTYPES), "levels": list(kit.LEVELS)}, run)


if __name__ == "__main__":
    main()
