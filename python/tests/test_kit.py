"""The adapter kit: a case's inputs built from fixture cases, arguments, and outcomes."""

import json
import os
import unittest

from bcast_suite import casefmt, kit
from bcast_suite.fill import fill_values

from .support import HAS_TORCH, fixture_cases, path

ADAPTER_CASES = fixture_cases("conformance", "tests", "data", "adapters.json")


def build_lists(case):
    """The case's storages as lists and its views as their row-major elements."""
    return kit.build(case, lambda dtype, values: values,
                     lambda base, shape, strides, offset: kit.view_elements(base, shape, strides, offset))


class Encodings(unittest.TestCase):
    def test_numbers_encode_and_decode(self):
        for value, encoded in [(True, True), (255, 255), (-128, -128), (0.0999755859375, 0.0999755859375),
                               (float("inf"), "inf"), (complex(1.5, float("-inf")), [1.5, "-inf"]),
                               (complex(0, -0.25), [0.0, -0.25])]:
            self.assertEqual(casefmt.encode_number(value), encoded)
            self.assertEqual(casefmt.decode_number(encoded), value)
            self.assertIs(type(casefmt.decode_number(encoded)), type(value))
        nan_pair = casefmt.decode_number(["nan", 2])
        self.assertTrue(isinstance(nan_pair, complex) and nan_pair.real != nan_pair.real and nan_pair.imag == 2.0)
        self.assertEqual(casefmt.encode_number(nan_pair), ["nan", 2.0])

    def test_values_fit_their_dtype_as_the_loader_says(self):
        fits = [("uint8", 0), ("uint8", 255), ("int8", -128), ("int16", 32767), ("int32", -(1 << 31)),
                ("float16", 65504.0), ("float16", 2048), ("float16", float("nan")), ("bfloat16", 0.1015625),
                ("bfloat16", 3.3895313892515355e38), ("float32", 0.1), ("complex64", 1j), ("bool", False),
                ("complex32", complex(2048, -0.25)), ("complex32", complex(float("inf"), float("nan")))]
        for dtype, v in fits:
            self.assertTrue(casefmt.fits(v, dtype), (dtype, v))
        refused = [("uint8", 300), ("uint8", -1), ("int8", 128), ("int32", 1 << 31), ("int64", 1.0),
                   ("uint8", True), ("float16", 0.1), ("float16", 2049), ("float16", 65505.0), ("bfloat16", 257),
                   ("complex32", complex(0.1, 0)), ("complex32", complex(0, 2049)), ("complex32", 1.0),
                   ("float32", 1j), ("complex128", 1.0), ("bool", 1), ("float64", True)]
        for dtype, v in refused:
            self.assertFalse(casefmt.fits(v, dtype), (dtype, v))

    def test_a_file_is_written_with_the_lowest_schema_that_holds_it(self):
        def case(storage_dtype, **kwargs):
            return {"storages": {"s": {"dtype": storage_dtype, "values": []}},
                    "call": {"fn": "torch.sum", "args": [], "kwargs": kwargs}}
        self.assertEqual(casefmt.schema_for([case("float32"), case("bool")]), 1)
        self.assertEqual(casefmt.schema_for([case("float32"), case("uint8")]), 2)
        self.assertEqual(casefmt.schema_for([case("float32", dtype={"dtype": "bfloat16"})]), 2)
        self.assertEqual(casefmt.schema_for([]), 1)
        grad = dict(case("float32"), grad={"wrt": ["t"], "upstream": ["g"]})
        self.assertEqual(casefmt.schema_for([case("uint8"), grad]), 3)
        self.assertEqual(casefmt.schema_for([grad, case("complex32")]), 4)
        self.assertEqual(casefmt.SCHEMA, 4)

    def test_every_dtype_builds_and_is_described(self):
        for dtype in kit.DTYPES:
            case = {"storages": {"s": {"dtype": dtype, "fill": {"kind": "random", "seed": 1, "len": 3}}},
                    "tensors": {"t": {"storage": "s", "shape": [3], "strides": [1]}}}
            storages, tensors = build_lists(case)
            desc = kit.tensor_result([3], dtype, [1], 0, None, lambda: tensors["t"], tensors["t"].__getitem__)
            self.assertEqual([casefmt.decode_number(v) for v in desc["values"]], storages["s"])
            self.assertTrue(all(casefmt.fits(v, dtype) for v in storages["s"]), dtype)


