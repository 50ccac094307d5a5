"""Imports PyTorch's own test inputs: the OpInfo sample inputs and error inputs
(`torch.testing._internal.common_methods_invocations.op_db`) of every op of issue 20 that
broadcasts, as fixture cases labelled by the installed torch (label.py), kept in
fixtures/torch/opinfo.json.

    python -m bcast_suite.opinfo [--out PATH] [--all PATH] [--bcast PATH]

For each OpInfo of SCOPE and each dtype it supports on the CPU, `op.sample_inputs('cpu', dtype,
requires_grad=False)` is drawn (torch seeded with 0 first, so the draw is the same every time),
and each sample becomes one case per call form OpInfo tests it in: the function (`op.op`), the
method (`op.method_variant`), the in-place method (`op.inplace_variant`) and `out=` (when
`op.supports_out`, an `out` tensor of the function's result shape and dtype; only for samples
whose function call returns a tensor). `op.error_inputs('cpu')` adds one function case each.
Sample tensors are written with their exact values as literal storages, and their strides and
offsets kept, so a non-contiguous sample stays a strided view of its storage.

A form is *expressed* when the op catalogue (`bcast ops`) has it, with every keyword the sample
passes, and every argument is one the schema has (tensors of its dtypes but complex32, Python numbers,
None, strings). The rest are tallied by reason and printed with the counts. Every expressed case
is labelled; `--all PATH` writes them all (to run the engine over), and the committed file keeps
a deterministic subset (see `keeper`) plus every error input, to stay a few thousand cases.
"""

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter

import torch

from . import repo
from .builder import CaseBuilder, contiguous_strides, extent
from .casefmt import DTYPES, encode_number
from .label import label, write_fixture

GENERATOR = "python -m bcast_suite.opinfo"
DEFAULT_OUT = ("fixtures", "torch", "opinfo.json")

# The OpInfos of issue 20's ops that broadcast: (name, variant or None for all variants). The
# reflected operators are the issue's `__radd__`, `__rsub__`, `__rpow__`, `__rmul__` and
# `__rtruediv__` (OpInfo's `__rdiv__`).
SCOPE = [
    ("add", None), ("sub", None), ("mul", None), ("div", None), ("true_divide", None),
    ("remainder", None), ("pow", None), ("maximum", None), ("minimum", None), ("max", "binary"),
    ("min", "binary"), ("floor_divide", None), ("fmod", None), ("atan2", None), ("hypot", None),
    ("copysign", None), ("nextafter", None), ("ldexp", None), ("logaddexp", None),
    ("logaddexp2", None), ("xlogy", None), ("special.xlog1py", None), ("special.zeta", None),
    ("float_power", None), ("heaviside", None), ("fmax", None), ("fmin", None), ("rsub", None),
    ("eq", None), ("ne", None), ("lt", None), ("le", None), ("gt", None), ("ge", None),
    ("logical_and", None), ("logical_or", None), ("logical_xor", None), ("where", None),
    ("bitwise_and", None), ("bitwise_or", None), ("bitwise_xor", None),
    ("bitwise_left_shift", None), ("bitwise_right_shift", None), ("gcd", None), ("lcm", None),
    ("clamp", None), ("clamp_min", None), ("clamp_max", None), ("lerp", None), ("addcmul", None),
    ("addcdiv", None), ("masked_fill", None), ("isclose", None), ("equal", None),
    ("matmul", None), ("__radd__", None), ("__rsub__", None), ("__rpow__", None),
    ("__rmul__", None), ("__rdiv__", None),
]

FORMS = ("function", "method", "inplace", "out")
# complex32 is a schema dtype (version 4), but its samples stay apart, counted outside the
# denominator as before: the committed subset rotates each sample over its OpInfo's dtypes
# (keeper), so importing them would change which dtype every other sample of those ops is kept
# under. The complex32 generator family calls these ops with complex32 tensors instead.
TORCH_DTYPES = {getattr(torch, name): name for name in DTYPES if name != "complex32"}

