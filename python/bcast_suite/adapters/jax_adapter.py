"""JAX as a protocol adapter (see PROTOCOL.md): jax.numpy on the CPU with 64-bit types enabled
(jax_enable_x64), so that int64 and float64 are what they say, over every dtype of the schema
JAX has (all twelve: bfloat16 is ml_dtypes'). JAX arrays have no strides or views
(jax.numpy's functions return new immutable arrays), so each input view is handed over as a
dense copy of the elements it sees (adapters.dense) and the hello declines what such a copy
cannot stand for: in-place methods, out=, inputs of more than 2^24 elements, outcomes that
depend on strides and huge results; and alpha= and rounding_mode=, which no jax.numpy function
takes. Each op is called with the bound call's arguments (torch's parameter names); an op
jax.numpy has no function for but torch documents as a formula (addcmul, addcdiv, lerp, frac,
rsub, masked_fill) is that formula written in jax.numpy.

Gradients (level grads) are jax.vjp's: the `wrt` tensors are the primals, the call is the
function, the upstream tensors the cotangents, each gradient the pullback's answer for its
primal. JAX refuses none of what torch refuses here (an integer or bool primal gets a float0
cotangent, answered as no gradient; a bool result takes a bool cotangent), and its complex
convention is not torch's: README ("Conformance matrix") says where it differs.

The levels claimed are shapes, dtypes, values and grads; JAX's exception classes and messages
are its own, so errors and messages are not, nor inplace, aliasing and strides (nothing JAX
exposes).

    eval "$(scripts/setup-adapters.sh)"
    bcast run --backend "$BCAST_ADAPTERS_PYTHON -m bcast_suite.adapters.jax_adapter" --timeout-ms 30000
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402 - the platform is chosen before the import

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

from .. import kit  # noqa: E402
from ..kit import Unsupported  # noqa: E402
from . import dense  # noqa: E402
from .dense import Size, axis, ddof, no_keyword, unpack_tensors  # noqa: E402

LEVELS = ["shapes", "dtypes", "values", "grads"]
DTYPES = {"bool": jnp.bool_, "uint8": jnp.uint8, "int8": jnp.int8, "int16": jnp.int16, "int32": jnp.int32,
          "int64": jnp.int64, "float16": jnp.float16, "bfloat16": jnp.bfloat16, "float32": jnp.float32,
          "float64": jnp.float64, "complex64": jnp.complex64, "complex128": jnp.complex128}
DECLINES = {**dense.DECLINES, "kwargs": dense.DECLINES["kwargs"] + ["alpha", "rounding_mode"]}


# ---- ops: torch's signature on the left, jax.numpy's function on the right -------------------

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
    return jnp.add(input, other)


def sub(input, other, *, alpha=1, out=None):
    no_keyword("alpha", alpha, 1)
    return jnp.subtract(input, other)


def rsub(input, other, alpha=1):
    """torch.rsub(input, other) is other - input."""
    no_keyword("alpha", alpha, 1)
    return jnp.subtract(other, input)


def div(input, other, *, rounding_mode=None, out=None):
    no_keyword("rounding_mode", rounding_mode)
    return jnp.true_divide(input, other)


def pow_(input, exponent, *, out=None):
    return jnp.power(input, exponent)


def float_power(input, exponent, *, out=None):
    return jnp.float_power(input, exponent)


def heaviside(input, values, *, out=None):
    return jnp.heaviside(input, values)


def frac(input, *, out=None):
    """torch documents frac(x) as x - trunc(x) (with x's sign)."""
    return jnp.subtract(input, jnp.trunc(input))


def round_(input, *, decimals=0, out=None):
    return jnp.round(input, decimals)


def clamp(input, min=None, max=None, *, out=None):
    return jnp.clip(input, min, max)


def clamp_min(input, min, *, out=None):
    return jnp.clip(input, min, None)


def clamp_max(input, max, *, out=None):
    return jnp.clip(input, None, max)


def promoted(*operands):
    """The operands of one op in the dtype JAX's promotion gives them together, as jax.numpy's
    functions of several arrays take theirs (a Python number stays weakly typed)."""
    dtype = jnp.result_type(*operands)
    return [x if isinstance(x, (bool, int, float, complex)) else jnp.asarray(x, dtype) for x in operands]


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """torch documents addcmul as input + value * tensor1 * tensor2, of the three tensors."""
    input, tensor1, tensor2 = promoted(input, tensor1, tensor2)
    return input + value * tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """torch documents addcdiv as input + value * tensor1 / tensor2, of the three tensors."""
    input, tensor1, tensor2 = promoted(input, tensor1, tensor2)
    return input + value * tensor1 / tensor2


def lerp(input, end, weight, *, out=None):
    """torch documents lerp as input + weight * (end - input), of the three arguments."""
    input, end, weight = promoted(input, end, weight)
    return input + weight * (end - input)


def masked_fill(input, mask, value):
    return jnp.where(mask, value, input)


def where(condition, input, other, *, out=None):
    return jnp.where(condition, input, other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def equal(input, other):
    return bool(jnp.array_equal(input, other))


def narrow(input, dim, start, length):
    """torch.narrow(t, dim, start, length): lax.slice_in_dim, start may count from the end."""
    limit = start + length
    if start < 0 and limit == 0:
        limit = None  # a negative start's slice that reaches the end
    return lax.slice_in_dim(input, start, limit, axis=dim)


def select(input, dim, index):
    return lax.index_in_dim(input, index, axis=dim, keepdims=False)


def squeeze(input, dim=None):
    return jnp.squeeze(input, axis=axis(dim))


def reduction(fn):
    """torch.sum/mean/amax/amin(input, dim, keepdim, *, dtype): dim None (torch's default)
    reduces every dim, as JAX's axis=None does; any other dim is passed on."""
    def run(input, dim=None, keepdim=False, *, dtype=None, out=None):
        kw = {} if dtype is None else {"dtype": dtype}
        return fn(input, axis=axis(dim), keepdims=keepdim, **kw)
    return run


def spread(fn):
    """torch.var/std(input, dim, unbiased, keepdim, *, correction) as (axis, ddof, keepdims)."""
    def run(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None):
        return fn(input, axis=axis(dim), ddof=ddof(unbiased, correction), keepdims=keepdim)
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


def size(input, dim=None):
    return Size(input.shape) if dim is None else input.shape[dim]


def clone(input, *, memory_format=None):
    return jnp.array(input, copy=True)


def expand(input, size, *, implicit=False):
    return jnp.broadcast_to(input, tuple(size))


UNARY = {
    "abs": jnp.abs, "neg": jnp.negative, "sign": jnp.sign, "floor": jnp.floor, "ceil": jnp.ceil,
    "exp": jnp.exp, "log": jnp.log, "sqrt": jnp.sqrt, "sin": jnp.sin, "cos": jnp.cos,
    "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid, "reciprocal": jnp.reciprocal, "exp2": jnp.exp2,
    "log1p": jnp.log1p, "trunc": jnp.trunc, "bitwise_not": jnp.bitwise_not, "logical_not": jnp.logical_not,
}
BINARY = {
    "mul": jnp.multiply, "multiply": jnp.multiply, "true_divide": jnp.true_divide,
    "floor_divide": jnp.floor_divide, "remainder": jnp.remainder, "fmod": jnp.fmod,
    "atan2": jnp.arctan2, "arctan2": jnp.arctan2, "hypot": jnp.hypot, "copysign": jnp.copysign,
    "maximum": jnp.maximum, "minimum": jnp.minimum, "max": jnp.maximum, "min": jnp.minimum,
    "fmax": jnp.fmax, "fmin": jnp.fmin, "bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
    "bitwise_xor": jnp.bitwise_xor, "bitwise_left_shift": jnp.left_shift,
    "bitwise_right_shift": jnp.right_shift, "eq": jnp.equal, "ne": jnp.not_equal, "lt": jnp.less,
    "le": jnp.less_equal, "less_equal": jnp.less_equal, "gt": jnp.greater, "greater": jnp.greater,
    "ge": jnp.greater_equal, "logical_and": jnp.logical_and, "logical_or": jnp.logical_or,
    "logical_xor": jnp.logical_xor, "logaddexp": jnp.logaddexp, "logaddexp2": jnp.logaddexp2,
    "ldexp": jnp.ldexp, "gcd": jnp.gcd, "lcm": jnp.lcm, "nextafter": jnp.nextafter, "xlogy": jsp.xlogy,
}
# Element-wise ops (their in-place forms are claimed, so that the hello declines them).
ELEMENTWISE = {name: unary(fn) for name, fn in UNARY.items()}
ELEMENTWISE.update({name: binary(fn) for name, fn in BINARY.items()})
ELEMENTWISE.update({
    "add": add, "sub": sub, "subtract": sub, "div": div, "divide": div, "pow": pow_,
    "float_power": float_power, "heaviside": heaviside, "frac": frac, "round": round_, "clamp": clamp,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "addcmul": addcmul, "addcdiv": addcdiv, "lerp": lerp,
    "masked_fill": masked_fill,
})
# Forms called as torch.X(input, ...) and input.X(...) alike.
BOTH = {
    **ELEMENTWISE,
    "broadcast_to": lambda input, size: jnp.broadcast_to(input, tuple(size)),
    "unsqueeze": lambda input, dim: jnp.expand_dims(input, dim),
    "squeeze": squeeze,
    "permute": lambda input, dims: jnp.transpose(input, tuple(dims)),
    "transpose": lambda input, dim0, dim1: jnp.swapaxes(input, dim0, dim1),
    "t": lambda input: input.T,
    "narrow": narrow,
    "select": select,
    "reshape": lambda input, shape: jnp.reshape(input, tuple(shape)),
    "clone": clone,
    "numel": lambda input: int(input.size),
    "sum": reduction(jnp.sum),
    "mean": reduction(jnp.mean),
    "amax": reduction(jnp.max),
    "amin": reduction(jnp.min),
    "var": spread(jnp.var),
    "std": spread(jnp.std),
    "matmul": lambda input, other, *, out=None: jnp.matmul(input, other),
    "mm": lambda input, mat2, *, out=None: jnp.matmul(input, mat2),
    "bmm": lambda input, mat2, *, out=None: jnp.matmul(input, mat2),
    "mv": lambda input, vec, *, out=None: jnp.matmul(input, vec),
    "dot": lambda input, tensor, *, out=None: jnp.dot(input, tensor),
    "where": where,
    "isclose": isclose,
    "equal": equal,
}
METHODS = {
    "expand": expand,
    "expand_as": lambda input, other: jnp.broadcast_to(input, other.shape),
    "view": lambda input, size: jnp.reshape(input, tuple(size)),
    "contiguous": lambda input: jnp.asarray(input),
    "repeat": lambda input, repeats: jnp.tile(input, tuple(repeats)),
    "dim": lambda input: int(input.ndim),
    "size": size,
    # torch's method is input.where(condition, other): the function's arguments in another order.
    "where": lambda input, condition, other: jnp.where(condition, input, other),
}
def reflected(dunder):
    """A reflected operator as JAX's arrays have it (`2 - a` is `a.__rsub__(2)`)."""
    def run(input, other):
        return getattr(input, dunder)(other)
    return run


# The reflected operators JAX's arrays have.
REFLECTED = ["__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__", "__rpow__",
             "__rand__", "__ror__", "__rxor__", "__rlshift__", "__rrshift__", "__rmatmul__"]
FUNCTIONS = {
    "broadcast_tensors": lambda *tensors: jnp.broadcast_arrays(*unpack_tensors(tensors)),
    "broadcast_shapes": broadcast_shapes,
    "einsum": einsum,
    "rsub": rsub,
    "special.xlogy": binary(jsp.xlogy),
    "special.xlog1py": binary(jsp.xlog1py),
    "special.zeta": binary(jsp.zeta),
}

OPS = {f"torch.{name}": fn for name, fn in {**BOTH, **FUNCTIONS}.items()}
OPS.update({f"Tensor.{name}": fn for name, fn in {**BOTH, **METHODS}.items()})
OPS.update({f"Tensor.{name}_": fn for name, fn in ELEMENTWISE.items()})  # declined: JAX has none
OPS.update({f"Tensor.{d}": reflected(d) for d in REFLECTED})
OPS["Tensor.__rdiv__"] = OPS["Tensor.__rtruediv__"]
OPS["Tensor.copy_"] = None  # in place only: declined
OPS["getitem"] = None       # x[index], see dense.Call


# ---- the loop -------------------------------------------------------------------------------

def to_numpy(x):
    return np.asarray(x)


def is_array(x):
    return isinstance(x, (jax.Array, np.ndarray))


def as_results(result):
    """The call's result with its arrays as NumPy arrays."""
    if isinstance(result, jax.Array):
        return np.asarray(result)
    if isinstance(result, (list, tuple)) and not isinstance(result, Size):
        return [np.asarray(r) for r in result]
    return result


def run_case(case):
    tensors = dense.build(case, jnp.asarray)
    call = dense.Call(case, OPS, DTYPES)
    request = kit.grad_request(case)
    if request is not None:
        return run_grad(case, call, request, tensors)
    try:
        result = as_results(call.run(tensors))
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - every JAX exception is an outcome
        if dense.is_signature_error(e):
            return dense.signature_outcome(call, e)
        return kit.error_outcome(e)
    return kit.ok_outcome(case, dense.describe(result, is_array, to_numpy), {}, {})


# ---- gradients ------------------------------------------------------------------------------

def cotangent(result, upstream):
    """What the pullback takes for one result: its upstream tensor, cast to the result's dtype
    where both are floating or both complex (JAX wants the cotangent of exactly the result's
    type; a result whose dtype differs from torch's fails the dtypes level already), else as it
    is; zeros of the result's tangent type for a result not differentiated."""
    if upstream is None:
        tangent = jax.dtypes.float0 if not jnp.issubdtype(result.dtype, jnp.inexact) else result.dtype
        return np.zeros(result.shape, dtype=tangent)
    for kind in (jnp.floating, jnp.complexfloating):
        if jnp.issubdtype(result.dtype, kind) and jnp.issubdtype(upstream.dtype, kind):
            return upstream.astype(result.dtype)
    return upstream


def describe_grad(g):
    """A primal's gradient: None for JAX's float0 (the tangent of an integer or bool primal,
    which carries no value), else the array."""
    if g.dtype == jax.dtypes.float0:
        return None
    return dense.describe_array(np.asarray(g))


def run_grad(case, call, request, tensors):
    """jax.vjp of the call in its `wrt` tensors, the pullback applied to the upstream tensors."""
    names = request.wrt
    kind = {}

    def forward(*primals):
        result = call.run({**tensors, **dict(zip(names, primals))})
        if isinstance(result, jax.Array):
            return (result,)
        if isinstance(result, (list, tuple)) and not isinstance(result, Size):
            kind["list"] = True
            return tuple(result)
        kind["other"] = result  # not an array (a bool, a Size): nothing to differentiate
        return ()

    try:
        results, pullback = jax.vjp(forward, *[tensors[n] for n in names])
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001 - every JAX exception is an outcome
        if dense.is_signature_error(e):
            return dense.signature_outcome(call, e)
        return kit.error_outcome(e)
    if "other" in kind:
        result = kind["other"]
    else:
        result = as_results(list(results) if "list" in kind else results[0])
    outcome = kit.ok_outcome(case, dense.describe(result, is_array, to_numpy), {}, {})
    if not kit.differentiated(list(results), request, tensors):
        return kit.with_grads(outcome, {n: None for n in names})
    upstream = request.upstream + [None] * (len(results) - len(request.upstream))
    try:
        grads = pullback(tuple(cotangent(r, None if u is None else tensors[u]) for r, u in zip(results, upstream)))
    except Exception as e:  # noqa: BLE001 - every JAX exception is an outcome
        return kit.with_backward_error(outcome, e)
    return kit.with_grads(outcome, {n: describe_grad(g) for n, g in zip(names, grads)})


def main():
    kit.serve(f"jax {jax.__version__} (cpu, x64)",
              {"ops": sorted(OPS), "dtypes": list(DTYPES), "levels": LEVELS, "declines": DECLINES},
              run_case)


if __name__ == "__main__":
    main()
