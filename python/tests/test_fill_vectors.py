"""The fill recipes and the sampled positions against the golden vectors that
conformance/tests/it/fill_vectors.rs checks the Rust implementation against."""

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
            self.assertEqual([casefmt.encode_number(v) for v in got], entry["values"], entry["fill"])
            # Same type too: bools stay bools, ints ints, floats floats (True == 1 in Python).
            want = casefmt.storage_values({"dtype": entry["dtype"], "values": entry["values"]})
            self.assertEqual([type(v) for v in got], [type(v) for v in want], entry["fill"])
            self.assertEqual(casefmt.storage_values(entry), got)
            self.assertEqual(casefmt.storage_values({"dtype": entry["dtype"], "values": entry["values"]}), got)

    def test_the_vectors_cover_every_dtype_kind_and_a_seed_past_2_63(self):
        seen = {(e["dtype"], e["fill"]["kind"]) for e in VECTORS["fills"]}
        for dtype in casefmt.DTYPES:
            self.assertIn((dtype, "arange"), seen)
            self.assertIn((dtype, "random"), seen)
        self.assertTrue(any(e["fill"].get("seed", 0) >= 1 << 63 for e in VECTORS["fills"]))

    def test_arange_past_the_exact_range_wraps_or_rounds_as_the_vectors_say(self):
        self.assertGreaterEqual(len(VECTORS["arange_at"]), 20)
        for entry in VECTORS["arange_at"]:
            got = fill.fill_values(entry["dtype"], {"kind": "arange", "len": entry["index"] + 1})[entry["index"]]
            self.assertEqual(casefmt.encode_number(got), entry["value"], entry)

    def test_every_fill_value_is_exactly_a_value_of_its_dtype(self):
        for entry in VECTORS["fills"]:
            for v in fill.fill_values(entry["dtype"], entry["fill"]):
                self.assertTrue(casefmt.fits(v, entry["dtype"]), (entry["dtype"], v))

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

    def test_arange_is_torch_arange_converted(self):
        self.assertEqual(fill.fill_values("uint8", {"kind": "arange", "len": 258})[254:], [254, 255, 0, 1])
        self.assertEqual(fill.fill_values("int8", {"kind": "arange", "len": 130})[126:], [126, 127, -128, -127])
        self.assertEqual(fill.fill_values("float16", {"kind": "arange", "len": 2052})[2047:],
                         [2047.0, 2048.0, 2048.0, 2050.0, 2052.0])
        self.assertEqual(fill.fill_values("bfloat16", {"kind": "arange", "len": 260})[255:],
                         [255.0, 256.0, 256.0, 258.0, 260.0])
        self.assertEqual(fill.fill_values("complex128", {"kind": "arange", "len": 2}), [0j, 1 + 0j])

    def test_random_values_of_the_new_dtypes(self):
        self.assertEqual(set(fill.fill_values("uint8", {"kind": "random", "seed": 5, "len": 500})), set(range(21)))
        for dtype in ("int8", "int16", "int32"):
            self.assertEqual(fill.fill_values(dtype, {"kind": "random", "seed": 5, "len": 50}),
                             fill.fill_values("int64", {"kind": "random", "seed": 5, "len": 50}))
        for dtype in ("float16", "bfloat16"):
            self.assertEqual(fill.fill_values(dtype, {"kind": "random", "seed": 5, "len": 50}),
                             fill.fill_values("float32", {"kind": "random", "seed": 5, "len": 50}))
        # A complex element takes two draws, the real part first.
        floats = fill.fill_values("float64", {"kind": "random", "seed": 5, "len": 8})
        self.assertEqual(fill.fill_values("complex64", {"kind": "random", "seed": 5, "len": 4}),
                         [complex(floats[2 * i], floats[2 * i + 1]) for i in range(4)])

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