# torch computes these with vectorised approximations or libm functions the engine does not
# reproduce bit for bit (the generators' `approximate`): their float results get a tolerance,
# as does every case with a complex storage.
APPROXIMATE = {"pow", "float_power", "atan2", "hypot", "ldexp", "logaddexp", "logaddexp2", "matmul",
               "__rpow__"}


# Forms the engine lacks (a feature, not a bug): expressed and counted, but left out of the
# corpus until the engine has them.
ENGINE_GAPS = {
    ("matmul", "out"): "the engine has no matmul out= (torch's per-path dtype checks and resizes)",
}

# Values of `alpha` that make `alpha * other` exact: torch rounds `a + alpha * b` once or twice
# depending on the element's position in half-precision dtypes (README, Findings), which only
# shows when the product is inexact.
EXACT_ALPHAS = {0, 1, -1, 2, -2, 0.5, -0.5, 4, -4}


class NotExpressed(Exception):
    """The sample (in this form) cannot be written as a case; the message is the reason."""


def catalogue(bcast):
    """{fn name: set of keywords} of the suite's op catalogue, as `bcast ops` lists it."""
    out = subprocess.run([bcast, "ops"], cwd=repo.root(), check=True, capture_output=True, text=True).stdout
    fns = {}
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 3:
            fns[parts[0]] = {p.strip(",") for p in parts[3:]}
    return fns


def torch_function(name):
    """torch's function of a (namespaced) name, or None."""
    target = torch
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


class Writer:
    """Writes one call into a CaseBuilder: tensors as views of literal storages (one storage per
    torch storage, so views that share memory share it in the case), numbers as arguments."""

    def __init__(self, case_id, source, tags):
        self.b = CaseBuilder(case_id, source=source, tags=tags)
        self.views = []  # (tensor, {"tensor": name})
        self.storages = {}  # data_ptr -> (storage name, dtype, tensors)

    def arg(self, x):
        if isinstance(x, torch.Tensor):
            return self.tensor(x)
        if isinstance(x, bool):
            return {"bool": x}
        if isinstance(x, int):
            if not -(1 << 63) <= x < (1 << 63):
                raise NotExpressed("a Python int out of int64's range")
            return {"int": x}
        if isinstance(x, float):
            return {"float": encode_number(x)}
        if isinstance(x, complex):
            return {"complex": encode_number(x)}
        if x is None:
            return {"none": None}
        if isinstance(x, str):
            return {"str": x}
        if isinstance(x, torch.dtype) and x in TORCH_DTYPES:
            return {"dtype": TORCH_DTYPES[x]}
        raise NotExpressed(f"an argument of type {type(x).__name__}")

    def tensor(self, t):
        if t.dtype not in TORCH_DTYPES:
            raise NotExpressed(f"a {str(t.dtype)[6:]} tensor (a dtype the importer leaves out)")
        if t.layout != torch.strided or t.is_conj() or t.is_neg() or t.device.type != "cpu":
            raise NotExpressed("a sparse, conjugate or negative-bit tensor")
        for seen, arg in self.views:
            if seen is t:
                return arg
        ptr = t.untyped_storage().data_ptr()
        if ptr in self.storages and self.storages[ptr][1] != t.dtype:
            raise NotExpressed("views of one storage with two dtypes")
        if ptr not in self.storages:
            self.storages[ptr] = (f"s{len(self.storages)}", t.dtype, [])
        name, _, tensors = self.storages[ptr]
        tensors.append(t)
        arg = self.b.view(name, t.shape, t.stride(), t.storage_offset())
        self.views.append((t, arg))
        return arg

    def out(self, result):
        """A fresh `out` tensor of the result's shape and dtype (contiguous, arange-filled)."""
        if result.dtype not in TORCH_DTYPES:
            raise NotExpressed(f"a {str(result.dtype)[6:]} result (a dtype the importer leaves out)")
        numel = result.numel()
        name = self.b.storage(TORCH_DTYPES[result.dtype], fill={"kind": "arange", "len": numel},
                              name=f"s{len(self.storages)}")
        self.storages[("out",)] = (name, result.dtype, [])
        return self.b.view(name, result.shape, contiguous_strides(result.shape))

    def finish(self, fn, args, kwargs, approximate):
        for key, (name, dtype, tensors) in self.storages.items():
            if key == ("out",):
                continue
            length = max([t.storage_offset() + extent(t.shape, t.stride()) for t in tensors] or [0])
            base = torch.empty(0, dtype=dtype).set_(tensors[0].untyped_storage())
            values = [encode_number(v) for v in base[:length].tolist()]
            self.b.storage(TORCH_DTYPES[dtype], values=values, name=name)
        # The storages were named in the order met; keep the file's order by name.
        self.b.case["storages"] = dict(sorted(self.b.case["storages"].items(), key=lambda kv: int(kv[0][1:])))
        case = self.b.call(fn, *args, **kwargs)
        if approximate or any(s["dtype"].startswith("complex") for s in case["storages"].values()):
            floats = {s["dtype"] for s in case["storages"].values()}
            rtol = 2e-2 if "bfloat16" in floats else 2e-3 if "float16" in floats else 1e-5
            case["tolerance"] = {"rtol": rtol, "atol": rtol / 10}
        return case


