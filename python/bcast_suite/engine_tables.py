"""Tables of torch 2.13.0's CPU behaviour that the engine's own tests read
(engine/tests/data/*.json): one function per table; `python -m bcast_suite.engine_tables`
regenerates them all.

Tensors are written as {"dtype", "shape", "hex"}: the little-endian bytes of a contiguous
tensor (`t.contiguous().view(torch.uint8)`), so every value, NaN payloads and -0.0 included,
travels exactly.
"""

import json
import math
import os
import sys

import torch

DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
]
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "engine", "tests", "data")


def dt(name):
    return getattr(torch, name)


def enc(t):
    """A tensor as {"dtype", "shape", "hex"}."""
    t = t.detach().contiguous()
    raw = t.reshape(-1).view(torch.uint8) if t.numel() else torch.empty(0, dtype=torch.uint8)
    return {"dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
            "hex": bytes(raw.tolist()).hex()}


INT_RANGES = {
    "uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
    "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
}
INT_EDGES = [0, 1, -1, 2, 7, -7, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769,
             65504, 65519, 65520, 65535, 2049, 2**24 + 1, 2**25 + 2**17 + 1, 2**31 - 1, -2**31,
             2**31, 2**53 + 1, 2**62 + 2**38 + 1, 2**63 - 1, -2**63]
FLOAT_EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.5, 2.5, 3.5, 0.1, 1 / 3, 127.5, 255.9, 256.0,
               -128.7, -129.0, 300.0, -300.0, 65504.0, 65519.99, 65520.0, 70000.0, 1e10, -1e10,
               3e9, -3e9, 2.0**31, -2.0**31, 2.0**63, -2.0**63, 1e20, 1e30, 3.5e38, -3.5e38, 1e300,
               1e-8, -1e-8, 1e-40, 5.96e-8, 2.98e-8, 1e-300,
               1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 1 + 2**-24 + 2**-60,
               float("nan"), float("inf"), float("-inf")]


def edge_tensor(name):
    """The edge values of one dtype, as a tensor of it."""
    if name == "bool":
        return torch.tensor([False, True])
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        return torch.tensor([v for v in INT_EDGES if lo <= v <= hi], dtype=dt(name))
    if name.startswith("complex"):
        reals = FLOAT_EDGES
        imags = [0.0, -0.0, 1.0, -2.5, float("nan"), float("inf"), 1e-40, 1e300]
        vals = [complex(r, imags[i % len(imags)]) for i, r in enumerate(reals)]
        vals += [complex(0.0, v) for v in [1.0, float("nan"), -0.0]]
        return torch.tensor(vals, dtype=torch.complex128).to(dt(name))
    return torch.tensor(FLOAT_EDGES, dtype=torch.float64).to(dt(name))


def cast_table():
    """`src.to(dst)` for every pair of dtypes on edge values of `src`: the result of a long
    tensor (torch's vectorised loops), and, where it differs, of each element alone."""
    rows = []
    for s in DTYPES:
        x = edge_tensor(s)
        for d in DTYPES:
            # 9 copies: long enough for every vectorised loop, with a scalar tail.
            long = x.repeat(9).to(dt(d))[: x.numel()]
            alone = torch.cat([x[i:i + 1].to(dt(d)) for i in range(x.numel())])
            row = {"src": s, "dst": d, "input": enc(x), "output": enc(long)}
            if enc(alone)["hex"] != row["output"]["hex"]:
                row["output_alone"] = enc(alone)
            rows.append(row)
    return {"torch": torch.__version__, "rows": rows}


def num_json(v):
    """A Python number as the Rust tests read it."""
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": repr(v)}
    return {"complex": [repr(v.real), repr(v.imag)]}


def operand_json(o):
    if isinstance(o, torch.Tensor):
        return {"dtype": str(o.dtype).removeprefix("torch."), "ndim": o.dim()}
    return {"number": num_json(o)}


