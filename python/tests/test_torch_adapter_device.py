"""The PyTorch adapter's --device: the storages go to that device, the hello names it, and a
device torch cannot use ends the adapter before its hello, saying why."""

import json
import subprocess
import sys
import unittest

from .support import HAS_TORCH, fixture_cases, path


def adapter(*args, stdin=""):
    return subprocess.run([sys.executable, path("scripts", "adapters", "torch_adapter.py"), *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


@unittest.skipUnless(HAS_TORCH, "torch is not installed")
class Device(unittest.TestCase):
    def test_cpu_answers_as_the_labels_say(self):
        cases = list(fixture_cases("fixtures", "torch", "expand.json").values())[:5]
        lines = "".join(json.dumps({"id": c["id"], "case": {k: v for k, v in c.items() if k != "expect"}}) + "\n" for c in cases)
        out = adapter("--device", "cpu", stdin=lines)
        self.assertEqual(out.returncode, 0, out.stderr)
        answers = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual(answers[0]["hello"]["name"].split()[0], "pytorch")
        self.assertNotIn("(", answers[0]["hello"]["name"])
        for case, answer in zip(cases, answers[1:]):
            self.assertEqual(answer["id"], case["id"])
            self.assertEqual(answer["outcome"], case["expect"])

    def test_an_unusable_device_ends_the_adapter_before_its_hello(self):
        out = adapter("--device", "no-such-device")
        self.assertEqual(out.returncode, 2)
        self.assertEqual(out.stdout, "")
        self.assertIn("device 'no-such-device' is not usable", out.stderr)


if __name__ == "__main__":
    unittest.main()
