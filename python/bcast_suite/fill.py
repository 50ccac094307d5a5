"""The storage fill recipes of fixtures/README.md, stdlib only and self-contained: the one Python
implementation, which conformance/src/repro.rs also pastes into its repro snippets."""

MASK64 = (1 << 64) - 1


def splitmix64(state):
    """One step of splitmix64: (next_state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def fill_values(dtype, fill):
    """The values of a storage of `dtype` described by a recipe {"kind", "len", "seed"}."""
    kind, n = fill["kind"], fill["len"]
    if kind == "arange":
        return [i % 2 == 1 if dtype == "bool" else i if dtype == "int64" else float(i) for i in range(n)]
    if kind != "random":
        raise ValueError(f"unknown fill kind {kind!r}")
    state, out = fill.get("seed", 0) & MASK64, []
    for _ in range(n):
        state, z = splitmix64(state)
        r = z >> 40
        out.append(r & 1 == 1 if dtype == "bool" else r % 21 - 10 if dtype == "int64" else (r % 33 - 16) / 4.0)
    return out
