"""The JAX and array-api-strict adapters (bcast_suite.adapters.jax_adapter,
.array_api_strict_adapter) run a few cases in process and answer the protocol through their entry
points; with the built bcast (cargo build --release, or $BCAST_BIN), the gate runs them over
cases of the corpus: the inputs a dense library cannot take skipped by the hello's declines, and
JAX's gradients judged against torch's labels. Each library's tests are skipped when it is not
installed: `scripts/setup-adapters.sh` makes a venv with both; run them with its python:

    $(scripts/setup-adapters.sh | sed -n 's/.*PYTHON="\\(.*\\)"/\\1/p') -m unittest discover -s python/tests -t python
"""

import importlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

from bcast_suite import kit
from bcast_suite.casefmt import encode_number
from bcast_suite.fill import fill_values

from .support import fixture_cases, path
from .test_ci_recipe import bcast_binary

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


# Cases a dense library cannot take, which the hello's finer declines skip (PROTOCOL.md,
# "Declines"): a stride-0 view of 2^61 x 2 elements, Tensor.view of a transposed input (torch
# raises where the strides do not allow the view), expand to 2^40 elements.
DECLINED = {"regressions/gate/add-new-output-bytes-overflow": "declines inputs of more than 16777216 elements",
            "views/s1/22": "declines stride-dependent outcomes (Tensor.view of the strided view t0)",
            "expand/s1/12": "declines huge results (tag huge-result)"}
DECLINED_FILES = [("regressions", "gate.json"), ("torch", "views.json"), ("torch", "expand.json")]


def gate_run(module, files, ids):
    """The built bcast run over `ids` of the fixture `files` with the adapter's entry point:
    the JSON report's cases by id."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        backend = shlex.join([sys.executable, path("scripts", "adapters", f"{module}.py")])
        id_args = [arg for i in ids for arg in ("--id", i)]
        subprocess.run([bcast_binary(), "run", *(path("fixtures", *f) for f in files), "--backend", backend,
                        "--allow-empty", "-q", "--timeout-ms", "60000", "--json", report, *id_args],
                       cwd=tmp, capture_output=True, text=True, timeout=600)
        with open(report) as f:
            return {c["id"]: c for c in json.load(f)["cases"]}


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
        # The hello declines such an input (max_input_elements), so the runner never sends it.
        self.assertEqual(self.adapter.DECLINES["max_input_elements"], 1 << 24)
        with self.assertRaises(kit.Unsupported):
            self.run_case(HUGE)

    def test_every_claimed_dtype_round_trips(self):
        # Each dtype's fill (values of the dtype by construction), read through a transposed view
        # and cloned: the result has the dtype's name and exactly the values the view sees.
        for dtype in self.adapter.DTYPES:
            fill = {"kind": "random", "len": 6, "seed": 7}
            c = case("Tensor.clone", [{"tensor": "xt"}], {"s": {"dtype": dtype, "fill": fill}},
                     {"xt": tensor("s", [3, 2], [1, 3])})
            storage = fill_values(dtype, fill)
            seen = [storage[i + 3 * j] for i in range(3) for j in range(2)]
            t = the_tensor(self.run_case(c))
            self.assertEqual((t["shape"], t["dtype"]), ([3, 2], dtype), dtype)
            self.assertEqual(t["values"], [encode_number(v) for v in seen], dtype)

    @unittest.skipUnless(bcast_binary(), "needs the bcast binary (cargo build --release, or BCAST_BIN)")
    def test_inputs_a_dense_library_cannot_take_are_skipped_not_failed(self):
        got = gate_run(self.module, DECLINED_FILES, list(DECLINED))
        self.assertEqual(set(got), set(DECLINED))
        for i, why in DECLINED.items():
            self.assertEqual(got[i]["status"], "skip", got[i])
            self.assertTrue(got[i]["detail"].startswith(f"skipped: {why}"), got[i])

    def test_the_entry_point_says_hello_and_answers(self):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        request = json.dumps({"id": "a", "case": SCALAR_NEG}) + "\n"
        done = subprocess.run([sys.executable, path("scripts", "adapters", f"{self.module}.py")], input=request,
                              capture_output=True, text=True, cwd=os.path.abspath(os.sep), env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        hello, answer = [json.loads(line) for line in done.stdout.splitlines()]
        caps = hello["hello"]["capabilities"]
        self.assertEqual(caps["levels"], self.adapter.LEVELS)
        self.assertEqual(caps["dtypes"], list(self.adapter.DTYPES))
        self.assertEqual(caps["declines"]["forms"], ["in_place"])
        self.assertIn("out", caps["declines"]["kwargs"])
        self.assertEqual((caps["declines"]["stride_dependent"], caps["declines"]["huge_results"]), (True, True))
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

    def test_every_dtype_of_the_schema_jax_has_is_claimed(self):
        import jax.numpy as jnp
        has = [name for name in kit.DTYPES if hasattr(jnp, name) and jnp.zeros((), name).dtype.name == name]
        self.assertEqual(list(self.adapter.DTYPES), has)

    def test_einsum_is_claimed(self):
        c = case("torch.einsum", [{"str": "i,j->ij"}, {"tensor": "x"}, {"tensor": "x"}],
                 {"s": {"dtype": "int64", "fill": {"kind": "arange", "len": 2}}}, {"x": tensor("s", [2])})
        self.assertEqual(the_tensor(self.run_case(c))["values"], [0, 0, 0, 1])


def complex_values(desc):
    return [complex(*(float(p) for p in v)) for v in desc["values"]]


FLOATING = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def dtype_of(c, name):
    return c["storages"][c["tensors"][name]["storage"]]["dtype"]


def storage_values(c, name):
    st = c["storages"][c["tensors"][name]["storage"]]
    return st["values"] if "values" in st else fill_values(st["dtype"], st["fill"])


def expected_grads(c):
    """torch's gradient of every `wrt` tensor, or None where torch gave none or raised."""
    grads = (c["expect"].get("ok") or {}).get("grads") or {}
    wanted = [grads.get(name) for name in c["grad"]["wrt"]]
    return None if not wanted or None in wanted else dict(zip(c["grad"]["wrt"], wanted))


