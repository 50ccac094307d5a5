"""Turns the calls found in a document into schema cases, labelled by torch: one case per
claim (a call with no claim is one case), inputs rebuilt as fresh storages."""

import contextlib
import copy
import re

import torch

from ..casefmt import encode_number
from ..torch_exec import run_case

from .calls import IndexArg
from .interp import ShapeObs, SizeRes
from .values import TVal, storage_spec

FAMILIES = {
    "broadcast_shapes": "broadcast_shapes", "broadcast_tensors": "broadcast_tensors",
    "expand": "expand", "broadcast_to": "expand", "reshape": "view", "unsqueeze": "view",
    "transpose": "view", "getitem": "view", "repeat": "copy",
    "size": "introspection", "dim": "introspection", "numel": "introspection",
    "add": "binary", "sub": "binary", "mul": "binary", "div": "binary", "pow": "binary",
    "max": "binary", "gt": "comparison", "lt": "comparison", "where": "where",
    "sum": "reduction", "mean": "reduction", "std": "reduction",
    "matmul": "matmul", "einsum": "einsum", "sqrt": "unary",
}
# Ops whose floating results depend on summation order or on the maths library.
ROUNDING_OPS = {"div", "pow", "sqrt", "sum", "mean", "std", "matmul", "einsum"}
TOLERANCE = {"float32": {"rtol": 1.3e-6, "atol": 1e-5}, "float64": {"rtol": 1e-7, "atol": 1e-7}}


def short_name(fn):
    return fn.split(".")[-1]


class CaseWriter:
    """Names a call's tensors and storages and writes its args in the schema's terms."""

    def __init__(self, call):
        self.call = call
        self.tensor_names = {}   # id(TVal) -> name
        self.tensors = {}
        self.storages = {}
        self.storage_names = {}  # id(StorageRec) -> name

    def tensor(self, tv, hint):
        if id(tv) in self.tensor_names:
            return self.tensor_names[id(tv)]
        base = re.sub(r"\W", "_", hint or tv.hint or "") or "t"
        name, k = base, 1
        while name in self.tensors:
            k += 1
            name = f"{base}{k}"
        rec = tv.storage
        if id(rec) not in self.storage_names:
            sname = f"s_{name}"
            self.storage_names[id(rec)] = sname
            self.storages[sname] = storage_spec(tv)
        self.tensor_names[id(tv)] = name
        self.tensors[name] = {"storage": self.storage_names[id(rec)], "shape": list(tv.t.shape),
                              "strides": list(tv.t.stride()), "offset": tv.t.storage_offset()}
        return name

    def arg(self, v, hint=None):
        if isinstance(v, TVal):
            return {"tensor": self.tensor(v, hint)}
        if isinstance(v, IndexArg):
            return {"index": v.items}
        if isinstance(v, bool):
            return {"bool": v}
        if isinstance(v, int):
            return {"int": v}
        if isinstance(v, float):
            return {"float": encode_number(v)}
        if isinstance(v, str):
            return {"str": v}
        if v is None:
            return {"none": None}
        if isinstance(v, (ShapeObs,)):
            return {"size": list(v.of.t.shape)}
        if isinstance(v, SizeRes):
            return {"size": list(v.value)}
        if isinstance(v, (tuple, list)) and all(isinstance(x, TVal) for x in v) and v:
            return {"tensors": [self.tensor(x, None) for x in v]}
        if isinstance(v, tuple) and all(isinstance(x, int) for x in v):
            return {"tuple": list(v)}
        if isinstance(v, list) and all(isinstance(x, int) for x in v):
            return {"list": list(v)}
        raise ValueError(f"cannot write argument {v!r}")

    def body(self):
        c = self.call
        args = [self.arg(a, h) for a, h in zip(c.args, c.hints + [None] * len(c.args))]
        kwargs = {k: self.arg(v) for k, v in c.kwargs.items()}
        call = {"fn": c.fn, "args": args}
        if kwargs:
            call["kwargs"] = kwargs
        return call


@contextlib.contextmanager
def backcompat_warning(enabled):
    old = torch.utils.backcompat.broadcast_warning.enabled
    torch.utils.backcompat.broadcast_warning.enabled = enabled
    try:
        yield
    finally:
        torch.utils.backcompat.broadcast_warning.enabled = old


def label(case, flags):
    """torch's outcome. A document that turns a torch flag on before a call is checked both
    ways: the case must mean the same with and without it."""
    outcome = run_case(case)
    if "backcompat_broadcast_warning" in flags:
        with backcompat_warning(True):
            flagged = run_case(case)
        if flagged != outcome:
            raise RuntimeError(f"{case['id']}: torch's outcome depends on the backcompat flag")
    return outcome


def result_dtypes(expect):
    r = expect.get("ok", {}).get("result", {})
    if "tensor" in r:
        return [r["tensor"]["dtype"]]
    return [t["dtype"] for t in r.get("tensors", [])]


def build_cases(calls, doc_name, key):
    """Every call as cases, in document order, with unique ids."""
    out, seen = [], set()
    for call in sorted(calls, key=lambda c: c.line):
        writer = CaseWriter(call)
        body = writer.body()
        name = short_name(call.fn)
        family = FAMILIES.get(name, "inplace" if name.endswith("_") else "other")
        if name.endswith("_"):
            family = "inplace"
        tags = [call.tags[0], family] + [t for t in call.tags[1:] if t != call.tags[0]]
        if call.flags:
            tags += [f.replace("_", "-") for f in call.flags]
        claims = call.claims or [None]
        for claim in claims:
            base = f"docs/{key}/L{call.line}-{name}"
            if len(claims) > 1:
                base += f"-c{claim['line']}"
            cid, k = base, 1
            while cid in seen:
                k += 1
                cid = f"{base}-{k}"
            seen.add(cid)
            case = {"id": cid, "source": {"doc": doc_name, "line": call.line},
                    "tags": tags + (["claim"] if claim else []),
                    "storages": copy.deepcopy(writer.storages),
                    "tensors": copy.deepcopy(writer.tensors), "call": copy.deepcopy(body)}
            case["expect"] = label(case, call.flags)
            dtypes = result_dtypes(case["expect"])
            if name in ROUNDING_OPS and dtypes and dtypes[0] in TOLERANCE:
                case["tolerance"] = TOLERANCE[dtypes[0]]
            if claim:
                case["doc"] = claim
            out.append((call, case))
    return out
