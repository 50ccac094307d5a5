"""Writes unlabelled cases (JSON lines) that exercise every op and call form the tch backend
interprets: element-wise binary ops with tensors and Python numbers in each position, in place
and with out=, unary ops, where, copy_, reductions and their overloads, products, einsum,
views and getitem, each on broadcasting, strided and aliased inputs, with the errors torch
raises. Label them with bcast_suite.label; conformance/tests/it/tch.rs runs them through tch.

    python3 scripts/tch_op_cases.py > /tmp/ops.jsonl
    python3 scripts/label.py /tmp/ops.jsonl conformance/tests/data/tch_ops.json \\
        --generator "scripts/tch_op_cases.py"
"""

import json
import random

from .builder import CaseBuilder, extent
from .casefmt import V1_DTYPES as DTYPES  # the libtorch backend's dtypes


def layout_strides(shape, layout, rng):
    """Strides of a view of `shape`: contiguous, transposed (the last two dims swapped in
    memory), stepped (every other element) or expanded (each dim over 1 gets stride 0 with
    probability 1/2, drawn from rng)."""
    ndim = len(shape)
    strides, n = [0] * ndim, 1
    order = list(range(ndim))
    if layout == "transposed" and ndim >= 2:
        order[-1], order[-2] = order[-2], order[-1]
    step = 2 if layout == "stepped" else 1
    for d in reversed(order):
        strides[d] = n * step
        n *= max(shape[d], 1) * step
    if layout == "expanded":
        strides = [0 if s > 1 and rng.random() < 0.5 else st for s, st in zip(shape, strides)]
    return strides


class Case(CaseBuilder):
    """A case of this generator: views of a chosen layout, each over a fresh random storage
    unless one is given; float inputs give the case a tolerance."""

    def __init__(self, rng, case_id):
        super().__init__(case_id)
        self.rng = rng

    def tensor(self, shape, dtype, layout="contiguous", storage=None, offset=0):
        """A view of `shape` (see layout_strides); returns its argument."""
        strides = layout_strides(shape, layout, self.rng)
        if storage is None:
            storage = self.random_storage(dtype, self.rng.randrange(1 << 20), offset + extent(shape, strides) + 1)
        return self.view(storage, shape, strides, offset)

    def call(self, fn, *args, **kwargs):
        case = super().call(fn, *args, **kwargs)
        if any(s["dtype"].startswith("float") for s in case["storages"].values()):
            case["tolerance"] = {"rtol": 1.3e-6, "atol": 1e-5}
        return case


BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
          "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "copysign", "eq", "ne", "lt",
          "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor", "subtract", "multiply", "divide", "greater", "less_equal"]
UNARY = ["abs", "neg", "exp", "log", "sqrt", "sin", "tanh", "sigmoid", "floor", "round", "sign",
         "reciprocal", "logical_not", "bitwise_not", "exp2", "log1p", "frac", "trunc"]
# Binary ops without an in-place method in torch 2.13.0 (`Tensor.maximum_` raises AttributeError).
NO_IN_PLACE = {"maximum", "minimum", "fmax", "fmin"}
SHAPE_PAIRS = [((2, 3), (3,)), ((4, 1), (1, 5)), ((3,), (2, 3)), ((2, 1, 3), (4, 1)), ((), (2, 2)),
               ((0, 3), (3,)), ((2, 3), (2,)), ((5, 2, 4, 1), (3, 1, 1)), ((1, 3, 1), (3, 1, 7))]
NUMBERS = [{"int": 2}, {"float": 0.5}, {"bool": True}, {"int": -3}, {"float": "nan"}]
LAYOUTS = ["contiguous", "transposed", "expanded", "stepped"]


def binary_cases(rng):
    out = []
    for op in BINARY:
        for k in range(10):
            c = Case(rng, f"tch-ops/{op}/{k}")
            sa, sb = rng.choice(SHAPE_PAIRS)
            da, db = rng.choice(DTYPES), rng.choice(DTYPES)
            form = k % 5
            x = c.tensor(sa, da, rng.choice(LAYOUTS))
            if form == 0:
                out.append(c.call(f"torch.{op}", x, c.tensor(sb, db, rng.choice(LAYOUTS))))
            elif form == 1:
                out.append(c.call(f"torch.{op}", x, rng.choice(NUMBERS)))
            elif form == 2:
                out.append(c.call(f"torch.{op}", rng.choice(NUMBERS), x))
            elif form == 3:
                other = c.tensor(sb, db) if rng.random() < 0.6 else rng.choice(NUMBERS)
                # The method form where torch (Python and libtorch) has no in-place one.
                method = f"Tensor.{op}" if op in NO_IN_PLACE else f"Tensor.{op}_"
                out.append(c.call(method, x, other))
            else:
                y = c.tensor(sb, db, rng.choice(LAYOUTS))
                o = c.tensor(rng.choice([sa, sb, (2, 3), ()]), rng.choice(DTYPES))
                out.append(c.call(f"torch.{op}", x, y, out=o))
    return out


