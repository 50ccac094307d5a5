"""The JAX and array-api-strict adapters (bcast_suite.adapters.jax_adapter,
.array_api_strict_adapter) run a few cases in process and answer the protocol through their entry
points. Each library's tests are skipped when it is not installed: `scripts/setup-adapters.sh`
makes a venv with both; run them with its python:

    $(scripts/setup-adapters.sh | sed -n 's/.*PYTHON="\\(.*\\)"/\\1/p') -m unittest discover -s python/tests -t python
"""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import unittest

from .support import path

HAS_NUMPY = importlib.util.find_spec("numpy") is not None
HAS_JAX = HAS_NUMPY and importlib.util.find_spec("jax") is not None
HAS_STRICT = HAS_NUMPY and importlib.util.find_spec("array_api_strict") is not None


def tensor(storage, shape, strides=None, offset=0):
    if strides is None:
        strides, step = [], 1
        for s in reversed(shape):
            strides.insert(0, step)
            step *= max(s, 1)
    return {"storage": storage, "shape": shape, "strides": strides, "offset": offset}


def case(fn, args, storages, tensors, kwargs=None):
    return {"id": f"t/{fn}", "tags": [], "storages": storages, "tensors": tensors,
            "call": {"fn": fn, "args": args, "kwargs": kwargs or {}}}


# torch.add of an int64 column [3, 1] and a float32 row [1, 4]: a float32 [3, 4].
OUTER_SUM = case("torch.add", [{"tensor": "col"}, {"tensor": "row"}],
                 {"a": {"dtype": "int64", "values": [0, 1, 2]},
                  "b": {"dtype": "float32", "values": [0.5, 1.5, 2.5, 3.5]}},
                 {"col": tensor("a", [3, 1]), "row": tensor("b", [1, 4])})
OUTER_SUM_VALUES = [0.5, 1.5, 2.5, 3.5, 1.5, 2.5, 3.5, 4.5, 2.5, 3.5, 4.5, 5.5]

# A transposed view (strides [1, 2]) times a Python number: the view's elements, not the storage's.
STRIDED_MUL = case("torch.mul", [{"tensor": "xt"}, {"int": 10}],
                   {"s": {"dtype": "int64", "fill": {"kind": "arange", "len": 4}}},
                   {"xt": tensor("s", [2, 2], [1, 2])})

# A 0-d tensor stays 0-d.
SCALAR_NEG = case("torch.neg", [{"tensor": "x"}], {"s": {"dtype": "float64", "values": [2.5]}},
                  {"x": tensor("s", [])})

# [2] + [3] does not broadcast.
MISMATCH = case("torch.add", [{"tensor": "x"}, {"tensor": "y"}],
                {"s": {"dtype": "float32", "fill": {"kind": "arange", "len": 5}}},
                {"x": tensor("s", [2]), "y": tensor("s", [3], offset=2)})

SHAPES = case("torch.broadcast_shapes", [{"tuple": [2, 1]}, {"tuple": [3]}], {}, {})

REDUCE = case("Tensor.sum", [{"tensor": "x"}], {"s": {"dtype": "float64", "fill": {"kind": "arange", "len": 6}}},
              {"x": tensor("s", [2, 3])}, {"dim": {"int": 1}, "keepdim": {"bool": True}})

# A stride-0 view of 2^61 elements: torch holds it in one element, a dense library cannot.
HUGE = case("torch.neg", [{"tensor": "x"}], {"s": {"dtype": "float32", "values": [1.0]}},
            {"x": tensor("s", [1 << 61], [0])})


def the_tensor(outcome):
    return outcome["ok"]["result"]["tensor"]


