"""The document extractor on the committed seed documents (docs/seeds). Needs torch."""

import contextlib
import io
import os
import shutil
import tempfile
import unittest

from .support import HAS_TORCH, path

if HAS_TORCH:
    import torch

    from bcast_suite import extract_docs, label

SMALL = ("000_b3e26f96d9d67b28", "004_1a2ab7833445cbd9")


@unittest.skipUnless(HAS_TORCH, "needs torch")
class ExtractDocs(unittest.TestCase):
    def setUp(self):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        self.addCleanup(torch.set_num_threads, threads)

    def test_the_seeds_are_in_the_repository_and_read_by_default(self):
        names = sorted(f for f in os.listdir(path("docs", "seeds")) if f.endswith(".txt"))
        self.assertEqual(len(names), 5)
        self.assertEqual(sorted(os.path.splitext(f)[0] for f in os.listdir(path("fixtures", "docs")) if f.endswith(".json")),
                         [os.path.splitext(f)[0] for f in names])

    def test_a_document_gives_its_committed_fixture_byte_for_byte(self):
        for name in SMALL:
            with self.subTest(name):
                _, pairs = extract_docs.extract(path("docs", "seeds", name + ".txt"))
                text = label.fixture_text([c for _, c in pairs], extract_docs.GENERATOR)
                with open(path("fixtures", "docs", name + ".json")) as f:
                    self.assertEqual(text, f.read())

    def test_check_fails_on_a_changed_fixture_and_on_no_documents(self):
        with tempfile.TemporaryDirectory() as tmp:
            seeds, out = os.path.join(tmp, "seeds"), os.path.join(tmp, "out")
            os.makedirs(seeds)
            shutil.copy(path("docs", "seeds", SMALL[0] + ".txt"), seeds)
            shutil.copytree(path("fixtures", "docs"), out)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(extract_docs.main(["--check", "--seeds", seeds, "--out", out]), 0)
                with open(os.path.join(out, SMALL[0] + ".json"), "a") as f:
                    f.write(" ")
                self.assertEqual(extract_docs.main(["--check", "--seeds", seeds, "--out", out]), 1)
                self.assertIn("is not what scripts/extract_docs.py writes", err.getvalue())
                os.remove(os.path.join(seeds, SMALL[0] + ".txt"))
                self.assertEqual(extract_docs.main(["--check", "--seeds", seeds, "--out", out]), 1)
            self.assertIn("no seed documents", err.getvalue())


if __name__ == "__main__":
    unittest.main()