def sample_call(op, form, sample, fns):
    """The fn name, positional and keyword values of one form of a sample, in Python terms, if
    the catalogue (`fns`) has that form."""
    name = op.name
    fn = {"function": f"torch.{name}", "out": f"torch.{name}", "method": f"Tensor.{name}",
          "inplace": f"Tensor.{name}_"}[form]
    if reflected(op):
        # A reflected operator is a method: OpInfo's op is `Tensor.__radd__` itself.
        fn = f"Tensor.{name}"
    if fn not in fns:
        known = any(f in fns for f in (f"torch.{name}", f"Tensor.{name}", f"Tensor.{name}_"))
        raise NotExpressed(f"form not in the catalogue ({fn})" if known else f"op not in the catalogue ({name})")
    args = [sample.input, *sample.args]
    kwargs = dict(sample.kwargs)
    if fn.startswith("Tensor.") and not isinstance(args[0], torch.Tensor):
        # `Tensor.__radd__(2, 3)` with a number as self: as a case, `2 .__radd__(3)` would be
        # Python's own int method, not torch's.
        raise NotExpressed("a method with a Python number as self")
    if name in ("max", "min") and not all(isinstance(x, torch.Tensor) for x in args):
        raise NotExpressed(f"{name} with a dim (the reduction overload; the catalogue has the binary one)")
    if name == "where":
        # OpInfo calls where(self, condition, other) as torch.where(condition, self, other).
        x, cond, other = args
        args = [x, cond, other] if form in ("method", "inplace") else [cond, x, other]
    elif form == "function" and not reflected(op) and op.op is not torch_function(name):
        raise NotExpressed("OpInfo calls a Python wrapper, not torch's function")
    return fn, args, kwargs


def express(op, form, sample, case_id, source, tags, fns, result=None):
    """One case (unlabelled) of a sample in one form, or NotExpressed."""
    fn, args, kwargs = sample_call(op, form, sample, fns)
    for k in kwargs:
        if k not in fns[fn]:
            raise NotExpressed(f"keyword {k}= not in the catalogue")
    w = Writer(case_id, source, tags)
    arg_values = [w.arg(a) for a in args]
    kwarg_values = {k: w.arg(v) for k, v in sorted(kwargs.items())}
    if form == "out":
        if "out" not in fns[fn]:
            raise NotExpressed("keyword out= not in the catalogue")
        kwarg_values["out"] = w.out(result)
    shapes = {tuple(t.shape) for t, _ in w.views}
    if len(shapes) > 1:
        w.b.case["tags"].append("broadcasts")
    alpha = kwargs.get("alpha", 1)
    reduced = any(t.dtype in (torch.float16, torch.bfloat16) for t, _ in w.views)
    approximate = op.name in APPROXIMATE or (reduced and alpha not in EXACT_ALPHAS)
    case = w.finish(fn, arg_values, kwarg_values, approximate)
    if op.name == "matmul" and "tolerance" in case:
        case["tolerance"]["atol"] = max(case["tolerance"]["atol"], sum_error(case["tolerance"]["rtol"], *args[:2]))
    return case


