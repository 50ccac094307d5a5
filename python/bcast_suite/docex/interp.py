"""Runs a document's code in torch, one call at a time, and records each torch call as a Call.

The code is parsed with `ast` and evaluated node by node: constructors (torch.randn, empty,
FloatTensor, tensor, ones, zeros, arange) make inputs; every other torch function, tensor
method, operator and index on a tensor is a call. Printed or commented outcomes become claims
on the call that produced the value they talk about (see runner.py)."""

import ast
import io
import re
import tokenize
import warnings

import torch

from ..kit import index_value

from .calls import Call, IndexArg
from .values import (CTORS, RANDOM_CTORS, Err, IntRes, PtrRef, SharesObs, ShapeObs,
                     StorageRef, StrideObs, TVal)

BINOPS = {ast.Add: "torch.add", ast.Sub: "torch.sub", ast.Mult: "torch.mul",
          ast.Div: "torch.div", ast.Pow: "torch.pow", ast.MatMult: "torch.matmul"}
CMPOPS = {ast.Gt: "torch.gt", ast.Lt: "torch.lt", ast.GtE: "torch.ge", ast.LtE: "torch.le",
          ast.Eq: "torch.eq", ast.NotEq: "torch.ne"}
PY_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
             ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
             ast.Pow: lambda a, b: a ** b}
PY_FUNCS = {"len": len, "max": max, "tuple": tuple}
BACKCOMPAT_FLAG = "torch.utils.backcompat.broadcast_warning.enabled"


class Skip(Exception):
    """A statement that makes no case: an undefined name, or something the schema cannot say."""


class TorchModule:
    """The name `torch` in the document's code."""


class TorchAttr:
    def __init__(self, path):
        self.path = path


class SizeRes:
    """A torch.Size a call returned (broadcast_shapes)."""

    def __init__(self, value, call):
        self.value, self.call = value, call


class Stmt:
    """What one statement did: its calls, the first call that raised, what it showed."""

    def __init__(self, kind, line):
        self.kind, self.line = kind, line
        self.calls, self.obs, self.raised = [], [], None
        self.labels = []  # (value, shape, quote): shapes printed as labels, "Matrix (3x4):"


def torch_value(v):
    if isinstance(v, TVal):
        return v.t
    if isinstance(v, ShapeObs):
        return v.of.t.shape
    if isinstance(v, SizeRes):
        return v.value
    if isinstance(v, IndexArg):
        return tuple(index_value(i) for i in v.items)
    if isinstance(v, (list, tuple)):
        return type(v)(torch_value(x) for x in v)
    return v


def is_tensorish(v):
    return isinstance(v, (TVal, Err))


