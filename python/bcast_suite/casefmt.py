"""The fixture case format (schema 1), shared by every Python tool: dtypes, number encoding,
storage values and the positions sampled from a large result. See fixtures/README.md."""

import math

from .fill import fill_values, splitmix64  # noqa: F401 - part of the format

SCHEMA = 1
DTYPES = ("bool", "int64", "float32", "float64")
# Results with more elements than this keep sampled values instead of all of them.
MAX_FULL_VALUES = 4096
SAMPLE_COUNT = 64


def encode_number(x):
    """A JSON-safe element: floats that are not finite become "nan", "inf", "-inf"."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def decode_number(x):
    """The Python number of an encoded element."""
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[x]
    return x


def storage_values(spec):
    """The values of a storage spec: its literal `values`, or what its `fill` recipe gives."""
    if "values" in spec:
        return [decode_number(v) for v in spec["values"]]
    return fill_values(spec["dtype"], spec["fill"])


def sample_positions(numel):
    """The row-major positions kept for a result of `numel` elements, or None to keep them all:
    64 evenly spread, first and last included (as the Rust runner's sample_positions)."""
    if numel <= MAX_FULL_VALUES:
        return None
    step = (numel - 1) / (SAMPLE_COUNT - 1)
    return sorted({min(round(i * step), numel - 1) for i in range(SAMPLE_COUNT)})


def unravel(i, shape):
    """The index tuple of row-major position i in `shape`."""
    index = []
    for size in reversed(shape):
        index.append(i % size)
        i //= size
    return tuple(reversed(index))
