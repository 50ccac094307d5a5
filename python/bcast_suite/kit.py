"""The kit for writing a protocol adapter in Python (PROTOCOL.md), stdlib only: the protocol loop,
a case's inputs built with the implementation's own constructors, arguments decoded, and
outcomes described in the schema's terms, with the fixtures' fills and sampling. The NumPy and
PyTorch adapters (bcast_suite.adapters) and the torch labeller are written with it."""

import builtins

from .casefmt import DTYPES, decode_number, encode_number, fits, sample_positions, storage_values
from .protocol import PROTOCOL, Unsupported, serve  # noqa: F401 - re-exported for adapters

# Every check level, in the order PROTOCOL.md lists them.
LEVELS = ("shapes", "dtypes", "values", "errors", "messages", "inplace", "aliasing", "strides", "grads")


class FixtureError(Exception):
    """The case itself is malformed (an unknown dtype, argument kind or index item)."""


def build(case, make_storage, make_view):
    """The case's storages and named views, made by the implementation's constructors:
    make_storage(dtype, values) and make_view(storage, shape, strides, offset), with strides and
    offset in elements. Values are Python numbers: bool, int, float, complex (for the complex
    dtypes). A literal value that is not one of its dtype (uint8 300, float16 0.1) is a
    FixtureError, as it is a load error in the runner. Returns ({storage name: storage},
    {tensor name: view})."""
    storages = {}
    for name, spec in case.get("storages", {}).items():
        if spec["dtype"] not in DTYPES:
            raise FixtureError(f"storage {name}: unknown dtype {spec['dtype']!r}")
        values = storage_values(spec)
        if "values" in spec:  # a fill gives values of its dtype by construction
            for i, v in enumerate(values):
                if not fits(v, spec["dtype"]):
                    raise FixtureError(f"storage {name}: values[{i}]: {spec['values'][i]!r} is not a value of "
                                       f"{spec['dtype']} (integers in range, half values exact, complex as "
                                       f"[re, im])")
        storages[name] = make_storage(spec["dtype"], values)
    tensors = {}
    for name, spec in case.get("tensors", {}).items():
        tensors[name] = make_view(storages[spec["storage"]], spec["shape"], spec["strides"], spec.get("offset", 0))
    return storages, tensors


def view_elements(values, shape, strides, offset=0):
    """The elements a strided view over the list `values` sees, in row-major order."""
    positions = [offset]
    for size, stride in zip(shape, strides):
        positions = [p + i * stride for p in positions for i in range(size)]
    return [values[p] for p in positions]


def arg_parts(arg):
    """The one key of an argument (or index item) object, and its value."""
    (key, value), = arg.items()
    return key, value


def index_value(item):
    """The Python index of one `index` item: a slice, an int, None or Ellipsis."""
    key, v = arg_parts(item)
    if key == "slice":
        return slice(*v)
    if key == "int":
        return v
    if key == "none":
        return None
    if key == "ellipsis":
        return Ellipsis
    raise FixtureError(f"unknown index item {key!r}")


def plain_arg(arg, tensors):
    """An argument as torch's Python API takes it, where no tensor library type is involved:
    tensors by name, numbers (floats decoded, `complex` pairs as Python complex numbers), `ints`/`list` as lists, `tuple` and `size` as
    tuples, `index` as a tuple of index objects, `dtype` as its name, `str`, `none`."""
    key, v = arg_parts(arg)
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
    if key == "complex":
        return complex(decode_number(v))
    if key in ("ints", "list"):
        return list(v)
    if key in ("tuple", "size"):
        return tuple(v)
    if key in ("none", "str", "dtype"):
        return v
    if key == "index":
        return tuple(index_value(i) for i in v)
    raise FixtureError(f"unknown argument kind {key!r}")


def writes_storage(case):
    """Whether the call writes into an input: an in-place method (`..._`) or `out=`."""
    return case["call"]["fn"].endswith("_") or "out" in case["call"].get("kwargs", {})


def tensor_result(shape, dtype, strides, offset, storage, values, value_at):
    """A result tensor in the schema's terms. values() gives every element in row-major order,
    value_at(i) the one at row-major position i: a result of up to MAX_FULL_VALUES elements keeps
    them all, a larger one the sample_positions only, read one by one (never materialised)."""
    numel = 1
    for size in shape:
        numel *= size
    desc = {"shape": list(shape), "dtype": dtype, "strides": list(strides), "offset": offset, "storage": storage}
    positions = sample_positions(numel)
    if positions is None:
        desc["values"] = [encode_number(x) for x in values()]
    else:
        desc["samples"] = [[i, encode_number(value_at(i))] for i in positions]
    return desc


def ok_outcome(case, result, before, after, warnings=()):
    """{"ok": ...}: the result, the storages after the call (when it writes into an input or
    they changed) and the warnings. before/after: {storage name: encoded values}."""
    ok = {"result": result}
    if writes_storage(case) or after != before:
        ok["storages"] = after
    if warnings:
        ok["warnings"] = list(warnings)
    return {"ok": ok}


def exception_class(e, names=None):
    """The name of the first builtin exception class in e's type's MRO (of `names` when given),
    else e's own class name."""
    for cls in type(e).__mro__:
        if (names is None or cls.__name__ in names) and getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(e).__name__


def error_outcome(e, names=None):
    """{"error": ...}: the exception's class (see exception_class) and str(e)."""
    return {"error": {"type": exception_class(e, names), "message": str(e)}}


class GradRequest:
    """What a case with `grad` asks (fixtures/README.md, "Gradients"): `wrt`, the tensor names
    to make leaves that require grad; `clone`, those the call receives as a clone of the leaf;
    `upstream`, per result tensor, the name of the tensor holding its upstream gradient, or None
    for a result not differentiated."""

    def __init__(self, spec):
        self.wrt = list(spec["wrt"])
        self.clone = list(spec.get("clone", []))
        self.upstream = list(spec["upstream"])


def grad_request(case):
    """The case's GradRequest, or None for a case without gradients.

    >>> r = grad_request({"grad": {"wrt": ["a"], "upstream": ["g", None]}})
    >>> (r.wrt, r.clone, r.upstream)
    (['a'], [], ['g', None])
    >>> grad_request({"call": {}}) is None
    True
    """
    spec = case.get("grad")
    return None if spec is None else GradRequest(spec)


def differentiated(results, request, tensors):
    """The pairs (result, upstream tensor) the backward takes: each result tensor whose
    upstream is named, with that tensor of `tensors` (the case's views, upstreams included).
    `results` is the call's result as a list of tensors (one for a single tensor)."""
    return [(r, tensors[u]) for r, u in zip(results, request.upstream) if u is not None]


def requires_grad_error(e, names=None):
    """{"error": ...} for an exception raised while a leaf was made to require grad: as
    error_outcome, with "stage": "requires_grad"."""
    out = error_outcome(e, names)
    out["error"]["stage"] = "requires_grad"
    return out


def with_grads(outcome, grads):
    """Adds the gradients to an {"ok": ...} outcome: `grads` maps each `wrt` name to its
    gradient described with tensor_result, or None where the results do not depend on it."""
    outcome["ok"]["grads"] = dict(grads)
    return outcome


def with_backward_error(outcome, e, names=None):
    """Adds the error the backward raised to an {"ok": ...} outcome (see error_outcome)."""
    outcome["ok"]["backward_error"] = error_outcome(e, names)["error"]
    return outcome