def sum_error(rtol, a, b):
    """An absolute tolerance for a product's sums, which may cancel: rtol times the largest sum
    of product magnitudes (contraction length x largest |a| x largest |b|), as the generators'
    sum_tolerance widens theirs."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.numel() == 0 or b.numel() == 0:
        return 0.0
    k = a.shape[-1] if a.dim() > 0 else 1
    return rtol * k * a.abs().max().item() * b.abs().max().item()


def reflected(op):
    """Whether the OpInfo is a reflected operator (`__radd__`), whose op is the method."""
    return op.name.startswith("__r")


def forms_of(op):
    """The call forms OpInfo tests an op in (a reflected operator's function and method are one
    call, `Tensor.__radd__`)."""
    if reflected(op):
        return ["method"]
    forms = ["function"]
    if op.method_variant is not None:
        forms.append("method")
    if op.inplace_variant is not None:
        forms.append("inplace")
    if op.supports_out:
        forms.append("out")
    return forms


def seed_all():
    torch.manual_seed(0)
    random.seed(0)
    try:
        import numpy
        numpy.random.seed(0)
    except ImportError:
        pass


def function_result(op, sample):
    """The function form's result (for the `out` tensor), or None when it raises or is not a tensor."""
    try:
        with torch.no_grad():
            r = op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception:  # noqa: BLE001 - a raising call has no out= form to derive
        return None
    return r if isinstance(r, torch.Tensor) else None


def op_infos():
    from torch.testing._internal.common_methods_invocations import op_db
    wanted = {}
    for name, variant in SCOPE:
        wanted.setdefault(name, set()).add(variant)
    for op in op_db:
        variants = wanted.get(op.name)
        if variants is not None and (None in variants or op.variant_test_name in variants):
            yield op


def keeper(cases):
    """The committed file's rule: every error input, and every sample in every form once, under
    one of the dtypes its OpInfo has cases of, rotating with the sample index and the form (the
    first dtype in the schema's order for sample 0's function form, the next for its method
    form, ...), so that every dtype of an op appears too. A predicate on cases."""
    dtypes = {}
    for c in cases:
        src = c["source"]
        if "dtype" in src:
            dtypes.setdefault((src["opinfo"], src.get("variant")), set()).add(src["dtype"])
    order = {k: sorted(v, key=DTYPES.index) for k, v in dtypes.items()}

    def keep(case):
        src = case["source"]
        if "error_input" in src:
            return True
        ds = order[(src["opinfo"], src.get("variant"))]
        return ds[(src["sample"] + FORMS.index(case["tags"][1])) % len(ds)] == src["dtype"]
    return keep


