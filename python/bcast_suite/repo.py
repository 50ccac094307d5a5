"""Where the repository's files are, for the maintainer commands (fixtures, seed documents)."""

import os
import subprocess


def root():
    """The checkout this package sits in (as python/bcast_suite/), else the current directory
    (an installed copy of the package has no checkout of its own)."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isfile(os.path.join(here, "Cargo.toml")) and os.path.isdir(os.path.join(here, "fixtures")):
        return here
    return os.getcwd()


def path(*parts):
    """A path inside the repository (see root)."""
    return os.path.join(root(), *parts)


def bcast():
    """The checkout's `bcast` binary, built first (`cargo build --release -p bcast-cli`)."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "bcast-cli"], cwd=root(), check=True)
    return path("target", "release", "bcast")
