"""JAX as a protocol adapter (see PROTOCOL.md): jax.numpy on the CPU with 64-bit types enabled
(`jax_enable_x64`), so that int64 and float64 are what they say. Each catalogue op is mapped to
its jax.numpy function (jax.lax where jax.numpy has none: narrow, select; jax.nn.sigmoid), with
torch's argument forms decoded but never torch's semantics emulated: where JAX broadcasts,
promotes, clamps or raises differently, the run shows it.

JAX arrays are immutable and have no strided views: each input view is handed over as a dense
copy of the elements it sees, in-place methods and out= are declined, and so are alpha= and
rounding_mode= (no jax.numpy function takes them). The levels claimed are shapes, dtypes and
values; JAX's exception classes and messages are its own, so errors and messages are not, nor
inplace, aliasing and strides (nothing JAX exposes).

    eval "$(scripts/setup-adapters.sh)"
    bcast run --backend "$BCAST_ADAPTERS_PYTHON scripts/adapters/jax_adapter.py"
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402 - the platform is chosen before the import

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

from .. import kit  # noqa: E402
from ..kit import Unsupported  # noqa: E402
from . import dense  # noqa: E402
from .dense import Size, axis, sizes, unpack_tensors, var_args  # noqa: E402

LEVELS = ["shapes", "dtypes", "values"]
DTYPES = {"bool": jnp.bool_, "int64": jnp.int64, "float32": jnp.float32, "float64": jnp.float64}
DECLINES = {"forms": ["in_place"], "kwargs": ["out", "alpha", "rounding_mode"]}


# ---- ops: torch's signature on the left, jax.numpy's function on the right -------------------

def narrow(t, dim, start, length):
    """torch.narrow(t, dim, start, length): lax.slice_in_dim, start may count from the end."""
    limit = start + length
    if start < 0 and limit == 0:
        limit = None  # a negative start's slice that reaches the end
    return lax.slice_in_dim(t, start, limit, axis=dim)


def squeeze(t, dim=None):
    return jnp.squeeze(t, axis=axis(dim))


_ALL = object()


def reduction(fn):
    """torch.sum/mean/amax/amin(input, dim, keepdim, *, dtype): torch's default dim (None, or
    () for amax/amin) reduces every dim, as JAX's axis=None does; an explicit dim is passed on."""
    def run(t, dim=_ALL, keepdim=False, **kw):
        return fn(t, axis=None if dim is _ALL else axis(dim), keepdims=keepdim, **kw)
    return run


def spread(fn):
    def run(t, dim=None, unbiased=None, keepdim=False, *, correction=None):
        ax, ddof, keepdims = var_args(dim, unbiased, keepdim, correction)
        return fn(t, axis=ax, ddof=ddof, keepdims=keepdims)
    return run


def einsum(*args):
    """torch.einsum(equation, *operands) or (equation, [operands]) or the sublist form, which
    jnp.einsum takes as NumPy does."""
    if len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], list):
        return jnp.einsum(args[0], *args[1])
    return jnp.einsum(*args)


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: an int stands for a 1-d shape, as in NumPy's."""
    return Size(jnp.broadcast_shapes(*((s,) if isinstance(s, int) else s for s in shapes)))


def size(t, dim=None):
    return Size(t.shape) if dim is None else t.shape[dim]


UNARY = {
    "abs": jnp.abs, "neg": jnp.negative, "sign": jnp.sign, "floor": jnp.floor, "ceil": jnp.ceil,
    "exp": jnp.exp, "log": jnp.log, "sqrt": jnp.sqrt, "sin": jnp.sin, "cos": jnp.cos,
    "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid, "reciprocal": jnp.reciprocal, "exp2": jnp.exp2,
    "log1p": jnp.log1p, "round": jnp.round, "trunc": jnp.trunc, "bitwise_not": jnp.bitwise_not,
    "logical_not": jnp.logical_not,
}
BINARY = {
    "add": jnp.add, "sub": jnp.subtract, "subtract": jnp.subtract, "mul": jnp.multiply,
    "multiply": jnp.multiply, "div": jnp.true_divide, "divide": jnp.true_divide,
    "true_divide": jnp.true_divide, "floor_divide": jnp.floor_divide, "remainder": jnp.remainder,
    "fmod": jnp.fmod, "pow": jnp.power, "atan2": jnp.arctan2, "hypot": jnp.hypot,
    "copysign": jnp.copysign, "maximum": jnp.maximum, "minimum": jnp.minimum, "fmax": jnp.fmax,
    "fmin": jnp.fmin, "bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
    "bitwise_xor": jnp.bitwise_xor, "eq": jnp.equal, "ne": jnp.not_equal, "lt": jnp.less,
    "le": jnp.less_equal, "less_equal": jnp.less_equal, "gt": jnp.greater, "greater": jnp.greater,
    "ge": jnp.greater_equal, "logical_and": jnp.logical_and, "logical_or": jnp.logical_or,
    "logical_xor": jnp.logical_xor,
}

