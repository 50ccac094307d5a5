"""docs/ci/bcast.yml, the GitHub Actions workflow an implementer copies: valid YAML with the
structure of a workflow (jobs, steps, the shard matrix, the merge job that needs it), and every
`bcast` command line in it uses only flags the built `bcast` has. (.ci/run also validates it
against the workflow schema with action-validator.)"""

import importlib.util
import os
import re
import shlex
import subprocess
import unittest

from .support import path

HAS_YAML = importlib.util.find_spec("yaml") is not None
RECIPE = path("docs", "ci", "bcast.yml")


def bcast_binary():
    """$BCAST_BIN, else the checkout's release build, else None."""
    for candidate in (os.environ.get("BCAST_BIN"), path("target", "release", "bcast")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def squeeze(text):
    """`${{ a.b }}` as `${{a.b}}`, so that an expression is one word."""
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: "${{%s}}" % m.group(1).replace(" ", ""), text)


def bcast_commands(workflow):
    """Every `bcast` command line of the workflow's `run` steps, as words (an expression
    `${{ a.b }}` kept as one word, `${{a.b}}`)."""
    found = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if step.get("shell") == "python":
                continue
            for line in step.get("run", "").replace("\\\n", " ").splitlines():
                words = shlex.split(squeeze(line), comments=True)
                if words and words[0] == "bcast":
                    found.append(words)
    return found


@unittest.skipUnless(HAS_YAML, "needs PyYAML")
class Recipe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import yaml

        with open(RECIPE) as f:
            cls.workflow = yaml.safe_load(f)

    def test_it_is_a_workflow_of_sharded_gate_jobs_and_a_merge_job_after_them(self):
        wf = self.workflow
        # YAML 1.1 reads the key `on` as True.
        self.assertIn(True if True in wf else "on", wf)
        self.assertEqual(set(wf["jobs"]), {"gate", "report"})
        gate, report = wf["jobs"]["gate"], wf["jobs"]["report"]
        shards = gate["strategy"]["matrix"]["shard"]
        self.assertEqual(shards, list(range(1, len(shards) + 1)))
        self.assertFalse(gate["strategy"]["fail-fast"], "every part runs, whatever the others do")
        self.assertEqual(report["needs"], "gate")
        self.assertEqual(report["if"], "always()")
        for name, job in wf["jobs"].items():
            self.assertIn("runs-on", job, name)
            for step in job["steps"]:
                self.assertEqual(len({"uses", "run"} & set(step)), 1, f"{name}: {step}")
                if "uses" in step:
                    self.assertRegex(step["uses"], r"^actions/[a-z-]+@v\d+$", name)

    def test_the_gate_runs_a_shard_with_the_baseline_and_keeps_its_reports(self):
        gate = self.workflow["jobs"]["gate"]
        [run] = [w for w in bcast_commands(self.workflow) if w[1] == "run"]
        option = {w: run[i + 1] for i, w in enumerate(run[:-1]) if w.startswith("--")}
        self.assertEqual(option["--shard"], "${{matrix.shard}}/${{strategy.job-total}}")
        self.assertEqual(option["--backend"], "$BCAST_ADAPTER")
        self.assertEqual(option["--xfail"], "$BCAST_XFAIL")
        self.assertIn("--strict-xfail", run)
        uploads = [s for s in gate["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
        self.assertEqual(len(uploads), 1)
        self.assertEqual(uploads[0]["if"], "always()", "the reports of a failed part are kept")
        kept = squeeze(uploads[0]["with"]["path"]).split()
        for report in ("--junit", "--json", "--html"):
            self.assertIn(option[report], kept)
        for name in ("BCAST_WHEEL", "BCAST_ADAPTER", "BCAST_XFAIL"):
            self.assertIn(name, self.workflow["env"])

    def test_the_report_job_merges_the_parts_the_gate_uploads(self):
        report = self.workflow["jobs"]["report"]
        [merge] = [w for w in bcast_commands(self.workflow) if w[1] == "merge-reports"]
        self.assertEqual(merge[2:], ["bcast-*.json", "-o", "bcast.json", "--junit", "bcast.xml", "--html",
                                     "bcast.html", "--strict-xfail"])
        [keep] = [s for s in report["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
        self.assertEqual(keep["with"]["path"].split(), ["bcast.json", "bcast.xml", "bcast.html"])
        [download] = [s for s in report["steps"] if s.get("uses", "").startswith("actions/download-artifact")]
        self.assertEqual(download["with"]["pattern"], "bcast-part-*")
        self.assertTrue(download["with"]["merge-multiple"])

    @unittest.skipUnless(bcast_binary(), "needs the bcast binary (cargo build --release, or BCAST_BIN)")
    def test_every_flag_it_gives_bcast_is_one_bcast_has(self):
        commands = bcast_commands(self.workflow)
        self.assertGreaterEqual(len(commands), 2)
        for words in commands:
            usage = subprocess.run([bcast_binary(), words[1], "--help"], capture_output=True, text=True,
                                   timeout=60)
            self.assertEqual(usage.returncode, 0, usage.stderr)
            for flag in (w for w in words if w.startswith("-")):
                self.assertRegex(usage.stdout, rf"(^|[\s,]){flag}[\s,=<]", f"bcast {words[1]} has no {flag}")


if __name__ == "__main__":
    unittest.main()
