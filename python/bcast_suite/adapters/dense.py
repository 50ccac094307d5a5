"""What the adapters of libraries without strided views share (JAX, array-api-strict): a case's
storages are built as NumPy arrays, each named view is read out of them (the elements it sees, in
row-major order) and handed to the library as a fresh dense array of its own; the call is made
through the bound call (kit.bound_call: every argument under torch's parameter name, defaults
filled) with the library's function in place of torch's; results are described from their
shape, dtype and values only.

Such a library has no storages, strides, offsets or aliasing to report, so those fields are
filled with the row-major layout of new memory and their levels are never claimed. It cannot
write into an input either, nor hold a view it would have to copy out of a few bytes: its
adapter declines (DECLINES) in-place methods, out=, inputs of more than MAX_INPUT_ELEMENTS
elements, outcomes that depend on strides and huge results.

An op is a Python function with torch's parameter names (`input`, `other`, `dim`, ...; a
method's `self` is `input`), called with the bound call's arguments by name, or, where the
runner sends no binding (an op without a generated parser, a method without arguments, a call
torch's parser refuses), with the call's arguments as written: a call that does not fit the
function's signature then raises Python's TypeError, the outcome torch's parser gives too.

Needs NumPy (which both libraries depend on); bfloat16 arrays need ml_dtypes (JAX's)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import kit
from ..casefmt import decode_number
from ..kit import Unsupported

try:
    from ml_dtypes import bfloat16 as _bfloat16
except ImportError:  # array-api-strict alone has no bfloat16, and needs none
    _bfloat16 = None

NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
             "complex64": np.complex64, "complex128": np.complex128}
if _bfloat16 is not None:
    NP_DTYPES["bfloat16"] = _bfloat16
DTYPE_NAMES = {np.dtype(v): k for k, v in NP_DTYPES.items()}

# A view is handed to the library as a dense copy: above this many elements (a stride-0 view of
# 2^61 elements, say, which torch holds in a few bytes) the library cannot hold the input, and
# the hello declines the case (max_input_elements) rather than exhaust the machine.
MAX_INPUT_ELEMENTS = 1 << 24

# What a library without strided views or in-place writes declines (PROTOCOL.md, "Declines"):
# in-place methods and out=; inputs it would have to copy out of a few bytes; outcomes that
# depend on strides (Tensor.view of a strided input raises in torch where the strides do not
# allow the view, as_strided reads the storage under the view), which a dense copy cannot
# reproduce; results too large to build (it has no lazy broadcast to sample them from).
DECLINES = {"forms": ["in_place"], "kwargs": ["out"], "max_input_elements": MAX_INPUT_ELEMENTS,
            "stride_dependent": True, "huge_results": True}


class Size(tuple):
    """A torch.Size result: a shape the library gives as a plain tuple."""


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def np_view(base, shape, strides, offset):
    """The case's view of a NumPy storage (strides and offset in elements); one too large to be
    copied into a dense array (declined in the hello, so never sent) fails the case."""
    if numel(shape) > MAX_INPUT_ELEMENTS:
        raise Unsupported(f"an input view of shape {list(shape)} ({numel(shape)} elements) cannot be "
                          "materialised: the library has no strided views, only dense arrays")
    # A dim of size 0 or 1 is never stepped along, whatever its stride (torch allows any, up to
    # 2^63 - 1, which NumPy's byte strides cannot hold).
    strides = [0 if size <= 1 else stride for size, stride in zip(shape, strides)]
    return as_strided(base[offset:], shape=shape, strides=[s * base.itemsize for s in strides])


def np_storage(dtype, values):
    if dtype not in NP_DTYPES:
        raise Unsupported(f"no NumPy dtype for {dtype} here")
    return np.array(values, dtype=NP_DTYPES[dtype])


def build(case, to_array):
    """The case's named tensors, each a dense array of the library made by to_array(ndarray)
    (a name used twice is the same array)."""
    _, views = kit.build(case, np_storage, np_view)
    # np.array copies into new row-major memory and keeps 0-d arrays 0-d (ascontiguousarray
    # would make them 1-d).
    return {name: to_array(np.array(v, order="C", copy=True)) for name, v in views.items()}


def arg_value(arg, tensors, dtypes):
    """One argument: kit.plain_arg's value, a `dtype` as the library's dtype (dtypes maps the
    schema's names to them)."""
    key, v = kit.arg_parts(arg)
    if key == "dtype":
        if v not in dtypes:
            raise Unsupported(f"no dtype {v!r} here")
        return dtypes[v]
    if key == "float":
        return float(decode_number(v))
    return kit.plain_arg(arg, tensors)


def axis(dim):
    """torch's dim (an int, a list or tuple of ints, or None) as an axis argument."""
    if dim is None or isinstance(dim, int):
        return dim
    return tuple(dim)


def ddof(unbiased=True, correction=None):
    """torch.var/std's correction (or the older unbiased flag) as a number of degrees of freedom."""
    if correction is not None:
        return correction
    return 1 if unbiased else 0


def unpack_tensors(items):
    """f(*tensors) or f([t, ...]): torch takes both."""
    if len(items) == 1 and isinstance(items[0], list):
        return list(items[0])
    return list(items)


def no_keyword(name, value, default=None):
    """A parameter the mapping cannot express, at its default (the hello declines it otherwise)."""
    if value != default:
        raise Unsupported(f"{name}={value!r} has no meaning here")


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
    """The schema's result: a Size, an int or bool, NotImplemented, a list of arrays, or one
    array."""
    if isinstance(result, Size):
        return {"size": [int(s) for s in result]}
    if result is NotImplemented:
        return "not_implemented"
    if isinstance(result, (bool, np.bool_)):
        return {"bool": bool(result)}
    if isinstance(result, int):
        return {"int": result}
    if isinstance(result, (list, tuple)):
        return {"tensors": [describe_array(to_numpy(r)) for r in result]}
    if not is_array(result):
        raise Unsupported(f"cannot describe a result of type {type(result).__name__}")
    return {"tensor": describe_array(to_numpy(result))}


class Call:
    """A case's call made ready to run: `run(tensors)` calls the op with the arguments decoded
    over `tensors` (the case's named arrays, or others in their place, as a gradient's leaves),
    and `bound` says whether they come from the bound call (else from the call as written)."""

    def __init__(self, case, ops, dtypes):
        spec = case["call"]
        self.fn = spec["fn"]
        self.case = case
        self.dtypes = dtypes
        self.bound = case.get("bound") is not None
        if self.fn != "getitem" and self.fn not in ops:
            raise Unsupported(f"no mapping for {self.fn}")
        self.op = ops.get(self.fn)

    def run(self, tensors):
        decode = lambda a: arg_value(a, tensors, self.dtypes)  # noqa: E731 - one use, here
        spec = self.case["call"]
        if self.fn == "getitem":
            x, index = decode(spec["args"][0]), decode(spec["args"][1])
            return x[index[0] if len(index) == 1 else index]  # one item as x[item]
        bound = kit.bound_call(self.case, decode)
        if bound is not None:
            kwargs = {("input" if name == "self" else name): v for name, v in bound.args.items()}
            return self.op(**kwargs)
        args = [decode(a) for a in spec.get("args", [])]
        kwargs = {k: decode(a) for k, a in spec.get("kwargs", {}).items()}
        return self.op(*args, **kwargs)


def is_signature_error(e):
    """A TypeError raised by Python's own argument binding (the call does not fit the mapped
    function's signature), as opposed to one the library raises about the values."""
    msg = str(e)
    return isinstance(e, TypeError) and ("positional argument" in msg or "keyword argument" in msg
                                          or "required argument" in msg)


def signature_outcome(call, e):
    """The outcome of a Python TypeError from binding the call to the mapped function: as
    torch's parser, an error, where the call came as written; a failure of the mapping, where
    it came bound (every parameter of torch's signature must be one of the function's)."""
    if call.bound:
        raise Unsupported(f"{call.fn}: the mapping does not take the bound call: {e}") from e
    return kit.error_outcome(e)
