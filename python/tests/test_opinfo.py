"""The OpInfo importer: sample tensors written as strided views of literal storages come back
as the same tensors in torch, and the committed file keeps every sample in every form once."""

import unittest
from collections import Counter

from .support import HAS_TORCH, load_json

if HAS_TORCH:
    import torch

    from bcast_suite import opinfo, torch_exec


def committed_cases():
    return load_json("fixtures", "torch", "opinfo.json")["cases"]


class CommittedFile(unittest.TestCase):
    def test_every_sample_form_is_kept_once_and_sources_name_the_opinfo(self):
        cases = committed_cases()
        slots = Counter()
        for case in cases:
            src = case["source"]
            self.assertTrue(case["id"].startswith(f"opinfo/{src['opinfo']}"), case["id"])
            if "sample" in src:
                slots[(src["opinfo"], src.get("variant"), src["sample"], case["tags"][1])] += 1
        self.assertTrue(slots)
        self.assertEqual([k for k, n in slots.items() if n != 1], [])
        # Several dtypes per op, and the error inputs too.
        dtypes = {c["source"]["dtype"] for c in cases if c["source"].get("opinfo") == "add" and "dtype" in c["source"]}
        self.assertGreater(len(dtypes), 6, dtypes)
        self.assertTrue(any("error_input" in c["source"] for c in cases))


@unittest.skipUnless(HAS_TORCH, "needs torch")
class Writer(unittest.TestCase):
    def written(self, *tensors):
        w = opinfo.Writer("t", {}, [])
        args = [w.arg(t) for t in tensors]
        case = w.finish("torch.add", args, {}, False)
        _, views = torch_exec.build(case)
        return case, [views[a["tensor"]] for a in args]

    def test_strided_views_come_back_with_their_values_strides_and_offsets(self):
        for dtype in (torch.bool, torch.int8, torch.bfloat16, torch.float32, torch.complex64):
            base = torch.arange(40).reshape(4, 10).to(dtype)
            samples = [base[:, 1::3], base[1:3].t(), base[2, 4:5].expand(3, 2), base.select(1, 7)]
            case, back = self.written(*samples)
            self.assertEqual(len(case["storages"]), 1, "views of one tensor share its storage")
            for t, b in zip(samples, back):
                self.assertEqual((b.shape, b.stride(), b.storage_offset()), (t.shape, t.stride(), t.storage_offset()))
                self.assertTrue(torch.equal(b, t), dtype)

    def test_the_same_tensor_twice_is_one_name(self):
        x = torch.ones(3)
        case, _ = self.written(x, x)
        self.assertEqual(case["call"]["args"][0], case["call"]["args"][1])

    def test_complex32_samples_are_not_expressed(self):
        with self.assertRaisesRegex(opinfo.NotExpressed, "complex32"):
            self.written(torch.zeros(2, dtype=torch.complex32))

    def test_python_numbers_keep_their_kind(self):
        w = opinfo.Writer("t", {}, [])
        self.assertEqual([w.arg(v) for v in (True, 3, 2.5, float("inf"), 1j, None, "floor")],
                         [{"bool": True}, {"int": 3}, {"float": 2.5}, {"float": "inf"}, {"complex": [0.0, 1.0]},
                          {"none": None}, {"str": "floor"}])


if __name__ == "__main__":
    unittest.main()