# Forms called as torch.X(input, ...) and input.X(...) alike.
BOTH = {
    "expand": lambda t, *s: jnp.broadcast_to(t, sizes(s)),
    "broadcast_to": lambda t, s: jnp.broadcast_to(t, tuple(s)),
    "unsqueeze": lambda t, d: jnp.expand_dims(t, d),
    "squeeze": squeeze,
    "permute": lambda t, *d: jnp.transpose(t, sizes(d)),
    "transpose": lambda t, a, b: jnp.swapaxes(t, a, b),
    "t": lambda t: t.T,
    "narrow": narrow,
    "select": lambda t, dim, index: lax.index_in_dim(t, index, axis=dim, keepdims=False),
    "view": lambda t, *s: jnp.reshape(t, sizes(s)),
    "reshape": lambda t, *s: jnp.reshape(t, sizes(s)),
    "contiguous": lambda t: jnp.asarray(t),
    "clone": lambda t: jnp.array(t, copy=True),
    "repeat": lambda t, *r: jnp.tile(t, sizes(r)),
    "numel": lambda t: int(t.size),
    "dim": lambda t: int(t.ndim),
    "size": size,
    "sum": reduction(jnp.sum),
    "mean": reduction(jnp.mean),
    "amax": reduction(jnp.max),
    "amin": reduction(jnp.min),
    "var": spread(jnp.var),
    "std": spread(jnp.std),
    "matmul": jnp.matmul,
    "mm": jnp.matmul,
    "bmm": jnp.matmul,
    "mv": jnp.matmul,
    "dot": jnp.dot,
}
BOTH.update(UNARY)
BOTH.update(BINARY)

OPS = {}
for _name, _fn in BOTH.items():
    OPS[f"torch.{_name}"] = _fn
    OPS[f"Tensor.{_name}"] = _fn
    # In-place forms are claimed so that they are declined (skipped, with the reason) rather
    # than silently unclaimed: JAX has none.
    if _name in UNARY or _name in BINARY:
        OPS[f"Tensor.{_name}_"] = _fn
OPS.update({
    "Tensor.expand_as": lambda t, o: jnp.broadcast_to(t, o.shape),
    "torch.broadcast_tensors": lambda *ts: jnp.broadcast_arrays(*unpack_tensors(ts)),
    "torch.broadcast_shapes": broadcast_shapes,
    "torch.where": lambda c, x, y: jnp.where(c, x, y),
    "Tensor.where": lambda x, c, y: jnp.where(c, x, y),
    "torch.max": dense.of_two_tensors(jnp.maximum),
    "torch.einsum": einsum,
    "Tensor.copy_": None,  # in place only: declined
    "getitem": None,       # x[index], see dense.call
})
for _name in ("expand", "expand_as", "broadcast_to", "view", "contiguous", "repeat", "numel", "dim", "size"):
    OPS.pop(f"torch.{_name}", None)  # methods only in torch (torch.broadcast_to exists: kept below)
OPS["torch.broadcast_to"] = BOTH["broadcast_to"]
OPS["torch.numel"] = BOTH["numel"]


# ---- the loop -------------------------------------------------------------------------------

def is_array(x):
    return isinstance(x, jax.Array)


def run_case(case):
    tensors = dense.build(case, jnp.asarray)
    run = dense.call(case, OPS, tensors, DTYPES)
    try:
        result = run()
        if isinstance(result, jax.Array):
            result = np.asarray(result)
        elif isinstance(result, (list, tuple)) and not isinstance(result, Size):
            result = [np.asarray(r) for r in result]
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - every JAX exception is an outcome
        if dense.is_signature_error(e):
            raise Unsupported(f"{case['call']['fn']}: {e}") from e
        return kit.error_outcome(e)
    return kit.ok_outcome(case, dense.describe(result, lambda x: isinstance(x, np.ndarray), np.asarray), {}, {})


def main():
    kit.serve(f"jax {jax.__version__} (cpu, x64)",
              {"ops": sorted(OPS), "dtypes": list(DTYPES), "levels": LEVELS, "declines": DECLINES},
              run_case)


if __name__ == "__main__":
    main()
