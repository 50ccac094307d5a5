#!/usr/bin/env python3
"""NumPy as a protocol adapter (see PROTOCOL.md): each case's storages become NumPy arrays, its
tensors strided views over them (np.lib.stride_tricks.as_strided), and its call the NumPy
function with the same broadcasting meaning. NumPy raises its own exception classes and
messages, so the adapter claims shapes, dtypes, values, strides, aliasing and in-place storage
writes, never torch's errors or messages.

    bcast run --backend "python scripts/adapters/numpy_adapter.py"
"""

import builtins
import operator
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import as_strided

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from adapter_protocol import Unsupported, serve  # noqa: E402
from casefmt import DTYPES, decode_number, encode_number, sample_positions, storage_values  # noqa: E402

NP_DTYPES = {"bool": np.bool_, "int64": np.int64, "float32": np.float32, "float64": np.float64}
LEVELS = ["shapes", "dtypes", "values", "inplace", "aliasing", "strides"]


# ---- inputs ---------------------------------------------------------------------------------

def build(case):
    storages = {}
    for name, spec in case.get("storages", {}).items():
        storages[name] = np.array(storage_values(spec), dtype=NP_DTYPES[spec["dtype"]])
    tensors = {}
    for name, spec in case.get("tensors", {}).items():
        base = storages[spec["storage"]]
        item = base.itemsize
        start = base[spec.get("offset", 0):]
        tensors[name] = as_strided(start, shape=spec["shape"],
                                   strides=[s * item for s in spec["strides"]])
    return storages, tensors


def value(arg, tensors):
    (key, v), = arg.items()
    if key == "tensor":
        return tensors[v]
    if key == "tensors":
        return [tensors[n] for n in v]
    if key in ("int", "bool"):
        return v
    if key == "float":
        return float(decode_number(v))
    if key in ("ints", "list", "tuple", "size"):
        return tuple(v)
    if key == "none":
        return None
    raise Unsupported(f"no NumPy meaning for a {key!r} argument")


def sizes(args):
    """torch's size varargs: f(t, 2, 3) or f(t, (2, 3))."""
    if len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    return tuple(args)


# ---- ops ------------------------------------------------------------------------------------

def expand(t, shape):
    """torch.Tensor.expand: -1 keeps a size; new dims go in front and may not be -1."""
    shape = tuple(shape)
    lead = len(shape) - t.ndim
    if lead < 0:
        raise ValueError(f"cannot expand {t.shape} to fewer dims {shape}")
    target = []
    for i, s in enumerate(shape):
        if s == -1:
            if i < lead:
                raise ValueError(f"-1 is not allowed in a new leading dimension {i}")
            s = t.shape[i - lead]
        target.append(s)
    return np.broadcast_to(t, tuple(target))


class Size(tuple):
    """A torch.Size result (np.broadcast_shapes gives a plain tuple)."""


def shape_arg(a):
    return (a,) if isinstance(a, int) else tuple(a)


def reduction(fn):
    def run(t, dim=None, keepdim=False):
        axis = None if dim is None else (dim if isinstance(dim, int) else tuple(dim))
        return np.asarray(fn(t, axis=axis, keepdims=keepdim))
    return run


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "maximum": np.maximum, "minimum": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}
REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.amax, "amin": np.amin}


def binary(ufunc, name):
    def run(a, b, out=None, alpha=None):
        if alpha is not None:
            if name not in ("add", "sub"):
                raise Unsupported(f"{name} has no alpha")
            b = np.multiply(b, alpha)
        if out is None:
            return np.asarray(ufunc(a, b))
        return ufunc(a, b, out=out)
    return run


def inplace(ufunc):
    def run(a, b, alpha=None):
        if alpha is not None:
            b = np.multiply(b, alpha)
        return ufunc(a, b, out=a)
    return run


