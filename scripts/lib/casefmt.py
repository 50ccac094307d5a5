"""The fixture case format (schema 1), shared by every Python tool: value encoding,
storage fills, and the call spelling. See fixtures/README.md for the schema itself."""

import math

SCHEMA = 1
DTYPES = ("bool", "int64", "float32", "float64")
# Results with more elements than this keep sampled values instead of all of them.
MAX_FULL_VALUES = 4096
SAMPLE_COUNT = 64
MASK64 = (1 << 64) - 1


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
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[x]
    return x


def splitmix64(state):
    """One step of splitmix64: returns (next_state, output). Mirrored in conformance/src/case/fill.rs."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def fill_values(dtype, fill):
    """The values of a storage described by a fill recipe, as Python numbers."""
    kind, n = fill["kind"], fill["len"]
    if kind == "arange":
        if dtype == "bool":
            return [i % 2 == 1 for i in range(n)]
        if dtype == "int64":
            return list(range(n))
        return [float(i) for i in range(n)]
    if kind == "random":
        state = fill.get("seed", 0) & MASK64
        out = []
        for _ in range(n):
            state, z = splitmix64(state)
            r = z >> 40
            if dtype == "bool":
                out.append(r & 1 == 1)
            elif dtype == "int64":
                out.append(r % 21 - 10)
            else:
                out.append((r % 33 - 16) / 4.0)
        return out
    raise ValueError(f"unknown fill kind {kind!r}")


def storage_values(spec):
    if "values" in spec:
        return [decode_number(v) for v in spec["values"]]
    return fill_values(spec["dtype"], spec["fill"])


def sample_positions(numel):
    """Deterministic positions kept for a large result: evenly spread, first and last included."""
    if numel <= MAX_FULL_VALUES:
        return None
    step = (numel - 1) / (SAMPLE_COUNT - 1)
    return sorted({min(round(i * step), numel - 1) for i in range(SAMPLE_COUNT)})
