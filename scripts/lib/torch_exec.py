"""Runs one fixture case in PyTorch and describes what happened, in the schema's outcome form.

This is the single place that gives a case its meaning in torch: the labeller, the verifier and
the PyTorch protocol adapter all call run_case()."""

import builtins
import warnings

import torch

from casefmt import DTYPES, decode_number, encode_number, sample_positions, storage_values

TORCH_DTYPES = {
    "bool": torch.bool,
    "int64": torch.int64,
    "float32": torch.float32,
    "float64": torch.float64,
}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}
EXCEPTION_CLASSES = ("IndexError", "ValueError", "TypeError", "NotImplementedError", "RuntimeError")


class FixtureError(Exception):
    """The case itself is malformed (not a torch error)."""


def build(case):
    """The case's storages (1-d tensors) and its named views over them."""
    storages = {}
    for name, spec in case.get("storages", {}).items():
        if spec["dtype"] not in DTYPES:
            raise FixtureError(f"storage {name}: unknown dtype {spec['dtype']!r}")
        storages[name] = torch.tensor(storage_values(spec), dtype=TORCH_DTYPES[spec["dtype"]])
    tensors = {}
    for name, spec in case.get("tensors", {}).items():
        base = storages[spec["storage"]]
        tensors[name] = base.as_strided(spec["shape"], spec["strides"], spec.get("offset", 0))
    return storages, tensors


def index_item(item):
    (key, v), = item.items()
    if key == "slice":
        return slice(*v)
    if key == "int":
        return v
    if key == "none":
        return None
    if key == "ellipsis":
        return Ellipsis
    raise FixtureError(f"unknown index item {key!r}")


def arg_value(arg, tensors):
    """The Python value of one argument."""
    (key, v), = arg.items()
    if key == "tensor":
        return tensors[v]
    if key == "tensors":
        return [tensors[n] for n in v]
    if key == "int":
        return int(v)
    if key == "float":
        return float(decode_number(v))
    if key == "bool":
        return bool(v)
    if key in ("ints", "list"):
        return list(v)
    if key == "tuple":
        return tuple(v)
    if key == "size":
        return torch.Size(v)
    if key == "none":
        return None
    if key == "str":
        return v
    if key == "dtype":
        return TORCH_DTYPES[v]
    if key == "index":
        return tuple(index_item(i) for i in v)
    raise FixtureError(f"unknown argument kind {key!r}")


def call(case, tensors):
    spec = case["call"]
    fn = spec["fn"]
    args = [arg_value(a, tensors) for a in spec.get("args", [])]
    kwargs = {k: arg_value(a, tensors) for k, a in spec.get("kwargs", {}).items()}
    if fn.startswith("torch."):
        return getattr(torch, fn[len("torch."):])(*args, **kwargs)
    if fn.startswith("Tensor."):
        return getattr(args[0], fn[len("Tensor."):])(*args[1:], **kwargs)
    if fn == "getitem":
        # One item is indexed as Python code writes it, x[item], not x[(item,)].
        index = args[1]
        return args[0][index[0] if len(index) == 1 else index]
    raise FixtureError(f"unknown fn {fn!r}")


def values_of(t):
    flat = t.detach().reshape(-1).tolist()
    return [encode_number(x) for x in flat]


def unravel(i, shape):
    """The index tuple of row-major position i (no copy of the tensor needed)."""
    index = []
    for size in reversed(shape):
        index.append(i % size)
        i //= size
    return tuple(reversed(index))


def describe_tensor(t, storages):
    ptr = t.untyped_storage().data_ptr()
    owner = None
    for name, base in storages.items():
        if base.untyped_storage().data_ptr() == ptr and base.numel() > 0:
            owner = name
    desc = {
        "shape": list(t.shape),
        "dtype": DTYPE_NAMES[t.dtype],
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "storage": owner,
    }
    positions = sample_positions(t.numel())
    if positions is None:
        desc["values"] = values_of(t)
    else:
        desc["samples"] = [[i, encode_number(t[unravel(i, t.shape)].item())] for i in positions]
    return desc


def describe(result, storages):
    if isinstance(result, torch.Tensor):
        return {"tensor": describe_tensor(result, storages)}
    if isinstance(result, torch.Size):
        return {"size": list(result)}
    if isinstance(result, (tuple, list)) and all(isinstance(r, torch.Tensor) for r in result):
        return {"tensors": [describe_tensor(r, storages) for r in result]}
    if isinstance(result, bool):
        return {"bool": result}
    if isinstance(result, int):
        return {"int": result}
    raise FixtureError(f"cannot describe a result of type {type(result).__name__}")


def exception_class(e):
    for cls in type(e).__mro__:
        if cls.__name__ in EXCEPTION_CLASSES and getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(e).__name__


def writes_storage(case):
    fn = case["call"]["fn"]
    return fn.endswith("_") or "out" in case["call"].get("kwargs", {})


def run_case(case):
    """The outcome of a case in torch: {"ok": {...}} or {"error": {"type", "message"}}."""
    storages, tensors = build(case)
    before = {name: values_of(s) for name, s in storages.items()}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call(case, tensors)
    except FixtureError:
        raise
    except Exception as e:  # noqa: BLE001 - every torch exception is an outcome
        return {"error": {"type": exception_class(e), "message": str(e)}}
    ok = {"result": describe(result, storages)}
    after = {name: values_of(s) for name, s in storages.items()}
    if writes_storage(case) or after != before:
        ok["storages"] = after
    if caught:
        ok["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return {"ok": ok}


def torch_version():
    return torch.__version__.split("+")[0]