def promotion_operands():
    """Dimensioned tensors, 0-d tensors and Python numbers of every kind."""
    ops = [torch.ones(2, dtype=dt(d)) for d in DTYPES]
    ops += [torch.tensor(1, dtype=dt(d)) for d in DTYPES]
    ops += [True, 2, -1, 2.5, 1j]
    return ops


def result_type_table():
    """`torch.result_type(a, b)` for every pair of operands (dimensioned, 0-d, number; not two
    numbers), and three operands through `torch.addcmul`'s promotion on a seeded sample of
    tensor triples."""
    import random
    rows = []
    ops = promotion_operands()
    for a in ops:
        for b in ops:
            if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
                continue
            r = torch.result_type(a, b)
            rows.append({"operands": [operand_json(a), operand_json(b)],
                         "result": str(r).removeprefix("torch.")})
    tensors = [o for o in ops if isinstance(o, torch.Tensor)]
    rng = random.Random(7)
    triples = 0
    while triples < 600:
        t = [rng.choice(tensors) for _ in range(3)]
        try:
            r = torch.addcmul(*t).dtype
        except (RuntimeError, TypeError):
            continue
        triples += 1
        rows.append({"operands": [operand_json(x) for x in t],
                     "result": str(r).removeprefix("torch.")})
    # promote_types and can_cast on every pair of dtypes.
    for a in DTYPES:
        for b in DTYPES:
            rows.append({"promote_types": [a, b],
                         "result": str(torch.promote_types(dt(a), dt(b))).removeprefix("torch."),
                         "can_cast": torch.can_cast(dt(a), dt(b))})
    return {"torch": torch.__version__, "rows": rows}


OP_VALUES = {
    "bool": [False, True, True, False, True, False, True, True],
    "uint8": [0, 1, 2, 5, 7, 100, 200, 255],
    "int8": [0, 1, -1, 5, -7, 100, 127, -128],
    "int16": [0, 1, -1, 5, -7, 300, 32767, -32768],
    "int32": [0, 1, -1, 5, -7, 70000, 2**31 - 1, -2**31],
    "int64": [0, 1, -1, 5, -7, 70000, 2**63 - 1, -2**63],
}
FLOAT_OP_VALUES = [0.0, -0.0, 1.5, -2.25, 3.0, 0.1, 60000.0, -7.0]
COMPLEX_OP_VALUES = [0j, complex(-0.0, 1.0), 1.5 - 2j, -2.25 + 0.5j, 3.0 + 0j, 0.1 + 0.2j,
                     complex(60000.0, -1.0), -7 - 7j]


def op_values(name, second=False):
    """Eight values of a dtype; the second operand's are reordered, with no zero in front."""
    if name in OP_VALUES:
        v = OP_VALUES[name]
    elif name.startswith("complex"):
        v = COMPLEX_OP_VALUES
    else:
        v = FLOAT_OP_VALUES
    if second:
        v = v[::-1][:4]
    return torch.tensor(v, dtype=torch.complex128 if name.startswith("complex") else None).to(dt(name))


