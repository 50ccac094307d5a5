"""Runs one fixture case in PyTorch and describes what happened, in the schema's outcome form.

This is the single place that gives a case its meaning in torch: the labeller, the verifier and
the PyTorch protocol adapter all call run_case()."""

import warnings

import torch

from . import kit
from .casefmt import encode_number, unravel
from .kit import FixtureError  # noqa: F401 - raised here, caught by the adapter

TORCH_DTYPES = {name: getattr(torch, name) for name in kit.DTYPES}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}
EXCEPTION_CLASSES = ("IndexError", "ValueError", "TypeError", "NotImplementedError", "RuntimeError")

# torch warns some things once per process (TORCH_WARN_ONCE: a uint8 `where` condition, complex
# values cast to real); warned always, a case's warnings do not depend on which cases ran before.
torch.set_warn_always(True)


INT64_MAX = 2**63 - 1


def as_strided(base, shape, strides, offset):
    """`base.as_strided(...)`; a size, stride or offset beyond int64, which torch cannot take,
    is outside the schema (as the tch backend says it: `bcast diff` counts it unsupported)."""
    for what, values in (("size", shape), ("stride", strides), ("offset", [offset])):
        for v in values:
            if v > INT64_MAX:
                raise kit.Unsupported(f"outside the schema: {what} {v} exceeds int64")
    return base.as_strided(shape, strides, offset)


def build(case, device="cpu"):
    """The case's storages (1-d tensors on `device`) and its named views over them."""
    return kit.build(case,
                     lambda dtype, values: torch.tensor(values, dtype=TORCH_DTYPES[dtype], device=device),
                     as_strided)


def arg_value(arg, tensors):
    """The Python value of one argument."""
    key, v = kit.arg_parts(arg)
    if key == "size":
        return torch.Size(v)
    if key == "dtype":
        return TORCH_DTYPES[v]
    return kit.plain_arg(arg, tensors)


def call(case, tensors):
    spec = case["call"]
    fn = spec["fn"]
    args = [arg_value(a, tensors) for a in spec.get("args", [])]
    kwargs = {k: arg_value(a, tensors) for k, a in spec.get("kwargs", {}).items()}
    if fn.startswith("torch."):
        # A namespaced op (`torch.special.xlog1py`) is an attribute of a submodule.
        target = torch
        for part in fn[len("torch."):].split("."):
            target = getattr(target, part)
        return target(*args, **kwargs)
    if fn.startswith("Tensor."):
        return getattr(args[0], fn[len("Tensor."):])(*args[1:], **kwargs)
    if fn == "getitem":
        # One item is indexed as Python code writes it, x[item], not x[(item,)].
        index = args[1]
        return args[0][index[0] if len(index) == 1 else index]
    raise FixtureError(f"unknown fn {fn!r}")


def values_of(t):
    return [encode_number(x) for x in t.detach().reshape(-1).tolist()]


def describe_tensor(t, storages):
    if t.dtype not in DTYPE_NAMES:
        # A quantized or bit dtype, which no case's call computes (complex32 is in the schema).
        # "outside the schema: " as the Rust backends word it (`bcast diff` counts it unsupported).
        raise kit.Unsupported(f"outside the schema: a {t.dtype} result, which the schema has no dtype for")
    ptr = t.untyped_storage().data_ptr()
    owner = None
    for name, base in storages.items():
        if base.untyped_storage().data_ptr() == ptr and base.numel() > 0:
            owner = name
    return kit.tensor_result(t.shape, DTYPE_NAMES[t.dtype], t.stride(), t.storage_offset(), owner,
                             lambda: t.detach().reshape(-1).tolist(),
                             lambda i: t[unravel(i, t.shape)].item())


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
    if result is NotImplemented:
        # A reflected operator (`Tensor.__rsub__`) whose body raised a TypeError.
        return "not_implemented"
    raise FixtureError(f"cannot describe a result of type {type(result).__name__}")


def run_case(case, device="cpu"):
    """The outcome of a case in torch: {"ok": {...}} or {"error": {"type", "message"}}, with
    the gradients for a case with `grad` (run_grad); the labels are made on the CPU, and the
    PyTorch adapter may run them on another device."""
    storages, tensors = build(case, device)
    request = kit.grad_request(case)
    leaves = {}
    if request is not None:
        try:
            leaves = make_leaves(request, tensors)
        except FixtureError:
            raise
        except Exception as e:  # noqa: BLE001 - every torch exception is an outcome
            return kit.requires_grad_error(e, EXCEPTION_CLASSES)
    before = {name: values_of(s) for name, s in storages.items()}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call(case, {**tensors, **call_inputs(request, leaves)})
    except FixtureError:
        raise
    except Exception as e:  # noqa: BLE001 - every torch exception is an outcome
        return kit.error_outcome(e, EXCEPTION_CLASSES)
    after = {name: values_of(s) for name, s in storages.items()}
    outcome = kit.ok_outcome(case, describe(result, storages), before, after,
                             [f"{w.category.__name__}: {w.message}" for w in caught])
    if request is not None:
        run_grad(outcome, request, result, tensors, leaves, storages)
    return outcome


def make_leaves(request, tensors):
    """Each `wrt` view as a leaf of its own that requires grad: the view's shape, strides and
    values, sharing its memory (two views of one storage are two leaves)."""
    leaves = {}
    for name in request.wrt:
        leaf = tensors[name].detach()
        leaf.requires_grad_(True)
        leaves[name] = leaf
    return leaves


def call_inputs(request, leaves):
    """What the call receives for each leaf: the leaf, or `leaf.clone()` for a `clone` name."""
    if request is None:
        return {}
    return {name: leaf.clone() if name in request.clone else leaf for name, leaf in leaves.items()}


def run_grad(outcome, request, result, tensors, leaves, storages):
    """torch.autograd.grad of the results with their upstream gradients back to the leaves,
    added to `outcome` as its `grads` (None for a leaf the results do not depend on), or the
    error the backward raised as its `backward_error`."""
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    pairs = kit.differentiated(results, request, tensors)
    names = list(leaves)
    try:
        grads = torch.autograd.grad([r for r, _ in pairs], [leaves[n] for n in names],
                                    [g for _, g in pairs], allow_unused=True)
    except Exception as e:  # noqa: BLE001 - every torch exception is an outcome
        kit.with_backward_error(outcome, e, EXCEPTION_CLASSES)
        return
    kit.with_grads(outcome, {n: None if g is None else describe_tensor(g, storages)
                             for n, g in zip(names, grads)})


def torch_version():
    return torch.__version__.split("+")[0]
