"""The torch labeller: torch_exec's outcomes against recorded ones, labelling, writing fixture
files, and the drift check. Needs torch."""

import contextlib
import io
import json
import math
import os
import tempfile
import unittest

from .support import HAS_TORCH, fixture_cases, path

if HAS_TORCH:
    from bcast_suite import casefmt, label, torch_exec, verify_fixtures


@unittest.skipUnless(HAS_TORCH, "needs torch")
class TorchExec(unittest.TestCase):
    def test_recorded_outcomes_come_back(self):
        """An ok result, an error, out= with the storages written, a warning, samples, getitem."""
        picks = [("conformance/tests/data/adapters.json", ["adapters/add-expanded-input", "adapters/add_-partial-overlap",
                                                           "adapters/add-out", "adapters/broadcast_shapes"]),
                 ("fixtures/torch/out.json", ["out/s1/3"]),
                 ("fixtures/torch/expand.json", ["expand/s1/12"]),
                 ("fixtures/docs/004_1a2ab7833445cbd9.json", ["docs/004/L67-getitem-c68"])]
        kinds = set()
        for file, ids in picks:
            cases = fixture_cases(*file.split("/"))
            for cid in ids:
                case = cases[cid]
                got = torch_exec.run_case(case)
                self.assertEqual(got, case["expect"], cid)
                kinds.update(got.get("ok", {}).keys() | got.keys())
                kinds.update(got.get("ok", {}).get("result", {}).get("tensor", {}).keys())
        self.assertTrue({"ok", "error", "storages", "warnings", "samples", "values"} <= kinds, kinds)

    def test_a_view_beyond_int64_is_unsupported(self):
        """A stride torch cannot unpack (2**63) is outside the schema, not a failure of the case."""
        case = {"id": "huge", "storages": {"s": {"dtype": "float32", "values": [1.0]}},
                "tensors": {"t": {"storage": "s", "shape": [1, 0], "strides": [1, 2**63], "offset": 0}},
                "call": {"fn": "torch.neg", "args": [{"tensor": "t"}]}}
        with self.assertRaisesRegex(torch_exec.kit.Unsupported, "stride 9223372036854775808 exceeds int64"):
            torch_exec.run_case(case)

    def test_a_malformed_case_is_a_fixture_error_not_an_outcome(self):
        case = {"id": "bad", "storages": {}, "tensors": {}, "call": {"fn": "numpy.add", "args": []}}
        with self.assertRaises(torch_exec.FixtureError):
            torch_exec.run_case(case)


@unittest.skipUnless(HAS_TORCH, "needs torch")
class TorchGrad(unittest.TestCase):
    """Cases with `grad` (schema 3): torch_exec's gradients, backward errors and staged errors
    come back as the corpus recorded them, and a clone takes an in-place call's writes."""

    def kinds(self, case):
        expect = case["expect"]
        if "error" in expect:
            return {"stage"} if "stage" in expect["error"] else {"call-error"}
        found = {"grads"} if "grads" in expect["ok"] else {"backward_error"}
        if case["grad"].get("clone"):
            found.add("clone")
        return found

    def test_recorded_gradients_come_back(self):
        cases = fixture_cases("fixtures", "torch", "grad.json")
        wanted = {"grads", "backward_error", "stage", "call-error", "clone"}
        seen = {}
        for case in cases.values():
            for kind in self.kinds(case) - set(seen):
                seen[kind] = case
            if set(seen) == wanted:
                break
        self.assertEqual(set(seen), wanted)
        for kind, case in seen.items():
            self.assertEqual(torch_exec.run_case(case), case["expect"], (kind, case["id"]))

    def test_an_in_place_call_on_a_clone_writes_no_storage_and_reaches_the_leaf(self):
        case = {"id": "clone", "storages": {"x": {"dtype": "float32", "values": [1.0, 2.0]},
                                            "y": {"dtype": "float32", "values": [3.0]},
                                            "g": {"dtype": "float32", "values": [1.0, 1.0]}},
                "tensors": {"x": {"storage": "x", "shape": [2], "strides": [1]},
                            "y": {"storage": "y", "shape": [1], "strides": [1]},
                            "g": {"storage": "g", "shape": [2], "strides": [1]}},
                "call": {"fn": "Tensor.mul_", "args": [{"tensor": "x"}, {"tensor": "y"}]},
                "grad": {"wrt": ["x", "y"], "clone": ["x"], "upstream": ["g"]}}
        ok = torch_exec.run_case(case)["ok"]
        self.assertEqual(ok["storages"]["x"], [1.0, 2.0])
        self.assertEqual(ok["result"]["tensor"]["storage"], None)
        self.assertEqual(ok["grads"]["x"]["values"], [3.0, 3.0])
        self.assertEqual(ok["grads"]["y"]["values"], [3.0])
        del case["grad"]["clone"]
        error = torch_exec.run_case(case)["error"]
        self.assertNotIn("stage", error)

    def test_a_case_whose_upstreams_miss_a_result_is_left_out(self):
        case = {"id": "miss", "storages": {"x": {"dtype": "float32", "values": [1.0]}},
                "tensors": {"x": {"storage": "x", "shape": [1], "strides": [1]}},
                "call": {"fn": "torch.neg", "args": [{"tensor": "x"}]},
                "grad": {"wrt": ["x"], "upstream": []}}
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(label.label([case]), [])
        self.assertIn("upstream", err.getvalue())