def collect(fns, report):
    """Every expressed case (unlabelled), tallying the rest in `report`."""
    cases, seen_keys = [], set()
    reasons, per_op = report["reasons"], report["per_op"]

    def add(case):
        key = json.dumps({k: case[k] for k in ("storages", "tensors", "call", "tolerance") if k in case},
                         sort_keys=True)
        if key in seen_keys:
            report["duplicates"] += 1
            return
        seen_keys.add(key)
        cases.append(case)

    for op in op_infos():
        label_name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        stats = per_op.setdefault(label_name, Counter())
        forms = forms_of(op)
        for dtype in sorted(op.supported_dtypes("cpu"), key=str):
            seed_all()
            samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
            if dtype not in TORCH_DTYPES:
                report["other_dtype_samples"] += len(samples) * len(forms)
                reasons[f"dtype {str(dtype)[6:]} (left out: outside the denominator)"] += \
                    len(samples) * len(forms)
                continue
            dname = TORCH_DTYPES[dtype]
            for i, sample in enumerate(samples):
                result = function_result(op, sample) if "out" in forms else None
                for form in forms:
                    if form == "out" and result is None:
                        report["out_not_derived"] += 1
                        continue
                    report["seen"] += 1
                    stats["seen"] += 1
                    source = {"opinfo": op.name, "dtype": dname, "sample": i}
                    if op.variant_test_name:
                        source["variant"] = op.variant_test_name
                    case_id = f"opinfo/{label_name}/{dname}/{i}/{form}"
                    try:
                        case = express(op, form, sample, case_id, source, ["opinfo", form], fns, result)
                    except NotExpressed as e:
                        reasons[str(e)] += 1
                        continue
                    report["expressed"] += 1
                    stats["expressed"] += 1
                    gap = ENGINE_GAPS.get((op.name, form))
                    if gap:
                        report["engine_gaps"][gap] += 1
                        continue
                    add(case)
        if op.error_inputs_func is None:
            report["without_error_inputs"].append(label_name)
            continue
        seed_all()
        errors = list(op.error_inputs("cpu"))
        for i, ei in enumerate(errors):
            report["error_inputs_seen"] += 1
            source = {"opinfo": op.name, "error_input": i}
            if op.variant_test_name:
                source["variant"] = op.variant_test_name
            case_id = f"opinfo/{label_name}/error/{i}"
            try:
                case = express(op, "function", ei.sample_input, case_id, source, ["opinfo", "function", "error-input"],
                               fns)
            except NotExpressed as e:
                reasons[f"error input: {e}"] += 1
                continue
            report["error_inputs_expressed"] += 1
            add(case)
    return cases


def print_report(report, labelled, kept, out=sys.stdout):
    seen, expressed = report["seen"], report["expressed"]
    print(f"samples x forms seen (schema dtypes): {seen}", file=out)
    print(f"expressed: {expressed} ({100 * expressed / max(seen, 1):.1f}%)", file=out)
    print(f"error inputs seen: {report['error_inputs_seen']}, expressed: {report['error_inputs_expressed']}",
          file=out)
    gaps = sum(report["engine_gaps"].values())
    print(f"expressed but left out, forms the engine lacks: {gaps}", file=out)
    for reason, n in report["engine_gaps"].most_common():
        print(f"  {n:6d}  {reason}", file=out)
    print(f"duplicates dropped: {report['duplicates']}; labelled: {labelled}; left out by the labeller: "
          f"{expressed + report['error_inputs_expressed'] - gaps - report['duplicates'] - labelled}; "
          f"in the committed file: {kept}", file=out)
    print(f"out= forms not derived (the function raises): {report['out_not_derived']}", file=out)
    print(f"OpInfos without error inputs: {len(report['without_error_inputs'])}", file=out)
    print("not expressed, by reason:", file=out)
    for reason, n in report["reasons"].most_common():
        print(f"  {n:6d}  {reason}", file=out)
    print("per OpInfo (seen / expressed), where not all are expressed:", file=out)
    for name, s in sorted(report["per_op"].items()):
        if s["seen"] != s["expressed"]:
            print(f"  {name}: {s['seen']} / {s['expressed']}", file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=repo.path(*DEFAULT_OUT), help="the committed corpus file")
    p.add_argument("--all", help="also write every expressed case here (to run the engine over)")
    p.add_argument("--bcast", type=os.path.abspath, help="the bcast binary (default: build it with cargo)")
    a = p.parse_args(argv)
    fns = catalogue(a.bcast or repo.bcast())
    report = {"seen": 0, "expressed": 0, "duplicates": 0, "other_dtype_samples": 0, "out_not_derived": 0,
              "error_inputs_seen": 0, "error_inputs_expressed": 0, "reasons": Counter(), "per_op": {},
              "engine_gaps": Counter(), "without_error_inputs": []}
    cases = label(collect(fns, report))
    if a.all:
        write_fixture(a.all, cases, GENERATOR + " --all")
    keep = keeper(cases)
    kept = [c for c in cases if keep(c)]
    write_fixture(a.out, kept, GENERATOR)
    print_report(report, len(cases), len(kept))


if __name__ == "__main__":
    main()
