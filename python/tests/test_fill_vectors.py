"""The fill recipes and the sampled positions against the golden vectors that
conformance/tests/fill_vectors.rs checks the Rust implementation against."""

import re
import unittest

from bcast_suite import casefmt, fill

from .support import load_json

VECTORS = load_json("conformance", "tests", "data", "fill_vectors.json")


class FillVectors(unittest.TestCase):
    def test_splitmix64_steps_as_the_vectors_say(self):
        self.assertTrue(VECTORS["splitmix64"])
        for step in VECTORS["splitmix64"]:
            self.assertEqual(fill.splitmix64(step["state"]), (step["next"], step["output"]), step)

    def test_every_fill_recipe_gives_the_vectors_values(self):
        self.assertGreaterEqual(len(VECTORS["fills"]), 20)
        for entry in VECTORS["fills"]:
            got = fill.fill_values(entry["dtype"], entry["fill"])
            self.assertEqual(got, entry["values"], entry["fill"])
            # Same type too: bools stay bools, ints ints, floats floats (True == 1 in Python).
            self.assertEqual([type(v) for v in got], [type(v) for v in entry["values"]], entry["fill"])
            self.assertEqual(casefmt.storage_values(entry), got)

    def test_the_vectors_cover_every_dtype_kind_and_a_seed_past_2_63(self):
        seen = {(e["dtype"], e["fill"]["kind"]) for e in VECTORS["fills"]}
        for dtype in casefmt.DTYPES:
            self.assertIn((dtype, "arange"), seen)
            self.assertIn((dtype, "random"), seen)
        self.assertTrue(any(e["fill"].get("seed", 0) >= 1 << 63 for e in VECTORS["fills"]))

    def test_sampled_positions_are_the_vectors_positions(self):
        for entry in VECTORS["samples"]:
            self.assertEqual(casefmt.sample_positions(entry["numel"]), entry["positions"], entry["numel"])


class FillRecipes(unittest.TestCase):
    def test_arange(self):
        self.assertEqual(fill.fill_values("bool", {"kind": "arange", "len": 3}), [False, True, False])
        self.assertEqual(fill.fill_values("int64", {"kind": "arange", "len": 3}), [0, 1, 2])
        self.assertEqual(fill.fill_values("float64", {"kind": "arange", "len": 2}), [0.0, 1.0])

    def test_random_values_stay_in_range_and_the_seed_defaults_to_0(self):
        floats = fill.fill_values("float32", {"kind": "random", "seed": 5, "len": 500})
        self.assertEqual(set(floats), {(k - 16) / 4 for k in range(33)})
        ints = fill.fill_values("int64", {"kind": "random", "seed": 5, "len": 500})
        self.assertEqual(set(ints), set(range(-10, 11)))
        self.assertEqual(fill.fill_values("int64", {"kind": "random", "len": 4}),
                         fill.fill_values("int64", {"kind": "random", "seed": 0, "len": 4}))

    def test_an_unknown_kind_is_refused(self):
        with self.assertRaises(ValueError):
            fill.fill_values("int64", {"kind": "ones", "len": 2})

    def test_the_module_is_self_contained(self):
        """conformance/src/repro.rs pastes fill.py into snippets: it may import nothing."""
        with open(fill.__file__) as f:
            text = f.read()
        self.assertIsNone(re.search(r"^\s*(import|from)\s", text, re.M))
        namespace = {}
        exec(compile(text, "fill.py", "exec"), namespace)  # noqa: S102 - our own file
        self.assertEqual(namespace["fill_values"]("int64", {"kind": "random", "seed": 9, "len": 6}),
                         fill.fill_values("int64", {"kind": "random", "seed": 9, "len": 6}))


class Sampling(unittest.TestCase):
    def test_small_results_keep_every_value(self):
        for n in (0, 1, casefmt.MAX_FULL_VALUES):
            self.assertIsNone(casefmt.sample_positions(n))

    def test_large_results_keep_64_spread_positions_with_both_ends(self):
        for n in (casefmt.MAX_FULL_VALUES + 1, 10_000, 1 << 40):
            p = casefmt.sample_positions(n)
            self.assertEqual(len(p), casefmt.SAMPLE_COUNT)
            self.assertEqual((p[0], p[-1]), (0, n - 1))
            self.assertEqual(p, sorted(set(p)))


if __name__ == "__main__":
    unittest.main()