class Build(unittest.TestCase):
    def test_storages_come_from_their_fill_recipes(self):
        storages, _ = build_lists(ADAPTER_CASES["adapters/add-out"])
        self.assertEqual(list(storages), ["a", "b", "o"])
        self.assertEqual(storages["o"], fill_values("float32", {"kind": "random", "seed": 35, "len": 6}))

    def test_views_see_offsets_strides_and_stride_0(self):
        storages, tensors = build_lists(ADAPTER_CASES["adapters/add_-partial-overlap"])
        a = storages["a"]
        self.assertEqual(tensors["x"], a[1:5])
        self.assertEqual(tensors["y"], a[0:4])
        storages, tensors = build_lists(ADAPTER_CASES["adapters/mul-transposed"])
        a = storages["a"]
        self.assertEqual(tensors["x"], [a[0], a[3], a[1], a[4], a[2], a[5]])
        storages, tensors = build_lists(ADAPTER_CASES["adapters/add-expanded-input"])
        self.assertEqual(tensors["x"], storages["a"] * 4)

    def test_built_inputs_give_torchs_recorded_result(self):
        """x + y of add-expanded-input (equal shapes, x expanded) computed on the built lists."""
        case = ADAPTER_CASES["adapters/add-expanded-input"]
        _, tensors = build_lists(case)
        want = case["expect"]["ok"]["result"]["tensor"]["values"]
        self.assertEqual([a + b for a, b in zip(tensors["x"], tensors["y"])], want)

    def test_literal_values_are_decoded(self):
        case = {"storages": {"v": {"dtype": "float64", "values": [1.5, "nan", "-inf"]}},
                "tensors": {"t": {"storage": "v", "shape": [], "strides": []}}}
        storages, tensors = build_lists(case)
        self.assertNotEqual(storages["v"][1], storages["v"][1])
        self.assertEqual(storages["v"][2], float("-inf"))
        self.assertEqual(tensors["t"], [1.5])

    def test_a_literal_value_outside_its_dtype_is_a_fixture_error(self):
        for dtype, v in [("uint8", 300), ("int8", -129), ("float16", 0.1), ("complex64", 1.0), ("int64", 1.5)]:
            with self.assertRaises(kit.FixtureError) as e:
                build_lists({"storages": {"v": {"dtype": dtype, "values": [0 if dtype != "complex64" else [0, 0], v]}}})
            self.assertIn("storage v: values[1]", str(e.exception))

    def test_an_unknown_dtype_is_a_fixture_error(self):
        with self.assertRaises(kit.FixtureError):
            build_lists({"storages": {"v": {"dtype": "int4", "values": [1]}}})

    def test_view_elements_of_an_empty_view(self):
        self.assertEqual(kit.view_elements([1, 2, 3], [2, 0], [1, 1]), [])


class Args(unittest.TestCase):
    def test_plain_args(self):
        tensors = {"x": "X", "y": "Y"}
        cases = [({"tensor": "x"}, "X"), ({"tensors": ["x", "y"]}, ["X", "Y"]), ({"int": 3}, 3),
                 ({"float": "-inf"}, float("-inf")), ({"float": 0.5}, 0.5), ({"bool": True}, True),
                 ({"complex": [1.5, "-inf"]}, complex(1.5, float("-inf"))),
                 ({"ints": [1, 2]}, [1, 2]), ({"list": [3]}, [3]), ({"tuple": [2, 1]}, (2, 1)),
                 ({"size": [4]}, (4,)), ({"none": None}, None), ({"str": "ij->ji"}, "ij->ji"),
                 ({"dtype": "float64"}, "float64")]
        for arg, want in cases:
            self.assertEqual(kit.plain_arg(arg, tensors), want, arg)

    def test_index_items(self):
        index = {"index": [{"slice": [None, 5, 2]}, {"int": -1}, {"none": None}, {"ellipsis": None}]}
        self.assertEqual(kit.plain_arg(index, {}), (slice(None, 5, 2), -1, None, Ellipsis))
        with self.assertRaises(kit.FixtureError):
            kit.index_value({"bool": True})

    def test_an_unknown_kind_is_a_fixture_error(self):
        with self.assertRaises(kit.FixtureError):
            kit.plain_arg({"quaternion": [1, 2, 3, 4]}, {})


class Outcomes(unittest.TestCase):
    def test_writes_storage(self):
        self.assertTrue(kit.writes_storage({"call": {"fn": "Tensor.add_"}}))
        self.assertTrue(kit.writes_storage({"call": {"fn": "torch.add", "kwargs": {"out": {"tensor": "o"}}}}))
        self.assertFalse(kit.writes_storage({"call": {"fn": "torch.add", "kwargs": {"alpha": {"int": 2}}}}))

    def test_a_small_result_keeps_every_value_encoded(self):
        desc = kit.tensor_result((2,), "float32", (1,), 0, None, lambda: [1.0, float("nan")], None)
        self.assertEqual(desc, {"shape": [2], "dtype": "float32", "strides": [1], "offset": 0,
                                "storage": None, "values": [1.0, "nan"]})

    def test_a_large_result_is_read_at_the_sampled_positions_only(self):
        read = []

        def value_at(i):
            read.append(i)
            return float(i)
        desc = kit.tensor_result((100, 100), "float64", (0, 1), 3, "a", None, value_at)
        self.assertNotIn("values", desc)
        self.assertEqual(read, kit.sample_positions(10_000))
        self.assertEqual(desc["samples"][-1], [9999, 9999.0])

    def test_ok_outcome_keeps_storages_only_when_written_or_changed(self):
        case = {"call": {"fn": "torch.add"}}
        self.assertEqual(kit.ok_outcome(case, {"int": 1}, {"a": [1]}, {"a": [1]}), {"ok": {"result": {"int": 1}}})
        self.assertEqual(kit.ok_outcome(case, {"int": 1}, {"a": [1]}, {"a": [2]}, ["UserWarning: w"]),
                         {"ok": {"result": {"int": 1}, "storages": {"a": [2]}, "warnings": ["UserWarning: w"]}})
        written = {"call": {"fn": "Tensor.add_"}}
        self.assertEqual(kit.ok_outcome(written, {"int": 1}, {"a": [1]}, {"a": [1]})["ok"]["storages"], {"a": [1]})

    def test_error_outcome_names_the_builtin_class(self):
        class ShapeError(ValueError):
            pass
        self.assertEqual(kit.error_outcome(ShapeError("bad")), {"error": {"type": "ValueError", "message": "bad"}})
        self.assertEqual(kit.exception_class(KeyError("k"), ("RuntimeError",)), "KeyError")
        self.assertEqual(kit.exception_class(IndexError("i"), ("RuntimeError", "IndexError")), "IndexError")


