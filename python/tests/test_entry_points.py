"""The in-repository entry points (scripts/*.py, scripts/adapters/*.py) run their bcast_suite
module from any directory with nothing installed, and the adapters answer the protocol."""

import json
import os
import subprocess
import sys
import unittest

from .support import HAS_NUMPY, HAS_TORCH, fixture_cases, path

ENTRY_POINTS = ["label.py", "verify_fixtures.py", "regen_corpus.py", "opinfo.py", "signatures.py", "extract_docs.py", "tch_op_cases.py",
                "adapters/numpy_adapter.py", "adapters/torch_adapter.py", "adapters/jax_adapter.py",
                "adapters/array_api_strict_adapter.py", "device/torch_patterns.py"]
# Scripts of CI's own that use nothing of bcast_suite (the HTML report's check in Chromium).
STANDALONE = ["check_html_report.py"]


def run(script, *args, stdin=""):
    """Runs scripts/SCRIPT with this python, from the filesystem root, without PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, path("scripts", script), *args], input=stdin, capture_output=True,
                          text=True, cwd=os.path.abspath(os.sep), env=env, timeout=120)


class EntryPoints(unittest.TestCase):
    def test_every_python_file_under_scripts_is_a_thin_entry_point(self):
        found = sorted(os.path.relpath(os.path.join(d, f), path("scripts")).replace(os.sep, "/")
                       for d, _, files in os.walk(path("scripts")) for f in files if f.endswith(".py"))
        self.assertEqual(found, sorted(ENTRY_POINTS + STANDALONE + ["run_module.py"]))
        for script in ENTRY_POINTS:
            with open(path("scripts", script)) as f:
                text = f.read()
            self.assertIn('["run"]("bcast_suite.', text, script)
            self.assertNotIn("sys.path", text, script)

    def test_no_sys_path_insert_outside_run_module(self):
        hits = []
        for top in ("scripts", "python"):
            for d, _, files in os.walk(path(top)):
                for f in files:
                    if f.endswith(".py") and f != "test_entry_points.py":
                        with open(os.path.join(d, f)) as fh:
                            if "sys.path.insert" in fh.read():
                                hits.append(os.path.relpath(os.path.join(d, f), path()))
        self.assertEqual(hits, [os.path.join("scripts", "run_module.py")])

    def test_tch_op_cases_prints_its_cases(self):
        done = run("tch_op_cases.py")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), len(fixture_cases("conformance", "tests", "data", "tch_ops.json")))
        self.assertEqual(json.loads(lines[0])["id"], "tch-ops/add/0")

    @unittest.skipUnless(HAS_TORCH, "needs torch")
    def test_a_command_shows_its_usage(self):
        """One stands for all (each costs a torch import); CI runs verify_fixtures and extract_docs."""
        done = run("label.py", "--help")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("usage: label.py", done.stdout)

    def converse(self, script, *cases):
        requests = "".join(json.dumps({"id": i, "case": c}) + "\n" for i, c in enumerate(cases))
        done = run(script, stdin=requests)
        self.assertEqual(done.returncode, 0, done.stderr)
        hello, *answers = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual(hello["hello"]["protocol"], 1)
        return answers

    @unittest.skipUnless(HAS_NUMPY, "needs numpy")
    def test_the_numpy_adapter_answers(self):
        case = fixture_cases("conformance", "tests", "data", "adapters.json")["adapters/add-expanded-input"]
        self.assertEqual(self.converse("adapters/numpy_adapter.py", case), [{"id": 0, "outcome": case["expect"]}])

    @unittest.skipUnless(HAS_TORCH, "needs torch")
    def test_the_torch_adapter_answers(self):
        case = fixture_cases("conformance", "tests", "data", "adapters.json")["adapters/add_-partial-overlap"]
        bad = dict(case, call={"fn": "numpy.add", "args": []})
        self.assertEqual(self.converse("adapters/torch_adapter.py", case, bad),
                         [{"id": 0, "outcome": case["expect"]}, {"id": 1, "failure": "unknown fn 'numpy.add'"}])


if __name__ == "__main__":
    unittest.main()