@unittest.skipUnless(HAS_TORCH, "needs torch")
class Label(unittest.TestCase):
    def test_relabelling_a_fixture_file_writes_it_byte_for_byte(self):
        # A file of the four dtypes of schema 1 is written as schema 1, one with the dtypes of
        # schema 2 (exact half values, complex pairs) as schema 2.
        for file in ("conformance/tests/data/adapters.json", "conformance/tests/data/numel.json",
                     "fixtures/regressions/int64-exact.json", "fixtures/regressions/dtypes-schema.json"):
            with open(path(*file.split("/"))) as f:
                text = f.read()
            cases, generator = label.read_cases(path(*file.split("/")))
            for c in cases:
                del c["expect"]
            self.assertEqual(label.fixture_text(label.label(cases), generator), text, file)

    def test_every_dtype_is_labelled_with_exact_values(self):
        cases, _ = label.read_cases(path("fixtures", "regressions", "dtypes-schema.json"))
        self.assertTrue(label.fixture_text(cases, None).startswith('{"schema": 2,'))
        dtypes = set()
        for case in cases:
            result = case["expect"].get("ok", {}).get("result", {})
            for t in [result["tensor"]] if "tensor" in result else result.get("tensors", []):
                dtypes.add(t["dtype"])
                for v in t.get("values", [v for _, v in t.get("samples", [])]):
                    self.assertTrue(casefmt.fits(casefmt.decode_number(v), t["dtype"]), (case["id"], v))
        self.assertLessEqual({"uint8", "int8", "int16", "float16", "bfloat16", "complex64", "complex128"}, dtypes)

    def test_complex32_computations_are_labelled(self):
        # float16 broadcast against a complex 0-d tensor promotes to complex32 (schema 4): a
        # complex32 result, and a kernel error naming ComplexHalf, are both kept as torch says.
        cases = [{"id": f"c{i}", "storages": {"h": {"dtype": "float16", "values": [1.0, 2.0]},
                                               "z": {"dtype": "complex64", "values": [[1.0, 1.0]]}},
                  "tensors": {"x": {"storage": "h", "shape": [2], "strides": [1], "offset": 0},
                              "y": {"storage": "z", "shape": [], "strides": [], "offset": 0}},
                  "call": {"fn": "torch.add", "args": [{"tensor": "x"}, {"tensor": y}]}}
                 for i, y in enumerate(["y", "x"])]
        xor = json.loads(json.dumps(cases[0]))
        xor.update(id="c2", call={"fn": "torch.logical_xor", "args": [{"tensor": "x"}, {"tensor": "y"}]})
        kept = label.label(cases + [xor])
        self.assertEqual([c["id"] for c in kept], ["c0", "c1", "c2"])
        result = kept[0]["expect"]["ok"]["result"]["tensor"]
        self.assertEqual((result["dtype"], result["values"]), ("complex32", [[2.0, 1.0], [3.0, 1.0]]))
        self.assertEqual(kept[2]["expect"]["error"]["message"],
                         "\"logical_xor_cpu\" not implemented for 'ComplexHalf'")
        self.assertTrue(label.fixture_text(kept, None).startswith('{"schema": 4,'))

    def test_a_backward_torch_computes_in_complex32_is_labelled(self):
        # clamp(float16, min=1.5+0j) returns float16, but its backward compares the input with
        # the complex bound in ComplexHalf: `"ge_cpu" not implemented for 'ComplexHalf'`, kept
        # as torch's backward error (the grad family draws complex32 too).
        case = {"id": "h", "storages": {"s": {"dtype": "float16", "values": [1.0, 2.0]}},
                "tensors": {"t": {"storage": "s", "shape": [2], "strides": [1], "offset": 0},
                            "g": {"storage": "s", "shape": [2], "strides": [1], "offset": 0}},
                "call": {"fn": "torch.clamp", "args": [{"tensor": "t"}, {"complex": [1.5, 0.0]}, {"float": 4.0}]},
                "grad": {"wrt": ["t"], "upstream": ["g"]}}
        [kept] = label.label([case])
        self.assertEqual(kept["expect"]["ok"]["result"]["tensor"]["dtype"], "float16")
        self.assertEqual(kept["expect"]["ok"]["backward_error"],
                         {"type": "NotImplementedError", "message": "\"ge_cpu\" not implemented for 'ComplexHalf'"})

    def test_an_internal_assert_of_torch_is_left_out_unless_the_case_asks_for_it(self):
        # The backward of torch.pow(True, t) fails an internal assert in torch 2.13.0.
        case = {"id": "p", "storages": {"s": {"dtype": "float32", "values": [1.0, 2.0]}},
                "tensors": {"t": {"storage": "s", "shape": [2], "strides": [1], "offset": 0},
                            "g": {"storage": "s", "shape": [2], "strides": [1], "offset": 0}},
                "call": {"fn": "torch.pow", "args": [{"bool": True}, {"tensor": "t"}]},
                "grad": {"wrt": ["t"], "upstream": ["g"]}}
        pinned = dict(json.loads(json.dumps(case)), id="q", tags=["torch-internal-assert"])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            kept = label.label([case, pinned])
        self.assertEqual([c["id"] for c in kept], ["q"])
        self.assertIn("left out p: torch fails an internal assert", err.getvalue())
        self.assertIn("INTERNAL ASSERT FAILED", kept[0]["expect"]["ok"]["backward_error"]["message"])

    def test_the_command_labels_json_lines(self):
        cases = list(fixture_cases("conformance", "tests", "data", "numel.json").values())[:3]
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.json")
            with open(src, "w") as f:
                f.writelines(json.dumps({k: v for k, v in c.items() if k != "expect"}) + "\n" for c in cases)
            label.main([src, out, "--generator", "test"])
            with open(out) as f:
                written = json.load(f)
        self.assertEqual(written["generator"], "test")
        self.assertEqual(written["torch_version"], torch_exec.torch_version())
        self.assertEqual(written["cases"], cases)


