"""What the adapters of libraries without strided views share (JAX, array-api-strict): a case's
storages are built as NumPy arrays, each named view is read out of them (the elements it sees, in
row-major order) and handed to the library as a fresh dense array of its own; the call is made
with torch's argument forms decoded and the library's function in place of torch's; results are
described from their shape, dtype and values only.

Such a library has no storages, strides, offsets or aliasing to report, so those fields are
filled with the row-major layout of new memory and their levels are never claimed. It cannot
write into an input either: its adapter declines in-place methods and out=.

Needs NumPy (which both libraries depend on)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import kit
from ..casefmt import decode_number
from ..kit import Unsupported

NP_DTYPES = {"bool": np.bool_, "int64": np.int64, "float32": np.float32, "float64": np.float64}
DTYPE_NAMES = {np.dtype(v): k for k, v in NP_DTYPES.items()}

# A view is handed to the library as a dense copy; above this many elements (a stride-0 view of
# 2^61 elements, say, which torch holds in a few bytes) the library cannot hold the input at all,
# and the case fails saying so rather than exhausting the machine.
MAX_INPUT_ELEMENTS = 1 << 24

# Keywords a library without in-place writes can never take.
NO_WRITES = {"forms": ["in_place"], "kwargs": ["out"]}


class Size(tuple):
    """A torch.Size result: a shape the library gives as a plain tuple."""


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def np_view(base, shape, strides, offset):
    """The case's view of a NumPy storage (strides and offset in elements), refused when it is
    too large to be copied into a dense array."""
    if numel(shape) > MAX_INPUT_ELEMENTS:
        raise Unsupported(f"an input view of shape {list(shape)} ({numel(shape)} elements) cannot be "
                          "materialised: the library has no strided views, only dense arrays")
    return as_strided(base[offset:], shape=shape, strides=[s * base.itemsize for s in strides])


def build(case, to_array):
    """The case's named tensors, each a dense array of the library made by to_array(ndarray)
    (a name used twice is the same array)."""
    _, views = kit.build(case, lambda dtype, values: np.array(values, dtype=NP_DTYPES[dtype]), np_view)
    # np.array copies into new row-major memory and keeps 0-d arrays 0-d (ascontiguousarray
    # would make them 1-d).
    return {name: to_array(np.array(v, order="C", copy=True)) for name, v in views.items()}


def arg_value(arg, tensors, dtypes):
    """One argument: kit.plain_arg's value, a `dtype` as the library's dtype (dtypes maps the
    schema's names to them), a `size` as a tuple."""
    key, v = kit.arg_parts(arg)
    if key == "dtype":
        if v not in dtypes:
            raise Unsupported(f"no dtype {v!r} here")
        return dtypes[v]
    if key == "float":
        return float(decode_number(v))
    return kit.plain_arg(arg, tensors)


def sizes(args):
    """torch's size varargs: f(t, 2, 3) or f(t, (2, 3)) or f(t, [2, 3])."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def axis(dim):
    """torch's dim (an int, a list or tuple of ints, or None) as an axis argument."""
    if dim is None or isinstance(dim, int):
        return dim
    return tuple(dim)


def unpack_tensors(items):
    """f(*tensors) or f([t, ...]): torch takes both."""
    if len(items) == 1 and isinstance(items[0], list):
        return list(items[0])
    return list(items)


def of_two_tensors(maximum):
    """torch.max/torch.min(a, b) of two tensors: the library's element-wise `maximum` (or
    `minimum`). torch's reductions of the same names (one tensor, or a dim with indices) have no
    mapping here: such a call is unsupported, not answered with the element-wise op."""
    def run(a, b=None, *rest, **kwargs):
        if b is None or isinstance(b, (bool, int)) or rest or kwargs:
            raise Unsupported("torch.max/min as a reduction (of every element, or over a dim) is not mapped")
        return maximum(a, b)
    return run


def var_args(dim=None, unbiased=None, keepdim=False, correction=None):
    """torch.var/std's overloads, (input, dim, unbiased, keepdim, *, correction) with a bool
    second argument read as unbiased, as (axis, ddof, keepdims)."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError("var(): unbiased given twice")
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    elif unbiased is not None:
        raise TypeError("var(): both unbiased and correction given")
    return axis(dim), correction, keepdim


def describe_array(a):
    """A result array (already a NumPy array) in the schema's terms, as new row-major memory."""
    dtype = DTYPE_NAMES.get(a.dtype, str(a.dtype))
    strides, step = [], 1
    for s in reversed(a.shape):
        strides.append(step)
        step *= max(s, 1)
    strides.reverse()
    return kit.tensor_result(a.shape, dtype, strides, 0, None,
                             lambda: a.reshape(-1).tolist(),
                             lambda i: a[np.unravel_index(i, a.shape)].item())


def describe(result, is_array, to_numpy):
    """The schema's result: a Size, an int or bool, a list of arrays, or one array."""
    if isinstance(result, Size):
        return {"size": [int(s) for s in result]}
    if isinstance(result, bool):
        return {"bool": result}
    if isinstance(result, int):
        return {"int": result}
    if isinstance(result, (list, tuple)):
        return {"tensors": [describe_array(to_numpy(r)) for r in result]}
    if not is_array(result):
        raise Unsupported(f"cannot describe a result of type {type(result).__name__}")
    return {"tensor": describe_array(to_numpy(result))}


def call(case, ops, tensors, dtypes):
    """The call's function (from ops, by fn name) and its decoded arguments; getitem's index
    applied as Python code writes it (one item as x[item])."""
    spec = case["call"]
    fn = spec["fn"]
    args = [arg_value(a, tensors, dtypes) for a in spec.get("args", [])]
    kwargs = {k: arg_value(a, tensors, dtypes) for k, a in spec.get("kwargs", {}).items()}
    if fn == "getitem":
        index = args[1]
        return lambda: args[0][index[0] if len(index) == 1 else index]
    op = ops.get(fn)
    if op is None:
        raise Unsupported(f"no mapping for {fn}")
    return lambda: op(*args, **kwargs)


def is_signature_error(e):
    """A TypeError raised by Python's own argument binding (the mapping does not take that
    argument form), as opposed to one the library raises about the values."""
    msg = str(e)
    return isinstance(e, TypeError) and ("positional argument" in msg or "keyword argument" in msg
                                          or "required argument" in msg)
