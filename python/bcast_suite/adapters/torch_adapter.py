"""PyTorch as a protocol adapter (see PROTOCOL.md): runs each case with bcast_suite.torch_exec,
the same code that labels the fixtures, so it claims every op, dtype and level. Gating it checks
the protocol and the runner end to end; with another torch build it checks that build.

    bcast run --backend "python3 scripts/adapters/torch_adapter.py"     # from a checkout
    bcast run --backend "python3 -m bcast_suite.adapters.torch_adapter"  # the package installed
"""

from .. import kit
from ..torch_exec import FixtureError, run_case, torch_version


def run(case):
    """torch's outcome; a malformed case is a failure of this case only."""
    try:
        return run_case(case)
    except FixtureError as e:
        raise kit.Unsupported(str(e)) from e


def main():
    kit.serve(f"pytorch {torch_version()}", {"ops": None, "dtypes": list(kit.DTYPES), "levels": list(kit.LEVELS)}, run)


if __name__ == "__main__":
    main()
