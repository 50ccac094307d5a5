"""array-api-strict as a protocol adapter (see PROTOCOL.md): the Python Array API standard's
strict reference implementation (standard version as the library defaults to, printed in the
name), through the standard's functions only, over every dtype of the schema the standard has
(all but float16 and bfloat16; its uint16, uint32 and uint64 have no schema dtype). A
catalogue op is claimed when the standard has a function for it (torch.add: add,
Tensor.permute: permute_dims, Tensor.repeat: tile, Tensor.expand: broadcast_to, torch.amax:
max, torch.clamp: clip, Tensor.t: the .T attribute, ...); ops it has no function for (einsum,
sigmoid, narrow, select, transpose of two dims, fmod, ...) are not claimed and so are skipped.
Each op is called with the bound call's arguments (torch's parameter names: dim= as axis=,
var's unbiased as correction=), never torch's semantics emulated: where the standard promotes,
broadcasts or refuses differently (mixed-kind promotion, squeeze without an axis, .T of a 1-d
array), the run shows it.

Arrays of the standard have no strided views and the adapter never writes into an input
(adapters.dense): the hello declines in-place methods, out=, inputs of more than 2^24
elements, outcomes that depend on strides and huge results, and alpha=, rounding_mode= and
round's decimals= (no standard function takes them). Claimed: shapes, dtypes, values; the library's exception classes
and messages are its own, so errors and messages are not, nor inplace, aliasing and strides.

    eval "$(scripts/setup-adapters.sh)"
    bcast run --backend "$BCAST_ADAPTERS_PYTHON scripts/adapters/array_api_strict_adapter.py"
"""

import array_api_strict as xp
import numpy as np

from .. import kit
from ..kit import Unsupported
from . import dense
from .dense import Size, axis, ddof, no_keyword, unpack_tensors

LEVELS = ["shapes", "dtypes", "values"]
DTYPES = {"bool": xp.bool, "uint8": xp.uint8, "int8": xp.int8, "int16": xp.int16, "int32": xp.int32,
          "int64": xp.int64, "float32": xp.float32, "float64": xp.float64, "complex64": xp.complex64,
          "complex128": xp.complex128}
DECLINES = {**dense.DECLINES, "kwargs": dense.DECLINES["kwargs"] + ["alpha", "rounding_mode", "decimals"]}


def api_version():
    return xp.get_array_api_strict_flags()["api_version"]


# ---- ops: torch's signature on the left, the standard's function on the right ----------------

def unary(fn):
    def run(input, *, out=None):
        return fn(input)
    return run


def binary(fn):
    def run(input, other, *, out=None):
        return fn(input, other)
    return run


def add(input, other, *, alpha=1, out=None):
    no_keyword("alpha", alpha, 1)
    return xp.add(input, other)


def sub(input, other, *, alpha=1, out=None):
    no_keyword("alpha", alpha, 1)
    return xp.subtract(input, other)


def rsub(input, other, alpha=1):
    """torch.rsub(input, other) is other - input."""
    no_keyword("alpha", alpha, 1)
    return xp.subtract(other, input)


def div(input, other, *, rounding_mode=None, out=None):
    no_keyword("rounding_mode", rounding_mode)
    return xp.divide(input, other)


def pow_(input, exponent, *, out=None):
    return xp.pow(input, exponent)


def round_(input, *, decimals=0, out=None):
    no_keyword("decimals", decimals, 0)
    return xp.round(input)


def clamp(input, min=None, max=None, *, out=None):
    return xp.clip(input, min, max)


def clamp_min(input, min, *, out=None):
    return xp.clip(input, min, None)


def clamp_max(input, max, *, out=None):
    return xp.clip(input, None, max)


def masked_fill(input, mask, value):
    return xp.where(mask, value, input)


def where(condition, input, other, *, out=None):
    return xp.where(condition, input, other)


def reduction(fn):
    """torch.sum/amax/amin(input, dim, keepdim, *, dtype): dim None (torch's default) reduces
    every dim, as the standard's axis=None does; any other dim is passed on."""
    def run(input, dim=None, keepdim=False, *, dtype=None, out=None):
        kw = {} if dtype is None else {"dtype": dtype}
        return fn(input, axis=axis(dim), keepdims=keepdim, **kw)
    return run


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch documents mean's dtype= as the input cast to it first; the standard's mean has none."""
    if dtype is not None:
        input = xp.astype(input, dtype)
    return xp.mean(input, axis=axis(dim), keepdims=keepdim)


def spread(fn):
    """torch.var/std(input, dim, unbiased, keepdim, *, correction) as (axis, correction, keepdims)."""
    def run(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None):
        return fn(input, axis=axis(dim), correction=ddof(unbiased, correction), keepdims=keepdim)
    return run


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: an int stands for a 1-d shape."""
    return Size(xp.broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s) for s in shapes)))


def size(input, dim=None):
    return Size(input.shape) if dim is None else input.shape[dim]


def clone(input, *, memory_format=None):
    return xp.asarray(input, copy=True)


def expand(input, size, *, implicit=False):
    return xp.broadcast_to(input, tuple(size))