OPS = {
    "Tensor.expand": lambda t, *s: expand(t, sizes(s)),
    "Tensor.expand_as": lambda t, o: expand(t, o.shape),
    "torch.broadcast_to": lambda t, s: expand(t, s),
    "Tensor.broadcast_to": lambda t, s: expand(t, s),
    "torch.broadcast_tensors": lambda *ts: np.broadcast_arrays(*(ts[0] if len(ts) == 1 and isinstance(ts[0], list) else ts)),
    "torch.broadcast_shapes": lambda *shapes: Size(np.broadcast_shapes(*(shape_arg(s) for s in shapes))),
    "torch.where": lambda c, x, y: np.asarray(np.where(c, x, y)),
    "torch.matmul": lambda a, b, out=None: np.asarray(np.matmul(a, b)) if out is None else np.matmul(a, b, out=out),
    "Tensor.unsqueeze": lambda t, d: np.expand_dims(t, d),
    "torch.unsqueeze": lambda t, d: np.expand_dims(t, d),
    "Tensor.permute": lambda t, *d: np.transpose(t, sizes(d)),
    "torch.permute": lambda t, d: np.transpose(t, d),
    "Tensor.transpose": lambda t, a, b: np.swapaxes(t, a, b),
    "torch.transpose": lambda t, a, b: np.swapaxes(t, a, b),
}
for _name, _ufunc in BINARY.items():
    OPS[f"torch.{_name}"] = binary(_ufunc, _name)
    OPS[f"Tensor.{_name}"] = binary(_ufunc, _name)
    if _name in ("add", "sub", "mul", "div"):
        OPS[f"Tensor.{_name}_"] = inplace(_ufunc)
for _name, _fn in REDUCTIONS.items():
    OPS[f"torch.{_name}"] = reduction(_fn)
    OPS[f"Tensor.{_name}"] = reduction(_fn)


# ---- outcomes -------------------------------------------------------------------------------

DTYPE_NAMES = {np.dtype(v): k for k, v in NP_DTYPES.items()}


def owner_of(t, storages):
    """The storage a result views, and its offset in elements, as torch_exec reports them."""
    if t.base is None:
        return None, 0
    ptr = t.__array_interface__["data"][0]
    for name, base in storages.items():
        start = base.__array_interface__["data"][0]
        if base.size > 0 and start <= ptr <= start + base.nbytes and t.dtype == base.dtype:
            return name, (ptr - start) // base.itemsize
    return None, 0


def describe_tensor(t, storages):
    t = np.asarray(t)
    if t.dtype not in DTYPE_NAMES:
        dtype = str(t.dtype)
    else:
        dtype = DTYPE_NAMES[t.dtype]
    owner, offset = owner_of(t, storages)
    desc = {"shape": list(t.shape), "dtype": dtype,
            "strides": [s // t.itemsize for s in t.strides],
            "offset": offset, "storage": owner}
    positions = sample_positions(t.size)
    if positions is None:
        desc["values"] = [encode_number(x) for x in t.reshape(-1).tolist()]
    else:
        # Index each sample in place: a huge broadcast view must never be materialised.
        desc["samples"] = [[i, encode_number(t[np.unravel_index(i, t.shape)].item())] for i in positions]
    return desc


def describe(result, storages):
    if isinstance(result, Size):
        return {"size": [int(s) for s in result]}
    if isinstance(result, (list, tuple)):
        return {"tensors": [describe_tensor(r, storages) for r in result]}
    return {"tensor": describe_tensor(result, storages)}


def snapshot(storages):
    return {name: [encode_number(x) for x in s.tolist()] for name, s in storages.items()}


def exception_class(e):
    for cls in type(e).__mro__:
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(e).__name__


def run_case(case):
    call = case["call"]
    fn = call["fn"]
    op = OPS.get(fn)
    if op is None:
        raise Unsupported(f"the adapter has no NumPy mapping for {fn}")
    storages, tensors = build(case)
    args = [value(a, tensors) for a in call.get("args", [])]
    kwargs = {k: value(a, tensors) for k, a in call.get("kwargs", {}).items()}
    before = snapshot(storages)
    try:
        with np.errstate(all="ignore"):
            result = op(*args, **kwargs)
    except Unsupported:
        raise
    except TypeError as e:
        if "argument" in str(e) and not isinstance(e, np.exceptions.DTypePromotionError):
            raise Unsupported(f"{fn}: {e}") from e
        return {"error": {"type": exception_class(e), "message": str(e)}}
    except Exception as e:  # noqa: BLE001 - every NumPy exception is an outcome
        return {"error": {"type": exception_class(e), "message": str(e)}}
    ok = {"result": describe(result, storages)}
    after = snapshot(storages)
    if fn.endswith("_") or "out" in call.get("kwargs", {}) or after != before:
        ok["storages"] = after
    return {"ok": ok}


if __name__ == "__main__":
    serve(f"numpy {np.__version__}",
          {"ops": sorted(OPS), "dtypes": list(DTYPES), "levels": LEVELS}, run_case)