@unittest.skipUnless(HAS_TORCH, "needs torch")
class Verify(unittest.TestCase):
    def run_on(self, cases):
        with tempfile.TemporaryDirectory() as tmp:
            file = os.path.join(tmp, "f.json")
            with open(file, "w") as f:
                json.dump({"schema": 1, "torch_version": "2.13.0", "generator": "test", "cases": cases}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = verify_fixtures.main([tmp])
        return status, out.getvalue()

    def test_no_drift_passes_and_drift_fails_with_a_diff(self):
        cases = list(fixture_cases("conformance", "tests", "data", "adapters.json").values())[:4]
        status, out = self.run_on(cases)
        self.assertEqual(status, 0, out)
        self.assertIn("verified 4 cases", out)
        cases[1]["expect"] = {"error": {"type": "RuntimeError", "message": "not what torch says"}}
        status, out = self.run_on(cases)
        self.assertEqual(status, 1)
        self.assertIn(f"--- drift in {cases[1]['id']}", out)
        self.assertIn("-  \"message\": \"not what torch says\"", out)
        self.assertIn("1 drifted", out)

    def test_floats_may_drift_within_the_case_tolerance_only(self):
        """A value torch computes differently on another processor (a vectorised loop of
        another width) stays within the case's tolerance; shapes, ints and drift beyond it fail."""
        case = next(c for c in fixture_cases("fixtures", "regressions", "complex-pow-fast-paths.json").values()
                    if "tolerance" in c and "ok" in c["expect"])
        values = case["expect"]["ok"]["result"]["tensor"]["values"]
        i, part = next((i, p) for i, v in enumerate(values) for p in (0, 1)
                       if isinstance(v[p], float) and math.isfinite(v[p]) and v[p] != 0)
        exact = values[i][part]
        allowed = case["tolerance"]["atol"] + case["tolerance"]["rtol"] * abs(exact)
        for nudge, drifts in [(allowed / 2, False), (allowed * 2, True)]:
            values[i][part] = exact + nudge
            status, out = self.run_on([case])
            self.assertEqual(status, int(drifts), out)
        values[i][part] = exact
        without = {k: v for k, v in case.items() if k != "tolerance"}
        without["expect"] = json.loads(json.dumps(case["expect"]))
        without["expect"]["ok"]["result"]["tensor"]["values"][i][part] = exact + allowed / 2
        status, out = self.run_on([without])
        self.assertEqual(status, 1, "without a tolerance a float is compared exactly")
        case["expect"]["ok"]["result"]["tensor"]["shape"] = [99]
        status, out = self.run_on([case])
        self.assertEqual(status, 1, "a shape is never within a tolerance")

    def test_outcomes_agree_examples(self):
        import doctest
        failures, _ = doctest.testmod(verify_fixtures)
        self.assertEqual(failures, 0)


if __name__ == "__main__":
    unittest.main()