def first_case(cases, what, want):
    """The first case of the fixture file (in its order) for which `want` holds; a test that
    finds none fails naming `what`, so a regenerated corpus cannot skip it silently."""
    for c in cases.values():
        if want(c):
            return c
    raise AssertionError(f"fixtures/torch/grad.json has no case with {what}")


def broadcast_floating_pair(fn):
    """`fn` of two floating inputs that both require grad, one of them broadcast (neither 0-d:
    JAX promotes a 0-d tensor as any other, torch as a number)."""
    def want(c):
        if c["call"]["fn"] != fn or len(c["grad"]["wrt"]) != 2 or expected_grads(c) is None:
            return False
        result = c["expect"]["ok"]["result"]["tensor"]["shape"]
        return (all(dtype_of(c, n) in FLOATING and c["tensors"][n]["shape"] for n in c["grad"]["wrt"])
                and any(c["tensors"][n]["shape"] != result for n in c["grad"]["wrt"]))
    return want


def broadcast_tensors_with_upstreams(c):
    return (c["call"]["fn"] == "torch.broadcast_tensors" and len(c["grad"]["upstream"]) > 1
            and expected_grads(c) is not None)


def amax_with_a_tie(c):
    """torch.amax whose gradient has a value that is an upstream value split two to four ways
    (over some dim of a dimensioned input: `dim=[]` reduces nothing in JAX, every dim in torch,
    and JAX has no dim 0 of a 0-d array, differences README names)."""
    grads = expected_grads(c)
    if c["call"]["fn"] != "torch.amax" or grads is None:
        return False
    if not c["tensors"][c["call"]["args"][0]["tensor"]]["shape"]:
        return False
    dims = c["call"]["args"][1:2] + [c["call"].get("kwargs", {}).get("dim")]
    if any(isinstance(d, dict) and list(d.values()) == [[]] for d in dims):
        return False
    ups = [u for t in c["grad"]["upstream"] for u in storage_values(c, t) if isinstance(u, (int, float))]
    return any(isinstance(g, (int, float)) and g != 0 and any(u == g * k for u in ups for k in (2, 3, 4))
               for desc in grads.values() for g in desc["values"])


