"""The two ways this package is installed agree: the `bcast` wheel (the repository root's
pyproject.toml, maturin) packages this very directory beside the CLI crate's binary, and the
package alone (python/pyproject.toml) has the workspace's version."""

import os
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


if __name__ == "__main__":
    unittest.main()