def outcome(f):
    """The result of `f()` as a tensor, or torch's error."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - every error class is recorded
        return {"error": type(e).__name__, "message": str(e)}
    return {"tensor": enc(r)}


def operand(x):
    return {"tensor": enc(x)} if isinstance(x, torch.Tensor) else {"number": num_json(x)}


BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "floor", "ceil",
         "sign", "reciprocal", "logical_not", "exp2", "log1p", "frac", "round", "trunc",
         "bitwise_not"]


def elementwise_table():
    """Element-wise ops over the thirteen dtypes on small inputs: each binary and comparison op on
    every dtype with itself ((2, 4) with (4,)), with Python numbers, on a sample of mixed pairs;
    each unary op on every dtype; in place and `out=`; `where`."""
    import random
    rng = random.Random(11)
    rows = []

    def row(op, args, f, **extra):
        rows.append({"op": op, "args": [operand(a) for a in args], **extra, "outcome": outcome(f)})

    for d in DTYPES:
        a, b = op_values(d).reshape(2, 4), op_values(d, second=True)
        for op in BINARY + COMPARE:
            row(op, [a, b], lambda: getattr(torch, op)(a, b))
        for op in UNARY:
            row(op, [a], lambda: getattr(torch, op)(a))
        for n in [True, 2, -1, 3.5, 1 - 2j]:
            for op in ["add", "sub", "mul", "div", "pow", "remainder", "eq", "lt"]:
                row(op, [a, n], lambda: getattr(torch, op)(a, n))
        for n in [2, 0.5]:
            for op in ["add", "sub"]:
                row(op, [a, b], lambda: getattr(torch, op)(a, b, alpha=n), alpha=num_json(n))
        row("pow", [2, a], lambda: torch.pow(2, a))
        # Numbers the dtype cannot hold exactly (torch's kernels may keep them wider).
        for n in [0.1, 1e-5, 70000.0, 300]:
            for op in ["add", "mul", "div", "sub", "maximum"]:
                if op == "maximum":
                    t = torch.tensor(n)
                    row(op, [a, t], lambda: torch.maximum(a, t))
                else:
                    row(op, [a, n], lambda: getattr(torch, op)(a, n))
        row("add", [a, b], lambda: torch.add(a, b, alpha=0.1), alpha=num_json(0.1))
        zero = torch.zeros(4, dtype=dt(d))
        row("remainder", [a, zero], lambda: torch.remainder(a, zero))
        row("div", [a, zero], lambda: torch.div(a, zero))
        # In place, and into an output of every dtype.
        for op in ["add", "mul", "div", "maximum"]:
            for o in DTYPES:
                x = a.to(dt(o))
                row(op, [x, b], lambda: getattr(x.clone(), op + "_")(b) if op != "maximum"
                    else torch.maximum(x, b, out=x.clone()), inplace=op != "maximum",
                    out_of=0 if op == "maximum" else None)
        for o in DTYPES:
            out = torch.empty(0, dtype=dt(o))
            row("add", [a, b], lambda: torch.add(a, b, out=out), out=o)
            row("eq", [a, b], lambda: torch.eq(a, b, out=out), out=o)
            row("neg", [a], lambda: torch.neg(a, out=out), out=o)
            row("sqrt", [a], lambda: torch.sqrt(a, out=out), out=o)
    # The unary ops added with issue 41 on every edge value of each dtype (huge values, ties,
    # signed zeros, NaN and the infinities).
    for d in DTYPES:
        e = edge_tensor(d)
        for op in ["exp2", "log1p", "frac", "round", "trunc", "bitwise_not"]:
            row(op, [e], lambda: getattr(torch, op)(e))
    for _ in range(150):
        d1, d2 = rng.choice(DTYPES), rng.choice(DTYPES)
        a, b = op_values(d1).reshape(2, 4), op_values(d2, second=True)
        if rng.random() < 0.3:
            b = b[0].clone()  # a 0-d tensor
        op = rng.choice(BINARY + COMPARE)
        row(op, [a, b], lambda: getattr(torch, op)(a, b))
    for _ in range(60):
        d1, d2 = rng.choice(DTYPES), rng.choice(DTYPES)
        c = torch.tensor([True, False, True, False])
        a, b = op_values(d1).reshape(2, 4), op_values(d2, second=True)
        row("where", [c, a, b], lambda: torch.where(c, a, b))
    for r in rows:
        if r.get("out_of") is None:
            r.pop("out_of", None)
    return {"torch": torch.__version__, "rows": rows}


def reduce_table():
    """Reductions over the thirteen dtypes: `sum` (with and without `dtype=`), `mean`, `amax`,
    `amin`, `var`, `std`, over every dim and over dim 1, on the ops table's values; long sums
    of the half types (float32 accumulation)."""
    rows = []

    def row(op, x, f, **kw):
        rows.append({"op": op, "args": [operand(x)], **kw, "outcome": outcome(f)})

    for d in DTYPES:
        x = op_values(d).reshape(2, 4)
        for dims in [[], [1]]:
            for op in ["sum", "mean", "amax", "amin", "var", "std"]:
                row(op, x, lambda: getattr(torch, op)(x, dim=dims or None), dims=dims)
            for o in ["int64", "float64", "complex64", "float16"]:
                row("sum", x, lambda: torch.sum(x, dim=dims or None, dtype=dt(o)), dims=dims,
                    dtype=o)
            row("mean", x, lambda: torch.mean(x, dim=dims or None, dtype=torch.float64),
                dims=dims, dtype="float64")
    for d in ["float16", "bfloat16"]:
        x = torch.ones(5000, dtype=dt(d))
        row("sum", x, lambda: torch.sum(x), dims=[])
        row("mean", x, lambda: torch.mean(x), dims=[])
    return {"torch": torch.__version__, "rows": rows}


def product_values(name, n, seed, low=-16):
    """`n` values of a dtype for the product tables, drawn from `seed`: the ops table's integers
    (so that products and sums wrap), quarter steps in [low / 4, 4] for the floating and complex
    dtypes (every sum of their products is exact in float32, whatever order a kernel sums in).
    """
    import random
    rng = random.Random(seed)
    if name == "bool":
        return torch.tensor([rng.random() < 0.6 for _ in range(n)], dtype=torch.bool)
    if name in OP_VALUES:
        pool = OP_VALUES[name] + ([2, 3, 4] if name == "uint8" else [2, 3, -2, 4])
        return torch.tensor([rng.choice(pool) for _ in range(n)], dtype=dt(name))
    q = lambda: rng.randint(low, 16) / 4  # noqa: E731
    if name.startswith("complex"):
        return torch.tensor([complex(q(), q()) for _ in range(n)], dtype=dt(name))
    return torch.tensor([q() for _ in range(n)], dtype=torch.float64).to(dt(name))


def product_operand(name, shape, seed, step=1, low=-16):
    """A contiguous tensor of `shape`, or with `step` > 1 one whose last dim is `step` times
    longer (the table stores it whole; the call takes `x[..., ::step]`)."""
    full = list(shape[:-1]) + [shape[-1] * step] if shape else []
    numel = math.prod(full)
    return product_values(name, numel, seed, low).reshape(full)


# (form, call, shapes of the operands, step of the first): every product path of torch's CPU
# kernels (dot, mv, mm, bmm below and from 400 multiply-adds, bmm on a strided batch, matmul
# batched and folded, einsum through bmm, through mul and with a sum first), and empty ones.
PRODUCT_FORMS = [
    ("dot", "dot", [(3,), (3,)], 1),
    ("mv", "mv", [(2, 3), (3,)], 1),
    ("mm", "mm", [(2, 3), (3, 2)], 1),
    ("bmm", "bmm", [(2, 2, 3), (2, 3, 2)], 1),
    ("bmm-400", "bmm", [(1, 8, 10), (1, 10, 5)], 1),
    ("bmm-400-stepped", "bmm", [(1, 8, 10), (1, 10, 5)], 2),
    ("matmul-batched", "matmul", [(2, 1, 2, 3), (3, 3, 2)], 1),
    ("matmul-folded", "matmul", [(2, 2, 3), (3, 2)], 1),
    ("matmul-vector-batch", "matmul", [(3,), (2, 3, 4)], 1),
    ("einsum-mm", "einsum:ij,jk->ik", [(2, 3), (3, 2)], 1),
    ("einsum-bmm", "einsum:bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], 1),
    ("einsum-mul", "einsum:ij,ij->ij", [(2, 3), (2, 3)], 1),
    ("einsum-sum-first", "einsum:ij,j->", [(2, 3), (3,)], 1),
    ("dot-empty", "dot", [(0,), (0,)], 1),
    ("mv-empty", "mv", [(2, 0), (0,)], 1),
    ("mm-empty", "mm", [(2, 0), (0, 3)], 1),
    ("bmm-empty", "bmm", [(2, 2, 0), (2, 0, 3)], 1),
]


def product_call(call, a, b, step):
    """The torch call of a product form on `a` and `b` (`a[..., ::step]` for a stepped one)."""
    if step > 1:
        a = a[..., ::step]
    if call.startswith("einsum:"):
        return lambda: torch.einsum(call.removeprefix("einsum:"), a, b)
    return lambda: getattr(torch, call)(a, b)


def matmul_table():
    """Products over the thirteen dtypes: each form of PRODUCT_FORMS on every pair of dtypes
    (torch's result dtype and values, or its error, which depends on the path and on which
    operand has which dtype; bmm from 400 multiply-adds on fewer pairs); long sums (k = 1000)
    of float16 and bfloat16, whose results tell a float32 accumulator rounded once from one
    rounded at every step, and of int8 (wrapping); a float16 sum whose partial sum overflows
    float16 but not float32. (Long sums of the wider dtypes would tell nothing: the values make
    every sum exact, in any order.)"""
    rows = []

    def row(form, call, a, b, step, **extra):
        rows.append({"form": form, "call": call, "step": step, "args": [operand(a), operand(b)],
                     **extra, "outcome": outcome(product_call(call, a, b, step))})

    for i, (form, call, shapes, step) in enumerate(PRODUCT_FORMS):
        for j, d1 in enumerate(DTYPES):
            for k, d2 in enumerate(DTYPES):
                # From 400 multiply-adds the path depends on the result dtype (the second's):
                # each dtype with itself and with float32 on either side covers every path.
                if form.startswith("bmm-400") and d1 != d2 and "float32" not in (d1, d2):
                    continue
                seed = 1000 * i + 12 * j + k
                a = product_operand(d1, shapes[0], 2 * seed, step)
                b = product_operand(d2, shapes[1], 2 * seed + 1)
                row(form, call, a, b, step)
    long_forms = [("dot", "dot", [(1000,), (1000,)]), ("mv", "mv", [(2, 1000), (1000,)]),
                  ("mm", "mm", [(2, 1000), (1000, 2)]),
                  ("bmm", "bmm", [(1, 2, 1000), (1, 1000, 2)]),
                  ("einsum-mm", "einsum:ij,jk->ik", [(2, 1000), (1000, 2)])]
    for i, (form, call, shapes) in enumerate(long_forms):
        for j, d in enumerate(DTYPES):
            if d not in ["int8", "float16", "bfloat16"]:
                continue
            seed = 50_000 + 100 * i + j
            # Non-negative, so that partial sums grow past where float16 and bfloat16 round.
            a = product_operand(d, shapes[0], 2 * seed, low=0)
            b = product_operand(d, shapes[1], 2 * seed + 1, low=0)
            row(form + "-long", call, a, b, 1)
    # (bfloat16 has float32's range: no partial sum can overflow one and not the other.)
    a = torch.tensor([60000.0, 60000.0, -60000.0], dtype=torch.float16)
    b = torch.ones(3, dtype=torch.float16)
    row("dot-partial-overflow", "dot", a, b, 1)
    row("mv-partial-overflow", "mv", a.reshape(1, 3), b, 1)
    row("mm-partial-overflow", "mm", a.reshape(1, 3), b.reshape(3, 1), 1)
    return {"torch": torch.__version__, "rows": rows}


def api_messages_table():
    """Errors the engine's Rust API can raise from arguments the fixture schema cannot write
    (a Python complex number as `alpha`), as torch raises them: conformance/tests/it/messages.rs
    counts these rows as the torch text of those messages, engine/tests/it/api_messages.rs checks
    the engine against them."""
    calls = [
        ("add", "float32", 1j),
        ("sub", "int64", 2j),
    ]
    rows = []
    for op, dtype, alpha in calls:
        a = torch.ones(2, dtype=dt(dtype))
        rows.append({"op": op, "dtype": dtype, "alpha": [alpha.real, alpha.imag],
                     **outcome(lambda: getattr(torch, op)(a, a, alpha=alpha))})
    return {"torch": torch.__version__.split("+")[0], "rows": rows}


SPECIAL_PARTS = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
COMPLEX_SPECIAL_UNARY = ["sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "reciprocal",
                         "exp2", "log1p"]
COMPLEX_SPECIAL_EXPONENTS = [2, 3, -1, -2, 0.5, 2.5, math.inf, -math.inf, math.nan,
                             complex(0, math.inf), 1j, complex(1, 1)]
COMPLEX_SPECIAL_BASES = [False, True, 0, 2, 0.5, math.inf, 1j]


def complex_special_table():
    """Complex special values (C99 Annex G): every op on the grid of values whose parts are
    each 0, -0, 1, -1, inf, -inf or NaN (49 values), both complex dtypes; binary ops on every
    pair of the grid, pow with special Python-number exponents and bases. torch's results do
    not depend on an element's position (its vectorised and scalar loops agree here)."""
    grid = [complex(a, b) for a in SPECIAL_PARTS for b in SPECIAL_PARTS]
    rows = []

    def row(op, args, f):
        rows.append({"op": op, "args": [operand(a) for a in args], "outcome": outcome(f)})

    for d in ["complex64", "complex128"]:
        a = torch.tensor(grid, dtype=dt(d))
        for op in COMPLEX_SPECIAL_UNARY:
            row(op, [a], lambda: getattr(torch, op)(a))
        x, y = a.repeat_interleave(len(grid)), a.repeat(len(grid))
        for op in ["mul", "div", "pow"]:
            row(op, [x, y], lambda: getattr(torch, op)(x, y))
        for n in COMPLEX_SPECIAL_EXPONENTS:
            row("pow", [a, n], lambda: torch.pow(a, n))
        for n in COMPLEX_SPECIAL_BASES:
            row("pow", [n, a], lambda: torch.pow(n, a))
    return {"torch": torch.__version__, "rows": rows}