class Interpreter:
    """Evaluates statements of one document block; `runner` collects calls and claims."""

    def __init__(self, runner):
        self.runner = runner
        self.env = {}
        self.stmt = None
        self.counter = 0

    # -- calls ---------------------------------------------------------------------------

    def op(self, fn, args, kwargs=None, hints=None, line=None, tags=()):
        """Makes one call: records it, runs it in torch, and returns its value (or Err)."""
        kwargs = kwargs or {}
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, Err):
                return a
        line = line if line is not None else self.stmt.line
        call = Call(fn, list(args), dict(kwargs), line, self.runner.example,
                    hints=list(hints or [None] * len(args)), tags=list(tags),
                    flags=tuple(sorted(self.runner.flags)))
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, TVal)]
        for a in list(args):
            if isinstance(a, (list, tuple)):
                tensors += [x for x in a if isinstance(x, TVal)]
        call.deterministic = all(t.storage.deterministic for t in tensors)
        self.runner.add_call(call)
        if self.stmt is not None:
            self.stmt.calls.append(call)
        pyargs = [torch_value(a) for a in args]
        pykwargs = {k: torch_value(v) for k, v in kwargs.items()}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = self.torch_call(fn, pyargs, pykwargs)
        except Exception:  # noqa: BLE001 - any torch error is an outcome
            call.raised = True
            if self.stmt is not None and self.stmt.raised is None:
                self.stmt.raised = call
            return Err(call)
        return self.wrap_result(result, call, tensors)

    @staticmethod
    def torch_call(fn, args, kwargs):
        if fn.startswith("torch."):
            return getattr(torch, fn[6:])(*args, **kwargs)
        if fn.startswith("Tensor."):
            return getattr(args[0], fn[7:])(*args[1:], **kwargs)
        if fn == "getitem":
            return args[0][args[1]]
        raise ValueError(fn)

    def wrap_result(self, result, call, inputs):
        self.counter += 1
        det = call.deterministic
        seed = (call.line, call.fn, self.counter)
        reg = self.runner.registry
        if isinstance(result, torch.Tensor):
            return reg.wrap(result, det, seed, inputs, call)
        if isinstance(result, torch.Size):
            return SizeRes(list(result), call)
        if isinstance(result, (tuple, list)) and all(isinstance(r, torch.Tensor) for r in result):
            return tuple(reg.wrap(r, det, seed + (i,), inputs, call) for i, r in enumerate(result))
        if isinstance(result, bool):
            return result
        if isinstance(result, int):
            return IntRes(result, call)
        raise Skip(f"{call.fn} returned a {type(result).__name__}")

    def construct(self, name, node, args, kwargs, hint):
        """A constructor: its shape and dtype come from torch; random or uninitialised data
        becomes a random fill, deterministic data is kept."""
        real = getattr(torch, name)(*[torch_value(a) for a in args],
                                    **{k: torch_value(v) for k, v in kwargs.items()})
        reg = self.runner.registry
        seed = (node.lineno + self.runner.line_offset, node.col_offset, name)
        if name in RANDOM_CTORS and real.numel() > 0:
            tv = reg.random_tensor(tuple(real.shape), real.dtype, seed, hint)
        else:
            tv = reg.wrap(real, True, seed)
        tv.hint = hint or name
        return tv

    # -- expressions ---------------------------------------------------------------------

    def ev(self, node, hint=None):
        t = type(node)
        if t is ast.Constant:
            return node.value
        if t is ast.Name:
            if node.id == "torch":
                return TorchModule()
            if node.id not in self.env:
                raise Skip(f"undefined name {node.id}")
            return self.env[node.id]
        if t in (ast.Tuple, ast.List):
            items = [self.ev(e) for e in node.elts]
            return tuple(items) if t is ast.Tuple else items
        if t is ast.UnaryOp and isinstance(node.op, ast.USub):
            v = self.ev(node.operand)
            if isinstance(v, (int, float)):
                return -v
            raise Skip("unary minus on a tensor")
        if t is ast.BinOp:
            return self.binop(node)
        if t is ast.Compare:
            return self.compare(node)
        if t is ast.Attribute:
            return self.attribute(node)
        if t is ast.Subscript:
            return self.subscript(node)
        if t is ast.Call:
            return self.call(node, hint)
        raise Skip(f"unsupported expression {ast.unparse(node)}")

    def operand(self, node):
        return self.ev(node), (node.id if isinstance(node, ast.Name) else None)

    def binop(self, node):
        (l, lh), (r, rh) = self.operand(node.left), self.operand(node.right)
        if is_tensorish(l) or is_tensorish(r):
            fn = BINOPS.get(type(node.op))
            if fn is None:
                raise Skip(f"operator {type(node.op).__name__}")
            if not is_tensorish(l):
                if fn not in ("torch.add", "torch.mul"):
                    raise Skip("a number on the left of a non-commutative tensor operator")
                (l, lh), (r, rh) = (r, rh), (l, lh)
            return self.op(fn, [l, r], hints=[lh, rh])
        op = PY_BINOPS.get(type(node.op))
        if op is None:
            raise Skip(f"operator {type(node.op).__name__}")
        return op(l, r)

    def compare(self, node):
        if len(node.ops) != 1:
            raise Skip("chained comparison")
        (l, lh), (r, rh) = self.operand(node.left), self.operand(node.comparators[0])
        if isinstance(l, PtrRef) and isinstance(r, PtrRef) and isinstance(node.ops[0], ast.Eq):
            return SharesObs(l.of, r.of)
        if is_tensorish(l) or is_tensorish(r):
            if not is_tensorish(l):
                raise Skip("a number on the left of a tensor comparison")
            return self.op(CMPOPS[type(node.ops[0])], [l, r], hints=[lh, rh])
        raise Skip("comparison of Python values")

    def attribute(self, node):
        base = self.ev(node.value)
        if isinstance(base, TorchModule):
            return TorchAttr("torch." + node.attr)
        if isinstance(base, TorchAttr):
            return TorchAttr(base.path + "." + node.attr)
        if isinstance(base, TVal) and node.attr == "shape":
            return ShapeObs(base)
        if isinstance(base, Err):
            return base
        raise Skip(f"attribute {ast.unparse(node)}")

    def subscript(self, node):
        base, hint = self.operand(node.value)
        if not is_tensorish(base):
            raise Skip(f"subscript of a non-tensor {ast.unparse(node)}")
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        items = []
        for e in elts:
            if isinstance(e, ast.Constant) and e.value is None:
                items.append({"none": None})
            elif isinstance(e, ast.Constant) and e.value is Ellipsis:
                items.append({"ellipsis": None})
            elif isinstance(e, ast.Slice):
                parts = [None if p is None else self.ev(p) for p in (e.lower, e.upper, e.step)]
                items.append({"slice": parts})
            else:
                v = self.ev(e)
                if not isinstance(v, int):
                    raise Skip("advanced indexing")
                items.append({"int": v})
        index = IndexArg(items)
        return self.op("getitem", [base, index], hints=[hint, None])

    def call_args(self, node):
        args, hints = [], []
        for a in node.args:
            v, h = self.operand(a)
            args.append(v)
            hints.append(h)
        kwargs = {k.arg: self.ev(k.value) for k in node.keywords}
        return args, hints, kwargs

    def call(self, node, hint=None):
        func = node.func
        if isinstance(func, ast.Name):
            return self.named_call(func.id, node)
        if not isinstance(func, ast.Attribute):
            raise Skip(f"call of {ast.unparse(func)}")
        base = self.ev(func.value)
        name = func.attr
        if isinstance(base, TorchModule):
            args, hints, kwargs = self.call_args(node)
            if name in CTORS:
                return self.construct(name, node, args, kwargs, hint)
            if name == "Size":
                return list(args[0])
            return self.op("torch." + name, args, kwargs, hints)
        if isinstance(base, StorageRef):
            if name == "data_ptr":
                return PtrRef(base.of)
            raise Skip(f"storage().{name}() is not a call the schema can express")
        if isinstance(base, Err):
            return base
        if not isinstance(base, TVal):
            raise Skip(f"method {name} of a non-tensor")
        args, hints, kwargs = self.call_args(node)
        recv = func.value.id if isinstance(func.value, ast.Name) else None
        if name == "size" and not args and not kwargs:
            return ShapeObs(base)
        if name == "stride" and not args and not kwargs:
            return StrideObs(base)
        if name == "storage":
            return StorageRef(base)
        result = self.op("Tensor." + name, [base] + args, kwargs, [recv] + hints)
        if isinstance(result, TVal) and not result.hint and recv:
            result.hint = f"{recv}_{name}"
        return result

    def named_call(self, name, node):
        if name in self.runner.helpers:
            args = [self.ev(a) for a in node.args]
            return self.runner.helper_call(self, name, args, node)
        if name in PY_FUNCS:
            return PY_FUNCS[name](*[self.ev(a) for a in node.args])
        raise Skip(f"call of {name}")

    # -- statements ----------------------------------------------------------------------

    def printed(self, node, stmt):
        """The values a print shows, and shapes given as labels (`"Matrix (3x4):\\n{mat}"`)."""
        for arg in node.args:
            if isinstance(arg, ast.JoinedStr):
                label = ""
                for part in arg.values:
                    if isinstance(part, ast.Constant):
                        label = str(part.value)
                        continue
                    try:
                        v = self.ev(part.value)
                    except Skip as e:
                        self.runner.skip(stmt.line, str(e))
                        continue
                    stmt.obs.append(v)
                    m = re.search(r"\((\d+(?:x\d+)+)\):\s*$", label)
                    if m and isinstance(v, TVal):
                        stmt.labels.append((v, [int(p) for p in m.group(1).split("x")], label))
                    label = ""
            elif not (isinstance(arg, ast.Constant)):
                stmt.obs.append(self.ev(arg))

    def exec_stmt(self, node, trailing):
        line = node.lineno + self.runner.line_offset
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return None
        if isinstance(node, ast.Try):
            return self.exec_try(node, trailing)
        if isinstance(node, ast.FunctionDef):
            self.runner.define(self, node)
            return None
        kind = "assign" if isinstance(node, ast.Assign) else "expr"
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "print":
            kind = "print"
        stmt = Stmt(kind, line)
        self.stmt = stmt
        try:
            if isinstance(node, ast.Assign):
                self.assign(node, stmt)
            elif kind == "print":
                self.printed(node.value, stmt)
            elif isinstance(node, ast.Expr):
                stmt.obs.append(self.ev(node.value))
            else:
                raise Skip(f"statement {type(node).__name__}")
        except Skip as e:
            self.runner.skip(line, f"{ast.unparse(node)[:60]}: {e}")
            return None
        finally:
            self.stmt = None
        self.runner.after_stmt(stmt, trailing.get(line))
        return stmt

    def assign(self, node, stmt):
        if len(node.targets) != 1:
            raise Skip("chained assignment")
        target = node.targets[0]
        if isinstance(target, ast.Attribute):
            path = ast.unparse(target)
            if path == BACKCOMPAT_FLAG and isinstance(node.value, ast.Constant):
                if node.value.value:
                    self.runner.flags.add("backcompat_broadcast_warning")
                else:
                    self.runner.flags.discard("backcompat_broadcast_warning")
                return
            raise Skip(f"assignment to {path}")
        hint = target.id if isinstance(target, ast.Name) else None
        value = self.ev(node.value, hint)
        stmt.obs.append(value)
        self.bind(target, value)

    def bind(self, target, value):
        if isinstance(target, ast.Name):
            if isinstance(value, TVal) and not value.hint:
                value.hint = target.id
            self.env[target.id] = value
            if isinstance(value, (TVal, Err)):
                self.runner.group_tensors.append(target.id)
        elif isinstance(target, ast.Tuple):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise Skip("unpacking mismatch")
            for t, v in zip(target.elts, value):
                self.bind(t, v)
        else:
            raise Skip(f"assignment to {ast.unparse(target)}")

    def exec_try(self, node, trailing):
        body = [self.exec_stmt(s, trailing) for s in node.body]
        body = [s for s in body if s is not None and s.calls]
        for h in node.handlers:
            if h.type is None or not body:
                continue
            names = [e.id for e in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])
                     if isinstance(e, ast.Name)]
            first = body[0]
            target = first.raised or first.calls[-1]
            hline = h.lineno + self.runner.line_offset
            for name in names:
                target.claim(self.runner.source_line(hline), hline,
                             {"outcome": "error", "error_type": name})
        return None


def trailing_comments(text, first_line):
    """Comments that follow code on the same line: {line number: comment}."""
    out = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    code_lines = set()
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            if tok.start[0] in code_lines:
                out[tok.start[0] + first_line - 1] = tok.string
        elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                              tokenize.ENDMARKER):
            code_lines.add(tok.start[0])
    return out