if __name__ == "__main__":
    unittest.main()


RECORDER = """
import json, sys
from bcast_suite import kit
def run(case):
    with open(sys.argv[1], "a") as f:
        f.write(json.dumps(case) + "\\n")
    raise kit.Unsupported("recorded")
kit.serve("recorder", {"ops": None, "dtypes": list(kit.DTYPES), "levels": ["shapes"]}, run)
"""


def sent_cases(ids):
    """The cases as the built bcast sends them to an adapter, by id: the run's adapter records
    every request's case."""
    import shlex
    import subprocess
    import sys
    import tempfile

    from .test_ci_recipe import bcast_binary

    with tempfile.TemporaryDirectory() as tmp:
        script, log = os.path.join(tmp, "recorder.py"), os.path.join(tmp, "cases.jsonl")
        with open(script, "w") as f:
            f.write(RECORDER)
        backend = shlex.join([sys.executable, script, log])
        env = dict(os.environ, PYTHONPATH=path("python"))
        id_args = [arg for i in ids for arg in ("--id", i)]
        run = subprocess.run([bcast_binary(), "run", path("fixtures", "regressions", "pyargs.json"),
                              path("fixtures", "docs"), "-q", "--backend", backend, *id_args],
                             cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
        if not os.path.exists(log):
            raise AssertionError(f"the adapter was sent no case: {run.stdout}{run.stderr}")
        with open(log) as f:
            return {c["id"]: c for c in map(json.loads, f)}


def _has_bcast():
    from .test_ci_recipe import bcast_binary
    return bcast_binary() is not None


@unittest.skipUnless(_has_bcast(), "needs the bcast binary (cargo build --release, or BCAST_BIN)")
class BoundCalls(unittest.TestCase):
    """The bound call the runner sends beside the call (bcast_case::pyargs binds it) and
    kit.bound_call, which reads it: every parameter by name, however the case passed it."""

    ALPHA = "regressions/pyargs/add-deprecated-alpha-position"  # torch.add(x, 2, r)
    AXIS = "regressions/pyargs/sum-numpy-axis"  # torch.sum(x, axis=1, keepdims=True)
    GETITEM = "docs/004/L67-getitem-c68"  # no generated parser: no binding

    @classmethod
    def setUpClass(cls):
        cls.sent = sent_cases([cls.ALPHA, cls.AXIS, cls.GETITEM])

    def test_alpha_by_position_is_bound_as_alpha(self):
        bound = kit.bound_call(self.sent[self.ALPHA])
        self.assertEqual(bound.args, {"input": {"tensor": "x"}, "alpha": {"int": 2}, "other": {"tensor": "r"},
                                      "out": {"none": None}})
        self.assertEqual(bound.signature, "add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated")

    def test_numpy_spellings_are_bound_to_their_parameter_and_defaults_filled(self):
        bound = kit.bound_call(self.sent[self.AXIS])
        self.assertEqual(bound.args, {"input": {"tensor": "x"}, "dim": {"int": 1}, "keepdim": {"bool": True},
                                      "dtype": {"none": None}, "out": {"none": None}})

    def test_a_call_without_a_parser_has_no_binding(self):
        case = self.sent[self.GETITEM]
        self.assertEqual(case["call"]["fn"], "getitem")
        self.assertIsNone(kit.bound_call(case))

    @unittest.skipUnless(HAS_TORCH, "needs torch")
    def test_torch_computes_the_bound_call_as_the_call_as_written(self):
        import warnings

        import torch
        for rid in (self.ALPHA, self.AXIS):
            case = self.sent[rid]
            _, views = kit.build(case, lambda dtype, values: torch.tensor(values, dtype=getattr(torch, dtype)),
                                 lambda s, shape, strides, offset: s.as_strided(shape, strides, offset))
            args = [kit.plain_arg(a, views) for a in case["call"]["args"]]
            kwargs = {k: kit.plain_arg(a, views) for k, a in case["call"].get("kwargs", {}).items()}
            bound = kit.bound_call(case, lambda a: kit.plain_arg(a, views)).args
            fn = getattr(torch, case["call"]["fn"].split(".")[1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                as_written = fn(*args, **kwargs)
            as_bound = fn(**bound)
            self.assertTrue(torch.equal(as_written, as_bound), rid)
