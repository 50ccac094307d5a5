"""The fixture case format (schemas 1 to 4), shared by every Python tool: dtypes, number
encoding, storage values and the positions sampled from a large result. See fixtures/README.md."""

import math

from .fill import fill_values, splitmix64  # noqa: F401 - part of the format

# The latest schema (read and written); a file is written with the lowest version that has what
# its cases use (schema_for), so a file of version-1 cases is written exactly as before.
SCHEMA = 4
MIN_SCHEMA = 1
# The versions that added the dtypes after the first four (and complex arguments), gradients, and
# complex32.
DTYPES_SCHEMA = 2
GRAD_SCHEMA = 3
COMPLEX32_SCHEMA = 4
# Every dtype, in the schema's order; those of version 1 first came alone, complex32 last.
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex32", "complex64", "complex128")
V1_DTYPES = ("bool", "int64", "float32", "float64")
COMPLEX_DTYPES = ("complex32", "complex64", "complex128")
# Results with more elements than this keep sampled values instead of all of them.
MAX_FULL_VALUES = 4096
SAMPLE_COUNT = 64


def encode_number(x):
    """A JSON-safe element: floats that are not finite become "nan", "inf", "-inf"; a complex
    number becomes the pair [re, im], each part encoded as a float."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, complex):
        return [encode_number(float(x.real)), encode_number(float(x.imag))]
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def decode_number(x):
    """The Python number of an encoded element (a pair [re, im] is a complex number)."""
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[x]
    if isinstance(x, list):
        re, im = x
        return complex(float(decode_number(re)), float(decode_number(im)))
    return x


def dtype_names(case):
    """Every dtype name a case uses: its storages', its expected result tensors' and its dtype
    arguments' (as the Rust Case::dtype_names)."""
    names = {s["dtype"] for s in case.get("storages", {}).values()}
    call = case.get("call", {})
    for arg in list(call.get("args", [])) + list(call.get("kwargs", {}).values()):
        if isinstance(arg, dict) and "dtype" in arg:
            names.add(arg["dtype"])
    result = case.get("expect", {}).get("ok", {}).get("result", {})
    if isinstance(result, dict):  # not "not_implemented"
        for t in [result["tensor"]] if "tensor" in result else result.get("tensors", []):
            names.add(t["dtype"])
    return names


def has_complex_arg(case):
    """Whether the call passes a Python complex number (`{"complex": [re, im]}`, schema 2), as
    the Rust Case::has_complex_arg."""
    call = case.get("call", {})
    args = list(call.get("args", [])) + list(call.get("kwargs", {}).values())
    return any(isinstance(a, dict) and "complex" in a for a in args)


def schema_for(cases):
    """The schema version a file of these cases is written with: 1 unless a case names a dtype
    that only version 2 has, or passes a Python complex number (2), or asks for gradients (3),
    or names complex32 (4); as the Rust schema_for."""
    if any(name == "complex32" for case in cases for name in dtype_names(case)):
        return COMPLEX32_SCHEMA
    if any("grad" in case for case in cases):
        return GRAD_SCHEMA
    new = any(name not in V1_DTYPES and name in DTYPES for case in cases for name in dtype_names(case))
    new = new or any(has_complex_arg(case) for case in cases)
    return DTYPES_SCHEMA if new else MIN_SCHEMA


INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-(1 << 15), (1 << 15) - 1),
              "int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
# (fraction bits, exponent of the smallest normal, exponent of the largest finite) of the halves.
HALF_FORMATS = {"float16": (10, -14, 15), "bfloat16": (7, -126, 127)}


def half_exact(x, dtype):
    """Whether the float x is exactly a value of the half dtype (NaN and infinities are)."""
    fraction_bits, min_exp, max_exp = HALF_FORMATS[dtype]
    if math.isnan(x) or math.isinf(x) or x == 0:
        return True
    exp = math.frexp(abs(x))[1] - 1
    if exp > max_exp:
        return False
    return math.ldexp(abs(x), fraction_bits - max(exp, min_exp)).is_integer()


def fits(x, dtype):
    """Whether the (decoded) Python value x can be an element of `dtype` as fixtures write it,
    the rules of the Rust Num::check: bools for bool, ints in range for the integer dtypes, any
    number for float32/float64, exactly a value of the dtype for float16/bfloat16, complex
    numbers (pairs) for the complex dtypes, with parts exactly float16 values for complex32."""
    if dtype == "bool":
        return isinstance(x, bool)
    if dtype in INT_RANGES:
        lo, hi = INT_RANGES[dtype]
        return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi
    if dtype == "complex32":
        return isinstance(x, complex) and half_exact(x.real, "float16") and half_exact(x.imag, "float16")
    if dtype in COMPLEX_DTYPES:
        return isinstance(x, complex)
    if isinstance(x, (bool, complex)) or not isinstance(x, (int, float)):
        return False
    if dtype in HALF_FORMATS:
        return (not isinstance(x, int) or float(x) == x) and half_exact(float(x), dtype)
    return dtype in DTYPES


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
