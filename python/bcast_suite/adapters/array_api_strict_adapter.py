"""array-api-strict as a protocol adapter (see PROTOCOL.md): the Python Array API standard's
strict reference implementation (standard version as the library defaults to, printed in the
name), through the standard's functions only. A catalogue op is claimed when the standard has
a function for it (torch.add: add, Tensor.permute: permute_dims, Tensor.repeat: tile,
Tensor.expand: broadcast_to, torch.amax: max, Tensor.t: the .T attribute, ...); ops it has no
function for (einsum, sigmoid, narrow, select, transpose of two dims, fmod, ...) are not
claimed and so are skipped. torch's argument forms are decoded (dim= as axis=, var's unbiased
as correction=), never torch's semantics emulated: where the standard promotes, broadcasts or
refuses differently (mixed-kind promotion, squeeze without an axis, .T of a 1-d array), the run
shows it.

Arrays of the standard have no strided views and the adapter never writes into an input:
in-place methods and out= are declined, and so are alpha= and rounding_mode= (no standard
function takes them). Claimed: shapes, dtypes, values; the library's exception classes and
messages are its own, so errors and messages are not, nor inplace, aliasing and strides.

    eval "$(scripts/setup-adapters.sh)"
    bcast run --backend "$BCAST_ADAPTERS_PYTHON scripts/adapters/array_api_strict_adapter.py"
"""

import array_api_strict as xp
import numpy as np

from .. import kit
from ..kit import Unsupported
from . import dense
from .dense import Size, axis, sizes, unpack_tensors, var_args

LEVELS = ["shapes", "dtypes", "values"]
DTYPES = {"bool": xp.bool, "int64": xp.int64, "float32": xp.float32, "float64": xp.float64}
DECLINES = {"forms": ["in_place"], "kwargs": ["out", "alpha", "rounding_mode"]}


def api_version():
    return xp.get_array_api_strict_flags()["api_version"]


# ---- ops: torch's signature on the left, the standard's function on the right ----------------

_ALL = object()


def reduction(fn):
    """torch.sum/amax/amin(input, dim, keepdim, *, dtype): torch's default dim reduces every
    dim, as the standard's axis=None does; an explicit dim is passed on."""
    def run(t, dim=_ALL, keepdim=False, **kw):
        return fn(t, axis=None if dim is _ALL else axis(dim), keepdims=keepdim, **kw)
    return run


def mean(t, dim=_ALL, keepdim=False, dtype=None):
    if dtype is not None:
        raise Unsupported("the standard's mean() takes no dtype=")
    return xp.mean(t, axis=None if dim is _ALL else axis(dim), keepdims=keepdim)