UNARY = {
    "abs": xp.abs, "neg": xp.negative, "sign": xp.sign, "floor": xp.floor, "ceil": xp.ceil,
    "exp": xp.exp, "log": xp.log, "sqrt": xp.sqrt, "sin": xp.sin, "cos": xp.cos, "tanh": xp.tanh,
    "reciprocal": xp.reciprocal, "log1p": xp.log1p, "trunc": xp.trunc,
    "bitwise_not": xp.bitwise_invert, "logical_not": xp.logical_not,
}
BINARY = {
    "mul": xp.multiply, "multiply": xp.multiply, "true_divide": xp.divide,
    "floor_divide": xp.floor_divide, "remainder": xp.remainder, "atan2": xp.atan2, "arctan2": xp.atan2,
    "hypot": xp.hypot, "copysign": xp.copysign, "maximum": xp.maximum, "minimum": xp.minimum,
    "max": xp.maximum, "min": xp.minimum, "bitwise_and": xp.bitwise_and, "bitwise_or": xp.bitwise_or,
    "bitwise_xor": xp.bitwise_xor, "bitwise_left_shift": xp.bitwise_left_shift,
    "bitwise_right_shift": xp.bitwise_right_shift, "eq": xp.equal, "ne": xp.not_equal, "lt": xp.less,
    "le": xp.less_equal, "less_equal": xp.less_equal, "gt": xp.greater, "greater": xp.greater,
    "ge": xp.greater_equal, "logical_and": xp.logical_and, "logical_or": xp.logical_or,
    "logical_xor": xp.logical_xor, "logaddexp": xp.logaddexp, "nextafter": xp.nextafter,
}
# Element-wise ops (their in-place forms are claimed, so that the hello declines them).
ELEMENTWISE = {name: unary(fn) for name, fn in UNARY.items()}
ELEMENTWISE.update({name: binary(fn) for name, fn in BINARY.items()})
ELEMENTWISE.update({
    "add": add, "sub": sub, "subtract": sub, "div": div, "divide": div, "pow": pow_, "round": round_,
    "clamp": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max, "masked_fill": masked_fill,
})
# Forms called as torch.X(input, ...) and input.X(...) alike (where torch has both).
BOTH = {
    **ELEMENTWISE,
    "broadcast_to": lambda input, size: xp.broadcast_to(input, tuple(size)),
    "unsqueeze": lambda input, dim: xp.expand_dims(input, axis=dim),
    "squeeze": lambda input, dim=None: xp.squeeze(input, axis=axis(dim)),
    "permute": lambda input, dims: xp.permute_dims(input, tuple(dims)),
    "t": lambda input: input.T,
    "reshape": lambda input, shape: xp.reshape(input, tuple(shape)),
    "clone": clone,
    "numel": lambda input: input.size,
    "sum": reduction(xp.sum),
    "mean": mean,
    "amax": reduction(xp.max),
    "amin": reduction(xp.min),
    "var": spread(xp.var),
    "std": spread(xp.std),
    "matmul": lambda input, other, *, out=None: xp.matmul(input, other),
    "mm": lambda input, mat2, *, out=None: xp.matmul(input, mat2),
    "bmm": lambda input, mat2, *, out=None: xp.matmul(input, mat2),
    "mv": lambda input, vec, *, out=None: xp.matmul(input, vec),
    "dot": lambda input, tensor, *, out=None: xp.vecdot(input, tensor),
    "where": where,
}
METHODS = {
    "expand": expand,
    "expand_as": lambda input, other: xp.broadcast_to(input, other.shape),
    "view": lambda input, size: xp.reshape(input, tuple(size)),
    "contiguous": lambda input: xp.asarray(input, copy=True),
    "repeat": lambda input, repeats: xp.tile(input, tuple(repeats)),
    "dim": lambda input: input.ndim,
    "size": size,
    # torch's method is input.where(condition, other): the function's arguments in another order.
    "where": lambda input, condition, other: xp.where(condition, input, other),
}
FUNCTIONS = {
    "broadcast_tensors": lambda *tensors: xp.broadcast_arrays(*unpack_tensors(tensors)),
    "broadcast_shapes": broadcast_shapes,
    "rsub": rsub,
}

OPS = {f"torch.{name}": fn for name, fn in {**BOTH, **FUNCTIONS}.items()}
OPS.update({f"Tensor.{name}": fn for name, fn in {**BOTH, **METHODS}.items()})
OPS.update({f"Tensor.{name}_": fn for name, fn in ELEMENTWISE.items()})  # declined: no writes
OPS["Tensor.copy_"] = None  # in place only: declined
OPS["getitem"] = None       # x[index], see dense.Call


# ---- the loop -------------------------------------------------------------------------------

ARRAY = type(xp.asarray(0))  # the library's one array class


def is_array(x):
    return isinstance(x, (ARRAY, np.ndarray))


def to_numpy(x):
    return np.asarray(x)


def run_case(case):
    tensors = dense.build(case, xp.asarray)
    call = dense.Call(case, OPS, DTYPES)
    try:
        with np.errstate(all="ignore"):
            result = call.run(tensors)
            if isinstance(result, ARRAY):
                result = to_numpy(result)
            elif isinstance(result, (list, tuple)) and not isinstance(result, Size):
                result = [to_numpy(r) for r in result]
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - every exception of the library is an outcome
        if dense.is_signature_error(e):
            return dense.signature_outcome(call, e)
        return kit.error_outcome(e)
    return kit.ok_outcome(case, dense.describe(result, is_array, to_numpy), {}, {})


def main():
    kit.serve(f"array-api-strict {xp.__version__} (standard {api_version()})",
              {"ops": sorted(OPS), "dtypes": list(DTYPES), "levels": LEVELS, "declines": DECLINES},
              run_case)


if __name__ == "__main__":
    main()