@unittest.skipUnless(HAS_JAX, "needs jax (scripts/setup-adapters.sh)")
class JaxGradients(unittest.TestCase):
    """jax.vjp's gradients against torch's labels (fixtures/torch/grad.json): the runner's
    verdict where they agree, and the differences README names, as JAX computes them. Each
    test picks its case from the corpus by what it is about, so a regenerated corpus keeps
    the tests meaningful."""

    @classmethod
    def setUpClass(cls):
        cls.adapter = importlib.import_module("bcast_suite.adapters.jax_adapter")
        cls.cases = fixture_cases("fixtures", "torch", "grad.json")

    def agreeing(self):
        """Broadcast inputs of floating dtypes (where, maximum), a list of results with one
        upstream each (broadcast_tensors), ties of amax split evenly as torch splits them."""
        return [first_case(self.cases, "torch.where of two broadcast floating inputs",
                           broadcast_floating_pair("torch.where"))["id"],
                first_case(self.cases, "torch.maximum of two broadcast floating inputs",
                           broadcast_floating_pair("torch.maximum"))["id"],
                first_case(self.cases, "torch.broadcast_tensors with an upstream per result",
                           broadcast_tensors_with_upstreams)["id"],
                first_case(self.cases, "a tie in torch.amax", amax_with_a_tie)["id"]]

    def test_the_hello_claims_grads(self):
        self.assertIn("grads", self.adapter.LEVELS)

    @unittest.skipUnless(bcast_binary(), "needs the bcast binary (cargo build --release, or BCAST_BIN)")
    def test_gradients_of_broadcast_inputs_pass_as_torch_computes_them(self):
        ids = self.agreeing()
        got = gate_run("jax_adapter", [("torch", "grad.json")], ids)
        self.assertEqual({i: c["status"] for i, c in got.items()}, {i: "pass" for i in ids},
                         {i: c.get("detail") for i, c in got.items()})

    def test_a_broadcast_input_gets_its_own_shape_and_dtype_back(self):
        case = first_case(self.cases, "torch.where of two broadcast floating inputs",
                          broadcast_floating_pair("torch.where"))
        got = self.adapter.run_case(case)["ok"]["grads"]
        for name, g in expected_grads(case).items():
            self.assertEqual((got[name]["shape"], got[name]["dtype"]), (g["shape"], g["dtype"]), name)

    def test_complex_gradients_are_the_conjugate_of_torchs(self):
        # torch.abs of a complex tensor: torch's gradient is the conjugate Wirtinger one, JAX's
        # vjp its conjugate.
        def complex_abs(c):
            grads = expected_grads(c)
            return (c["call"]["fn"] == "torch.abs" and grads is not None
                    and dtype_of(c, "t0").startswith("complex")
                    and any(p not in (0, 0.0) and isinstance(p, (int, float))
                            for v in grads["t0"]["values"] for p in v[1:]))
        case = first_case(self.cases, "torch.abs of a complex tensor with a gradient", complex_abs)
        expected = complex_values(expected_grads(case)["t0"])
        got = complex_values(self.adapter.run_case(case)["ok"]["grads"]["t0"])
        finite = [(e, g) for e, g in zip(expected, got) if all(abs(p) < float("inf") for p in (e.real, e.imag))]
        self.assertTrue(finite and any(e.imag != 0 for e, _ in finite))
        for e, g in finite:
            self.assertAlmostEqual(g, e.conjugate(), places=5)

    def test_an_integer_input_is_differentiated_with_no_gradient(self):
        # torch refuses requires_grad on an integer tensor; JAX's vjp takes it and gives a
        # float0 cotangent, answered as no gradient.
        def integer_requires_grad(c):
            error = c["expect"].get("error") or {}
            return (error.get("stage") == "requires_grad" and c["call"]["fn"] == "torch.add"
                    and all(dtype_of(c, n).startswith(("int", "uint")) for n in c["grad"]["wrt"]))
        case = first_case(self.cases, "requires_grad refused on an integer input of torch.add",
                          integer_requires_grad)
        outcome = self.adapter.run_case(case)
        self.assertEqual(outcome["ok"]["grads"], {n: None for n in case["grad"]["wrt"]})

    def test_a_bool_result_takes_its_upstream_and_gives_zeros(self):
        # torch.logical_not: torch's backward raises (the result does not require grad); JAX
        # differentiates the bool result to zeros of the input's dtype.
        case = first_case(self.cases, "torch.logical_not with a backward error",
                          lambda c: c["call"]["fn"] == "torch.logical_not"
                          and "backward_error" in (c["expect"].get("ok") or {}))
        grads = self.adapter.run_case(case)["ok"]["grads"]
        for name in case["grad"]["wrt"]:
            parts = [p for v in grads[name]["values"] for p in (v if isinstance(v, list) else [v])]
            self.assertTrue(parts and all(p == 0 for p in parts), name)


@unittest.skipUnless(HAS_STRICT, "needs array_api_strict (scripts/setup-adapters.sh)")
class ArrayApiStrictAdapter(DenseAdapterCases, unittest.TestCase):
    module = "array_api_strict_adapter"

    def test_every_dtype_of_the_schema_the_standard_has_is_claimed(self):
        import array_api_strict as xp
        has = xp.__array_namespace_info__().dtypes()
        self.assertEqual(list(self.adapter.DTYPES), [name for name in kit.DTYPES if name in has])

    def test_only_the_standards_functions_are_claimed(self):
        self.assertNotIn("torch.einsum", self.adapter.OPS)
        self.assertNotIn("torch.sigmoid", self.adapter.OPS)
        self.assertIn("Tensor.permute", self.adapter.OPS)


if __name__ == "__main__":
    unittest.main()