def aliasing_cases(rng):
    """In-place and out= calls whose operands share memory."""
    out = []
    for k, op in enumerate(["add", "mul", "sub", "maximum", "div"]):
        c = Case(rng, f"tch-ops/alias/{op}/{k}")
        stor = c.tensor_spec(c.tensor((4,), "float32"))["storage"]
        a = c.tensor((3,), "float32", storage=stor, offset=1)
        b = c.tensor((3,), "float32", storage=stor, offset=0)
        if op in ("maximum",):
            out.append(c.call(f"torch.{op}", a, b, out=b))
        else:
            out.append(c.call(f"Tensor.{op}_", a, b))
        c = Case(rng, f"tch-ops/alias-expanded/{op}/{k}")
        x = c.tensor((4, 3), "float32", "contiguous")
        e = c.tensor((4, 3), "float32", "contiguous")
        c.tensor_spec(e)["strides"] = [0, 1]
        out.append(c.call(f"Tensor.{op}_" if op != "maximum" else "torch.maximum", e, x,
                          **({"out": e} if op == "maximum" else {})))
    c = Case(rng, "tch-ops/alias/same-name")
    x = c.tensor((2, 3), "int64")
    out.append(c.call("Tensor.add_", x, x))
    c = Case(rng, "tch-ops/div-rounding/floor")
    out.append(c.call("torch.div", c.tensor((2, 3), "int64"), c.tensor((3,), "int64"), rounding_mode={"str": "floor"}))
    c = Case(rng, "tch-ops/div-rounding/trunc-scalar")
    out.append(c.call("torch.div", c.tensor((2, 3), "float32"), {"int": -2}, rounding_mode={"str": "trunc"}))
    c = Case(rng, "tch-ops/div-rounding/inplace")
    out.append(c.call("Tensor.div_", c.tensor((2, 3), "int64"), {"int": 2}, rounding_mode={"str": "floor"}))
    c = Case(rng, "tch-ops/add-alpha")
    out.append(c.call("torch.add", c.tensor((2, 3), "float32"), c.tensor((3,), "float32"), alpha={"int": 2}))
    return out


def unary_cases(rng):
    out = []
    for op in UNARY:
        for k in range(4):
            c = Case(rng, f"tch-ops/{op}/{k}")
            shape = rng.choice([(2, 3), (), (0, 2), (3, 1, 2)])
            x = c.tensor(shape, rng.choice(DTYPES), rng.choice(LAYOUTS))
            if k == 0:
                out.append(c.call(f"torch.{op}", x))
            elif k == 1:
                out.append(c.call(f"Tensor.{op}", x))
            elif k == 2:
                out.append(c.call(f"Tensor.{op}_", x))
            else:
                o = c.tensor(rng.choice([shape, (2, 3), (1,)]), rng.choice(DTYPES))
                out.append(c.call(f"torch.{op}", x, out=o))
    return out


def where_cases(rng):
    out = []
    for k in range(16):
        c = Case(rng, f"tch-ops/where/{k}")
        sa, sb = rng.choice(SHAPE_PAIRS)
        cond = c.tensor(rng.choice([sa, sb, (1,)]), "bool", rng.choice(LAYOUTS))
        x = c.tensor(sa, rng.choice(DTYPES)) if k % 4 != 1 else rng.choice(NUMBERS)
        y = c.tensor(sb, rng.choice(DTYPES)) if k % 4 != 2 else rng.choice(NUMBERS)
        if k % 4 == 3:
            out.append(c.call("torch.where", cond, x, y, out=c.tensor(rng.choice([sa, sb]), rng.choice(DTYPES))))
        elif k % 8 == 0:
            out.append(c.call("Tensor.where", x, cond, y))
        else:
            out.append(c.call("torch.where", cond, x, y))
    c = Case(rng, "tch-ops/where/one-arg")
    out.append(c.call("torch.where", c.tensor((2, 3), "bool")))
    c = Case(rng, "tch-ops/where/two-numbers")
    out.append(c.call("torch.where", c.tensor((2, 3), "bool"), {"float": 1.5}, {"int": 2}))
    return out


def copy_cases(rng):
    out = []
    for k in range(8):
        c = Case(rng, f"tch-ops/copy_/{k}")
        sa, sb = rng.choice(SHAPE_PAIRS)
        out.append(c.call("Tensor.copy_", c.tensor(sa, rng.choice(DTYPES), rng.choice(LAYOUTS)),
                          c.tensor(sb, rng.choice(DTYPES), rng.choice(LAYOUTS))))
    return out


