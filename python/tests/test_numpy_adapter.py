"""The NumPy adapter (bcast_suite.adapters.numpy_adapter) in process: the argument forms it maps
onto NumPy, and the inputs NumPy cannot hold, which fail the case saying so. Skipped without
NumPy."""

import unittest

from .support import HAS_NUMPY


def case(fn, args, storages, tensors, kwargs=None):
    return {"id": f"t/{fn}", "tags": [], "storages": storages, "tensors": tensors,
            "call": {"fn": fn, "args": args, "kwargs": kwargs or {}}}


def row_major(storage, shape):
    strides, step = [], 1
    for s in reversed(shape):
        strides.insert(0, step)
        step *= max(s, 1)
    return {"storage": storage, "shape": shape, "strides": strides, "offset": 0}


@unittest.skipUnless(HAS_NUMPY, "numpy is not installed")
class NumpyAdapterTest(unittest.TestCase):
    def setUp(self):
        from bcast_suite.adapters import numpy_adapter
        self.adapter = numpy_adapter

    def test_bfloat16_and_complex32_are_the_dtypes_not_claimed(self):
        from bcast_suite.casefmt import DTYPES
        self.assertEqual(set(DTYPES) - set(self.adapter.NP_DTYPES), {"bfloat16", "complex32"})

    def test_where_writes_into_out(self):
        c = case("torch.where", [{"tensor": "c"}, {"tensor": "x"}, {"tensor": "y"}],
                 {"sc": {"dtype": "bool", "values": [True, False]},
                  "sx": {"dtype": "int16", "values": [1, 2]},
                  "sy": {"dtype": "int16", "values": [7, 8]},
                  "so": {"dtype": "int32", "values": [0, 0]}},
                 {"c": row_major("sc", [2]), "x": row_major("sx", [2]), "y": row_major("sy", [2]),
                  "o": row_major("so", [2])},
                 kwargs={"out": {"tensor": "o"}})
        ok = self.adapter.run_case(c)["ok"]
        self.assertEqual(ok["result"]["tensor"]["storage"], "so")
        self.assertEqual(ok["result"]["tensor"]["dtype"], "int32")
        self.assertEqual(ok["storages"]["so"], [1, 8])

    def test_numpy_judges_a_none_shape_itself(self):
        c = case("torch.broadcast_shapes", [{"none": None}, {"tuple": [2]}], {}, {})
        error = self.adapter.run_case(c)["error"]
        self.assertEqual(error["type"], "TypeError")
        self.assertIn("not None", error["message"])

    def test_a_view_numpy_cannot_hold_fails_the_case(self):
        from bcast_suite.kit import Unsupported
        c = case("torch.add", [{"tensor": "a"}, {"tensor": "a"}],
                 {"s": {"dtype": "float32", "values": [1.0]}},
                 {"a": {"storage": "s", "shape": [1 << 62, 1], "strides": [0, 0], "offset": 0}})
        with self.assertRaisesRegex(Unsupported, "NumPy cannot hold the input view"):
            self.adapter.run_case(c)


if __name__ == "__main__":
    unittest.main()
