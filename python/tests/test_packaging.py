"""The two ways this package is installed agree: the `bcast` wheel (the repository root's
pyproject.toml, maturin) packages this very directory beside the CLI crate's binary, and the
package alone (python/pyproject.toml) has the workspace's version."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

from .support import path

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


def toml(*parts):
    with open(path(*parts), "rb") as f:
        return tomllib.load(f)


@unittest.skipUnless(tomllib, "needs tomllib (Python 3.11)")
class Packaging(unittest.TestCase):
    def test_the_wheel_packages_this_directory_and_the_bcast_binary(self):
        maturin = toml("pyproject.toml")["tool"]["maturin"]
        self.assertEqual(maturin["bindings"], "bin")
        package = os.path.join(path(maturin["python-source"]), maturin["module-name"])
        self.assertEqual(os.path.realpath(package), os.path.realpath(path("python", "bcast_suite")))
        cli = toml(maturin["manifest-path"])
        self.assertEqual([b["name"] for b in cli["bin"]], ["bcast"])
        self.assertIn("version", toml("pyproject.toml")["project"]["dynamic"], "the version is the crate's")

    def test_the_package_alone_has_the_workspace_version_and_leaves_no_build_files(self):
        project = toml("python", "pyproject.toml")
        self.assertEqual(project["project"]["version"], toml("Cargo.toml")["workspace"]["package"]["version"])
        # setuptools wrote build/ and *.egg-info into the checkout; flit_core writes nothing there.
        self.assertEqual(project["build-system"]["build-backend"], "flit_core.buildapi")
        self.assertEqual(project["tool"]["flit"]["module"]["name"], "bcast_suite")


def checkout_files(root):
    """Every file and directory under root, bytecode caches left out."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        found.update(os.path.relpath(os.path.join(dirpath, n), root) for n in dirnames + filenames)
    return found


@unittest.skipUnless(importlib.util.find_spec("flit_core"), "needs flit_core (pip install flit_core)")
class BuildLeavesTheCheckoutAlone(unittest.TestCase):
    def test_building_the_package_writes_nothing_into_python(self):
        before = checkout_files(path("python"))
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", out, path("python")], check=True, capture_output=True, timeout=300)
            wheels = [n for n in os.listdir(out) if n.endswith(".whl")]
            self.assertEqual(len(wheels), 1, wheels)
            self.assertTrue(wheels[0].startswith("bcast_suite-"), wheels)
        self.assertEqual(checkout_files(path("python")) - before, set())


if __name__ == "__main__":
    unittest.main()