REDUCED_POW_EXPONENTS = [2, 3, -2, 0.5, -0.5, -1, 7, -3, 2.001, 3.0004, -1.9995, 0.50001,
                         -0.49999, -1.0001, 2.5, -1.5, 1 / 3, 0.1, 1e-5, 1.0001, 100.0,
                         math.inf, -math.inf, math.nan]


def reduced_pow_table():
    """`pow` of float16 and bfloat16 tensors by a Python number and by a 0-d tensor: every
    finite value of the dtype whose low byte is 0, 0x35 or 0xff, -0.0, the infinities and NaN
    (768 values, most of them in the vectorised loop), by exponents that hit torch's fast
    paths for 2, 3, -2, 0.5, -0.5 and -1 and by ones the dtype rounds to them (2.001 is 2 in
    float16 and bfloat16)."""
    rows = []
    for d in ["float16", "bfloat16"]:
        bits = [b for b in range(0x10000) if (b & 0xff) in (0x00, 0x35, 0xff)]
        a = torch.tensor(bits, dtype=torch.int32).to(torch.int16).view(dt(d))
        for n in REDUCED_POW_EXPONENTS:
            rows.append({"op": "pow", "args": [operand(a), operand(n)],
                         "outcome": outcome(lambda: torch.pow(a, n))})
            t = torch.tensor(n, dtype=torch.float64)
            rows.append({"op": "pow", "args": [operand(a), operand(t)],
                         "outcome": outcome(lambda: torch.pow(a, t))})
    return {"torch": torch.__version__, "rows": rows}


TABLES = {"casts": cast_table, "result_type": result_type_table, "elementwise": elementwise_table,
          "reduce": reduce_table, "api_messages": api_messages_table, "matmul": matmul_table,
          "complex_special": complex_special_table, "reduced_pow": reduced_pow_table}


def main(names):
    import warnings
    warnings.simplefilter("ignore")
    os.makedirs(DATA, exist_ok=True)
    for name in names or TABLES:
        table = TABLES[name]()
        path = os.path.join(DATA, f"{name}.json")
        with open(path, "w") as f:
            json.dump(table, f, separators=(",", ":"))
            f.write("\n")
        print(f"{path}: {len(table['rows'])} rows")


if __name__ == "__main__":
    main(sys.argv[1:])