def spread(fn):
    def run(t, dim=None, unbiased=None, keepdim=False, *, correction=None):
        ax, ddof, keepdims = var_args(dim, unbiased, keepdim, correction)
        return fn(t, axis=ax, correction=ddof, keepdims=keepdims)
    return run


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: an int stands for a 1-d shape."""
    return Size(xp.broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s) for s in shapes)))


def size(t, dim=None):
    return Size(t.shape) if dim is None else t.shape[dim]


UNARY = {
    "abs": xp.abs, "neg": xp.negative, "sign": xp.sign, "floor": xp.floor, "ceil": xp.ceil,
    "exp": xp.exp, "log": xp.log, "sqrt": xp.sqrt, "sin": xp.sin, "cos": xp.cos, "tanh": xp.tanh,
    "reciprocal": xp.reciprocal, "log1p": xp.log1p, "round": xp.round, "trunc": xp.trunc,
    "bitwise_not": xp.bitwise_invert, "logical_not": xp.logical_not,
}
BINARY = {
    "add": xp.add, "sub": xp.subtract, "subtract": xp.subtract, "mul": xp.multiply,
    "multiply": xp.multiply, "div": xp.divide, "divide": xp.divide, "true_divide": xp.divide,
    "floor_divide": xp.floor_divide, "remainder": xp.remainder, "pow": xp.pow,
    "atan2": xp.atan2, "hypot": xp.hypot, "copysign": xp.copysign, "maximum": xp.maximum,
    "minimum": xp.minimum, "bitwise_and": xp.bitwise_and, "bitwise_or": xp.bitwise_or,
    "bitwise_xor": xp.bitwise_xor, "eq": xp.equal, "ne": xp.not_equal, "lt": xp.less,
    "le": xp.less_equal, "less_equal": xp.less_equal, "gt": xp.greater, "greater": xp.greater,
    "ge": xp.greater_equal, "logical_and": xp.logical_and, "logical_or": xp.logical_or,
    "logical_xor": xp.logical_xor,
}

# Forms called as torch.X(input, ...) and input.X(...) alike (where torch has both).
BOTH = {
    "broadcast_to": lambda t, s: xp.broadcast_to(t, tuple(s)),
    "unsqueeze": lambda t, d: xp.expand_dims(t, axis=d),
    "squeeze": lambda t, dim=None: xp.squeeze(t, axis=axis(dim)),
    "permute": lambda t, *d: xp.permute_dims(t, sizes(d)),
    "t": lambda t: t.T,
    "reshape": lambda t, *s: xp.reshape(t, sizes(s)),
    "clone": lambda t: xp.asarray(t, copy=True),
    "numel": lambda t: t.size,
    "sum": reduction(xp.sum),
    "mean": mean,
    "amax": reduction(xp.max),
    "amin": reduction(xp.min),
    "var": spread(xp.var),
    "std": spread(xp.std),
    "matmul": xp.matmul,
    "mm": xp.matmul,
    "bmm": xp.matmul,
    "mv": xp.matmul,
    "dot": xp.vecdot,
}
BOTH.update(UNARY)
BOTH.update(BINARY)

OPS = {}
for _name, _fn in BOTH.items():
    OPS[f"torch.{_name}"] = _fn
    OPS[f"Tensor.{_name}"] = _fn
    # In-place forms are claimed so that they are declined (skipped, with the reason).
    if _name in UNARY or _name in BINARY:
        OPS[f"Tensor.{_name}_"] = _fn
OPS.update({
    "Tensor.expand": lambda t, *s: xp.broadcast_to(t, sizes(s)),
    "Tensor.expand_as": lambda t, o: xp.broadcast_to(t, o.shape),
    "Tensor.view": lambda t, *s: xp.reshape(t, sizes(s)),
    "Tensor.contiguous": lambda t: xp.asarray(t, copy=True),
    "Tensor.repeat": lambda t, *r: xp.tile(t, sizes(r)),
    "Tensor.dim": lambda t: t.ndim,
    "Tensor.size": size,
    "torch.broadcast_tensors": lambda *ts: xp.broadcast_arrays(*unpack_tensors(ts)),
    "torch.broadcast_shapes": broadcast_shapes,
    "torch.where": lambda c, x, y: xp.where(c, x, y),
    "Tensor.where": lambda x, c, y: xp.where(c, x, y),
    "torch.max": dense.of_two_tensors(xp.maximum),
    "Tensor.copy_": None,  # in place only: declined
    "getitem": None,       # x[index], see dense.call
})


# ---- the loop -------------------------------------------------------------------------------

ARRAY = type(xp.asarray(0))  # the library's one array class


def is_array(x):
    return isinstance(x, ARRAY)


def to_numpy(x):
    return np.asarray(x)


def run_case(case):
    tensors = dense.build(case, xp.asarray)
    run = dense.call(case, OPS, tensors, DTYPES)
    try:
        with np.errstate(all="ignore"):
            result = run()
            if is_array(result):
                result = to_numpy(result)
            elif isinstance(result, (list, tuple)) and not isinstance(result, Size):
                result = [to_numpy(r) for r in result]
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - every exception of the library is an outcome
        if dense.is_signature_error(e):
            raise Unsupported(f"{case['call']['fn']}: {e}") from e
        return kit.error_outcome(e)
    return kit.ok_outcome(case, dense.describe(result, lambda x: isinstance(x, np.ndarray), np.asarray), {}, {})


def main():
    kit.serve(f"array-api-strict {xp.__version__} (standard {api_version()})",
              {"ops": sorted(OPS), "dtypes": list(DTYPES), "levels": LEVELS, "declines": DECLINES},
              run_case)


if __name__ == "__main__":
    main()