def reduction_cases(rng):
    out = []
    for op in ["sum", "mean", "amax", "amin", "var", "std"]:
        for k in range(14):
            c = Case(rng, f"tch-ops/{op}/{k}")
            shape = rng.choice([(2, 3, 4), (3,), (), (0, 2), (2, 1, 3)])
            dtype = rng.choice(DTYPES) if k % 3 else "float32"
            x = c.tensor(shape, dtype, rng.choice(LAYOUTS))
            dim = rng.choice([{"int": 0}, {"int": -1}, {"ints": [0, 1]}, {"tuple": [1]}, {"int": 3}, {"none": None}, {"ints": []}])
            keep = {"bool": rng.random() < 0.5}
            form = k % 7
            if form == 0:
                out.append(c.call(f"torch.{op}", x))
            elif form == 1:
                out.append(c.call(f"Tensor.{op}", x, dim))
            elif form == 2:
                out.append(c.call(f"torch.{op}", x, dim, keep))
            elif form == 3:
                out.append(c.call(f"torch.{op}", x, dim=dim, keepdim=keep))
            elif form == 4:
                o = c.tensor(rng.choice([(), (3,), (2, 4)]), rng.choice(DTYPES))
                out.append(c.call(f"torch.{op}", x, dim, out=o))
            elif form == 5 and op in ("sum", "mean"):
                out.append(c.call(f"torch.{op}", x, dim, dtype={"dtype": rng.choice(["float64", "int64", "float32"])}))
            elif form == 5 and op in ("var", "std"):
                out.append(c.call(f"torch.{op}", x, dim, {"bool": False}, keep))
            elif form == 6 and op in ("var", "std"):
                out.append(c.call(f"torch.{op}", x, dim, correction=rng.choice([{"int": 0}, {"int": 2}, {"float": 0.5}])))
            elif op in ("var", "std"):
                out.append(c.call(f"Tensor.{op}", x, {"bool": True}))
            else:
                out.append(c.call(f"Tensor.{op}", x, dim=dim))
    return out


