"""The storage fill recipes of fixtures/README.md, stdlib only and self-contained: the one Python
implementation, which the repro snippets of conformance/src/repro.rs import."""

MASK64 = (1 << 64) - 1
# (fraction bits, exponent of the smallest normal, exponent of the largest finite) of the halves.
HALF_FORMATS = {"float16": (10, -14, 15), "bfloat16": (7, -126, 127)}
INT_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32}
COMPLEX_DTYPES = ("complex32", "complex64", "complex128")


def splitmix64(state):
    """One step of splitmix64: (next_state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def round_half(dtype, i):
    """The non-negative integer i rounded to the nearest value of a half dtype, ties to even;
    an infinity past its largest value."""
    fraction_bits, min_exp, max_exp = HALF_FORMATS[dtype]
    if i == 0:
        return 0.0
    quantum = 1 << max(i.bit_length() - 1 - fraction_bits, 0)  # integers: never subnormal
    q, rest = divmod(i, quantum)
    if 2 * rest > quantum or (2 * rest == quantum and q % 2 == 1):
        q += 1
    value = q * quantum
    largest = ((1 << (fraction_bits + 1)) - 1) << (max_exp - fraction_bits)
    return float(value) if value <= largest else float("inf")


def arange_value(dtype, i):
    """Element i of an arange fill: torch.arange(len).to(dtype)[i] (bools alternate)."""
    if dtype == "bool":
        return i % 2 == 1
    if dtype == "int64":
        return i
    if dtype in INT_BITS:
        bits = INT_BITS[dtype]
        v = i & ((1 << bits) - 1)
        return v - (1 << bits) if dtype != "uint8" and v >= 1 << (bits - 1) else v
    if dtype in HALF_FORMATS:
        return round_half(dtype, i)
    if dtype == "complex32":
        return complex(round_half("float16", i), 0)
    if dtype in COMPLEX_DTYPES:
        return complex(i, 0)
    return float(i)


def fill_values(dtype, fill):
    """The values of a storage of `dtype` described by a recipe {"kind", "len", "seed"}."""
    kind, n = fill["kind"], fill["len"]
    if kind == "arange":
        return [arange_value(dtype, i) for i in range(n)]
    if kind != "random":
        raise ValueError(f"unknown fill kind {kind!r}")
    state, out = fill.get("seed", 0) & MASK64, []

    def draw():
        nonlocal state
        state, z = splitmix64(state)
        return z >> 40

    for _ in range(n):
        if dtype == "bool":
            out.append(draw() & 1 == 1)
        elif dtype == "uint8":
            out.append(draw() % 21)
        elif dtype in INT_BITS or dtype == "int64":
            out.append(draw() % 21 - 10)
        elif dtype in COMPLEX_DTYPES:
            re = (draw() % 33 - 16) / 4.0
            out.append(complex(re, (draw() % 33 - 16) / 4.0))
        else:
            out.append((draw() % 33 - 16) / 4.0)
    return out