class DenseAdapterCases:
    """Cases every dense adapter answers as torch does; `module` names the adapter module."""

    module = None

    @classmethod
    def setUpClass(cls):
        cls.adapter = importlib.import_module(f"bcast_suite.adapters.{cls.module}")

    def run_case(self, c):
        return self.adapter.run_case(c)

    def test_outer_sum_broadcasts(self):
        if self.module == "array_api_strict_adapter":
            # The standard does not promote int64 with float32: a TypeError, not torch's float32.
            self.assertEqual(self.run_case(OUTER_SUM)["error"]["type"], "TypeError")
            return
        t = the_tensor(self.run_case(OUTER_SUM))
        self.assertEqual((t["shape"], t["dtype"], t["values"]), ([3, 4], "float32", OUTER_SUM_VALUES))

    def test_strided_input_is_read_through_its_view(self):
        t = the_tensor(self.run_case(STRIDED_MUL))
        self.assertEqual((t["shape"], t["dtype"], t["values"]), ([2, 2], "int64", [0, 20, 10, 30]))

    def test_a_0d_tensor_stays_0d(self):
        t = the_tensor(self.run_case(SCALAR_NEG))
        self.assertEqual((t["shape"], t["dtype"], t["values"]), ([], "float64", [-2.5]))

    def test_a_mismatch_is_an_error(self):
        self.assertIn("error", self.run_case(MISMATCH))

    def test_broadcast_shapes_is_a_size(self):
        self.assertEqual(self.run_case(SHAPES), {"ok": {"result": {"size": [2, 3]}}})

    def test_a_reduction_keeps_its_dim(self):
        t = the_tensor(self.run_case(REDUCE))
        self.assertEqual((t["shape"], t["values"]), ([2, 1], [3.0, 12.0]))

    def test_an_input_too_large_to_copy_fails_the_case(self):
        from bcast_suite.kit import Unsupported
        with self.assertRaises(Unsupported):
            self.run_case(HUGE)

    def test_the_entry_point_says_hello_and_answers(self):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        request = json.dumps({"id": "a", "case": SCALAR_NEG}) + "\n"
        done = subprocess.run([sys.executable, path("scripts", "adapters", f"{self.module}.py")], input=request,
                              capture_output=True, text=True, cwd=os.path.abspath(os.sep), env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        hello, answer = [json.loads(line) for line in done.stdout.splitlines()]
        caps = hello["hello"]["capabilities"]
        self.assertEqual(caps["levels"], ["shapes", "dtypes", "values"])
        self.assertEqual(caps["declines"]["forms"], ["in_place"])
        self.assertIn("out", caps["declines"]["kwargs"])
        self.assertIn("torch.add", caps["ops"])
        self.assertEqual(answer["id"], "a")
        self.assertEqual(the_tensor(answer["outcome"])["values"], [-2.5])


@unittest.skipUnless(HAS_JAX, "needs jax (scripts/setup-adapters.sh)")
class JaxAdapter(DenseAdapterCases, unittest.TestCase):
    module = "jax_adapter"

    def test_out_of_bounds_index_is_clamped_as_jax_documents(self):
        # torch raises IndexError; JAX clamps (jax.numpy's documented indexing): measured, not hidden.
        c = case("getitem", [{"tensor": "x"}, {"index": [{"int": 5}]}],
                 {"s": {"dtype": "int64", "fill": {"kind": "arange", "len": 3}}}, {"x": tensor("s", [3])})
        self.assertEqual(the_tensor(self.run_case(c))["values"], [2])

    def test_einsum_is_claimed(self):
        c = case("torch.einsum", [{"str": "i,j->ij"}, {"tensor": "x"}, {"tensor": "x"}],
                 {"s": {"dtype": "int64", "fill": {"kind": "arange", "len": 2}}}, {"x": tensor("s", [2])})
        self.assertEqual(the_tensor(self.run_case(c))["values"], [0, 0, 0, 1])


@unittest.skipUnless(HAS_STRICT, "needs array_api_strict (scripts/setup-adapters.sh)")
class ArrayApiStrictAdapter(DenseAdapterCases, unittest.TestCase):
    module = "array_api_strict_adapter"

    def test_only_the_standards_functions_are_claimed(self):
        self.assertNotIn("torch.einsum", self.adapter.OPS)
        self.assertNotIn("torch.sigmoid", self.adapter.OPS)
        self.assertIn("Tensor.permute", self.adapter.OPS)


if __name__ == "__main__":
    unittest.main()