def product_cases(rng):
    out = []
    shapes = {
        "matmul": [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((5, 2, 3), (3, 4)),
                   ((2, 1, 2, 3), (4, 3, 2)), ((2, 3), (4, 2)), ((), (3,)), ((0, 3), (3, 2)), ((2, 0), (0, 3))],
        "mm": [((2, 3), (3, 4)), ((2, 3), (2, 3))],
        "bmm": [((2, 2, 3), (2, 3, 1)), ((2, 2, 3), (1, 3, 1))],
        "mv": [((2, 3), (3,)), ((2, 3), (2,))],
        "dot": [((3,), (3,)), ((3,), (4,))],
    }
    for op, pairs in shapes.items():
        for k, (sa, sb) in enumerate(pairs):
            c = Case(rng, f"tch-ops/{op}/{k}")
            dtype = rng.choice(["float32", "float64", "float32", "int64"])
            x = c.tensor(sa, dtype, rng.choice(LAYOUTS))
            y = c.tensor(sb, rng.choice([dtype, dtype, "float64"]), rng.choice(LAYOUTS))
            if k % 3 == 2:
                out.append(c.call(f"torch.{op}", x, y, out=c.tensor(rng.choice([(2, 4), (3,), ()]), dtype)))
            elif k % 3 == 1:
                out.append(c.call(f"Tensor.{op}", x, y))
            else:
                out.append(c.call(f"torch.{op}", x, y))
    eqs = [("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]), ("bij,bjk->bik", [(2, 2, 3), (1, 3, 2)]),
           ("ii->i", [(3, 3)]), ("...ij->...ji", [(2, 3, 4)]), ("ij,jk->ik", [(2, 3), (4, 4)]),
           ("i,j->ij", [(3,), (2,)]), ("ij->", [(0, 3)]), ("ab,b->a", [(2, 3), (1,)])]
    for k, (eq, shapes_) in enumerate(eqs):
        c = Case(rng, f"tch-ops/einsum/{k}")
        ops = [c.tensor(s, "float32", rng.choice(LAYOUTS)) for s in shapes_]
        if k % 2:
            out.append(c.call("torch.einsum", {"str": eq}, {"tensors": [o["tensor"] for o in ops]}))
        else:
            out.append(c.call("torch.einsum", {"str": eq}, *ops))
    return out


def view_cases(rng):
    out = []
    specs = [
        ("Tensor.expand", (3, 1), [{"ints": [2, 3, 4]}]), ("Tensor.expand", (3,), [{"int": -1}, {"int": 3}]),
        ("Tensor.expand", (3,), [{"ints": [4, 2]}]), ("Tensor.expand_as", (3, 1), None),
        ("torch.broadcast_to", (1, 3), [{"tuple": [2, 3]}]), ("torch.broadcast_to", (2, 3), [{"tuple": [3]}]),
        ("torch.unsqueeze", (2, 3), [{"int": -1}]), ("Tensor.unsqueeze", (2, 3), [{"int": 4}]),
        ("torch.squeeze", (1, 3, 1), []), ("Tensor.squeeze", (1, 3, 1), [{"int": 2}]),
        ("Tensor.squeeze", (1, 3, 1), [{"tuple": [0, 2]}]), ("Tensor.squeeze", (1, 3, 1), [{"int": 5}]),
        ("torch.permute", (2, 3, 4), [{"ints": [2, 0, 1]}]), ("Tensor.permute", (2, 3, 4), [{"int": 1}, {"int": 0}, {"int": 2}]),
        ("Tensor.permute", (2, 3), [{"ints": [0, 0]}]), ("torch.transpose", (2, 3, 4), [{"int": 0}, {"int": -1}]),
        ("torch.t", (2, 3), []), ("Tensor.t", (2, 3, 4), []), ("torch.narrow", (4, 3), [{"int": 0}, {"int": 1}, {"int": 2}]),
        ("Tensor.narrow", (4, 3), [{"int": 1}, {"int": 2}, {"int": 5}]), ("torch.select", (4, 3), [{"int": 1}, {"int": -1}]),
        ("Tensor.select", (4, 3), [{"int": 0}, {"int": 9}]), ("torch.as_strided", (4, 3), [{"ints": [2, 2]}, {"ints": [1, 2]}, {"int": 1}]),
        ("Tensor.as_strided", (4, 3), [{"ints": [2, 2]}, {"ints": [3, 1]}]), ("Tensor.view", (4, 3), [{"int": 3}, {"int": -1}]),
        ("Tensor.view", (4, 3), [{"ints": [5, 2]}]), ("torch.reshape", (4, 3), [{"ints": [2, 6]}]),
        ("Tensor.reshape", (4, 3), [{"int": -1}]), ("Tensor.contiguous", (4, 3), []), ("torch.clone", (4, 3), []),
        ("Tensor.clone", (2, 3), []), ("Tensor.repeat", (2, 3), [{"int": 2}, {"int": 1}, {"int": 2}]),
        ("torch.numel", (2, 3), []), ("Tensor.dim", (2, 3), []), ("Tensor.size", (2, 3), []),
        ("torch.broadcast_shapes", None, [{"tuple": [2, 1]}, {"tuple": [3]}]),
    ]
    for k, (fn, shape, extra) in enumerate(specs):
        for layout in ["contiguous", "transposed", "expanded"]:
            c = Case(rng, f"tch-ops/view/{k}/{layout}")
            if shape is None:
                out.append(c.call(fn, *extra))
                break
            x = c.tensor(shape, rng.choice(DTYPES), layout)
            if extra is None:
                out.append(c.call(fn, x, c.tensor((2, 3, 4), "float32")))
            else:
                out.append(c.call(fn, x, *extra))
    for k in range(6):
        c = Case(rng, f"tch-ops/broadcast_tensors/{k}")
        sa, sb = rng.choice(SHAPE_PAIRS)
        out.append(c.call("torch.broadcast_tensors", c.tensor(sa, "float32"), c.tensor(sb, "int64", "expanded")))
    return out


def getitem_cases(rng):
    out = []
    indexes = [
        [{"int": 1}], [{"int": -1}, {"slice": [None, None, 2]}], [{"slice": [1, None, None]}],
        [{"none": None}, {"ellipsis": None}, {"int": 0}], [{"ellipsis": None}, {"none": None}],
        [{"int": 5}], [{"none": None}, {"int": 7}], [{"int": 0}, {"int": 0}, {"int": 0}, {"int": 0}],
        [{"slice": [None, None, 0]}], [{"slice": [None, None, -1]}], [{"slice": [5, 1, None]}],
        [{"slice": [-100, 100, 3]}], [], [{"ellipsis": None}, {"ellipsis": None}],
        [{"int": 1}, {"ellipsis": None}, {"none": None}, {"int": 1}], [{"slice": [0, None, None]}],
    ]
    for k, idx in enumerate(indexes):
        for shape in [(3, 4), (2, 3, 4), ()]:
            c = Case(rng, f"tch-ops/getitem/{k}/{len(shape)}")
            x = c.tensor(shape, rng.choice(DTYPES), rng.choice(LAYOUTS))
            out.append(c.call("getitem", x, {"index": idx}))
    return out


def cases():
    """Every case, in order (seeded: the same on every run)."""
    rng = random.Random(20251)
    return (binary_cases(rng) + aliasing_cases(rng) + unary_cases(rng) + where_cases(rng)
             + copy_cases(rng) + reduction_cases(rng) + product_cases(rng) + view_cases(rng)
             + getitem_cases(rng))


def main():
    for c in cases():
        print(json.dumps(c))


if __name__ == "__main__":
    main()
