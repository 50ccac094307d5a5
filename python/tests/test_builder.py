"""Writing cases: the case builder, and the tch op cases made with it."""

import random
import unittest

from bcast_suite import tch_op_cases
from bcast_suite.builder import CaseBuilder, contiguous_strides, extent

from .support import load_json


class Builder(unittest.TestCase):
    def test_strides_and_extent(self):
        self.assertEqual(contiguous_strides([2, 3, 4]), [12, 4, 1])
        self.assertEqual(contiguous_strides([2, 0, 3]), [3, 3, 1])
        self.assertEqual(contiguous_strides([]), [])
        self.assertEqual(extent([2, 3], [3, 1]), 6)
        self.assertEqual(extent([4, 3], [0, 1]), 3)
        self.assertEqual(extent([], []), 1)
        self.assertEqual(extent([2, 0], [1, 1]), 0)

    def test_a_case_with_two_views_of_one_storage(self):
        b = CaseBuilder("demo/0", tags=["overlap"])
        s = b.storage("float32", fill={"kind": "arange", "len": 5})
        x = b.view(s, [4], [1], offset=1)
        y = b.view(s, (4,), (1,))
        case = b.call("Tensor.add_", x, y, alpha={"int": 2})
        self.assertEqual(case, {
            "id": "demo/0", "tags": ["overlap"],
            "storages": {"s0": {"dtype": "float32", "fill": {"kind": "arange", "len": 5}}},
            "tensors": {"t0": {"storage": "s0", "shape": [4], "strides": [1], "offset": 1},
                        "t1": {"storage": "s0", "shape": [4], "strides": [1], "offset": 0}},
            "call": {"fn": "Tensor.add_", "args": [{"tensor": "t0"}, {"tensor": "t1"}],
                     "kwargs": {"alpha": {"int": 2}}}})
        self.assertEqual(b.tensor_spec(x)["offset"], 1)

    def test_a_storage_has_a_fill_or_values(self):
        b = CaseBuilder("demo/1")
        self.assertEqual(b.storage("int64", values=[1, 2], name="v"), "v")
        self.assertEqual(b.random_storage("bool", 3, 4), "s1")
        self.assertEqual(b.case["storages"]["s1"], {"dtype": "bool", "fill": {"kind": "random", "seed": 3, "len": 4}})
        with self.assertRaises(ValueError):
            b.storage("int64")


class TchOpCases(unittest.TestCase):
    def test_the_generator_writes_the_committed_cases(self):
        """conformance/tests/data/tch_ops.json is these cases, labelled by torch."""
        committed = load_json("conformance", "tests", "data", "tch_ops.json")
        self.assertEqual(committed["generator"], "scripts/tch_op_cases.py")
        unlabelled = [{k: v for k, v in c.items() if k != "expect"} for c in committed["cases"]]
        self.assertEqual(tch_op_cases.cases(), unlabelled)

    def test_layouts(self):
        rng = random.Random(0)
        self.assertEqual(tch_op_cases.layout_strides((2, 3), "contiguous", rng), [3, 1])
        self.assertEqual(tch_op_cases.layout_strides((2, 3), "transposed", rng), [1, 2])
        self.assertEqual(tch_op_cases.layout_strides((2, 3), "stepped", rng), [12, 2])
        expanded = tch_op_cases.layout_strides((2, 3, 1), "expanded", rng)
        self.assertEqual(expanded[2], 1)
        self.assertTrue(all(s in (0, c) for s, c in zip(expanded, [3, 1, 1])))

    def test_every_view_fits_its_storage(self):
        for case in tch_op_cases.cases():
            for name, t in case["tensors"].items():
                length = case["storages"][t["storage"]]["fill"]["len"]
                self.assertLessEqual(t["offset"] + extent(t["shape"], t["strides"]), length, (case["id"], name))


if __name__ == "__main__":
    unittest.main()
