"""NumPy as a protocol adapter (see PROTOCOL.md): each case's storages become NumPy arrays, its
tensors strided views over them (np.lib.stride_tricks.as_strided), and its call the NumPy
function with the same broadcasting meaning. NumPy raises its own exception classes and
messages, so the adapter claims shapes, dtypes, values, strides, aliasing and in-place storage
writes, never torch's errors or messages.

    bcast run --backend "python3 scripts/adapters/numpy_adapter.py"     # from a checkout
    bcast run --backend "python3 -m bcast_suite.adapters.numpy_adapter"  # the package installed
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import kit
from ..casefmt import decode_number, encode_number
from ..kit import Unsupported
from .dense import is_signature_error

# Every dtype of the schema that NumPy has: all but bfloat16 and complex32, which NumPy lacks (so
# the adapter does not claim them, and cases with a storage or a result of those dtypes are skipped,
# never sent).
NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
             "complex64": np.complex64, "complex128": np.complex128}
LEVELS = ["shapes", "dtypes", "values", "inplace", "aliasing", "strides"]


# ---- inputs ---------------------------------------------------------------------------------

def view(base, shape, strides, offset):
    """A strided view of `base`; strides and offset in elements. NumPy refuses a view whose
    size in bytes is beyond its index type (a stride-0 view of 2^62 elements, which torch
    holds in a few bytes): the case cannot be expressed, and fails saying so."""
    try:
        return as_strided(base[offset:], shape=shape, strides=[s * base.itemsize for s in strides])
    except ValueError as e:
        raise Unsupported(f"NumPy cannot hold the input view of shape {list(shape)}: {e}") from e


def build(case):
    """The case's storages (1-d arrays) and its named views over them."""
    return kit.build(case, lambda dtype, values: np.array(values, dtype=NP_DTYPES[dtype]), view)


def value(arg, tensors):
    key, v = kit.arg_parts(arg)
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
    if key == "dtype" and v in NP_DTYPES:
        return np.dtype(NP_DTYPES[v])
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
    """One shape argument of broadcast_shapes: an int or a sequence as a tuple; anything else
    (torch also takes None) is handed to NumPy as it is, which judges it."""
    if isinstance(a, int):
        return (a,)
    return tuple(a) if isinstance(a, (list, tuple)) else a


def where(cond, x, y, out=None):
    """torch.where; out= as NumPy writes a result into an existing array (np.where has no out=):
    np.copyto with the casting ufuncs use for out= ("same_kind")."""
    result = np.asarray(np.where(cond, x, y))
    if out is None:
        return result
    np.copyto(out, result, casting="same_kind")
    return out


def reduction(fn):
    def run(t, dim=None, keepdim=False, dtype=None):
        axis = None if dim is None else (dim if isinstance(dim, int) else tuple(dim))
        if dtype is None:
            return np.asarray(fn(t, axis=axis, keepdims=keepdim))
        return np.asarray(fn(t, axis=axis, keepdims=keepdim, dtype=dtype))
    return run


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "maximum": np.maximum, "minimum": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift,
    "gcd": np.gcd, "lcm": np.lcm,
    "remainder": np.remainder, "pow": np.power, "floor_divide": np.floor_divide, "fmod": np.fmod,
    "atan2": np.arctan2, "arctan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "nextafter": np.nextafter, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2,
    "fmax": np.fmax, "fmin": np.fmin, "heaviside": np.heaviside, "float_power": np.float_power,
}
# The reflected operators: ndarray's own (`2 - a` is `a.__rsub__(2)` there too).
REFLECTED = ["__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__",
             "__rpow__", "__rand__", "__ror__", "__rxor__", "__rlshift__", "__rrshift__", "__rmatmul__"]
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
    "torch.where": where,
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
for _dunder in REFLECTED:
    OPS[f"Tensor.{_dunder}"] = lambda a, b, _d=_dunder: getattr(a, _d)(b)


def clamp(t, min=None, max=None, out=None):
    if out is not None:
        raise Unsupported("clamp with out=")
    if min is None and max is None:
        raise Unsupported("np.clip needs a bound")
    return np.asarray(np.clip(t, min, max))


def isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    return np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# clamp_min/clamp_max, lerp, addcmul, addcdiv and masked_fill have no NumPy twin: declined.
for _form in ("torch", "Tensor"):
    OPS[f"{_form}.clamp"] = clamp
    OPS[f"{_form}.isclose"] = isclose
    OPS[f"{_form}.equal"] = lambda a, b: a.shape == b.shape and bool(np.array_equal(a, b))
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
    return kit.tensor_result(t.shape, dtype, [s // t.itemsize for s in t.strides], offset, owner,
                             lambda: t.reshape(-1).tolist(),
                             lambda i: t[np.unravel_index(i, t.shape)].item())


def describe(result, storages):
    if isinstance(result, Size):
        return {"size": [int(s) for s in result]}
    if isinstance(result, bool):
        return {"bool": result}
    if result is NotImplemented:
        return "not_implemented"
    if isinstance(result, (list, tuple)):
        return {"tensors": [describe_tensor(r, storages) for r in result]}
    return {"tensor": describe_tensor(result, storages)}


def snapshot(storages):
    return {name: [encode_number(x) for x in s.tolist()] for name, s in storages.items()}


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
        if is_signature_error(e) and not isinstance(e, np.exceptions.DTypePromotionError):
            raise Unsupported(f"{fn}: {e}") from e
        return kit.error_outcome(e)
    except Exception as e:  # noqa: BLE001 - every NumPy exception is an outcome
        return kit.error_outcome(e)
    return kit.ok_outcome(case, describe(result, storages), before, snapshot(storages))


def main():
    kit.serve(f"numpy {np.__version__}",
              {"ops": sorted(OPS), "dtypes": list(NP_DTYPES), "levels": LEVELS}, run_case)


if __name__ == "__main__":
    main()
