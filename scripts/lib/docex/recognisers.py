"""Walks a document's blocks: runs code through the interpreter, and reads every claim the
document makes (trailing comments, printed output, prose after a block, tables, shape
arithmetic in comments, commented-out code, helper functions) onto the call it is about."""

import ast
import re
import textwrap

from . import claimtext as ct
from .calls import Call
from .interp import Interpreter, Skip, SizeRes, Stmt, trailing_comments
from .values import (Err, HelperRes, IntRes, Registry, SharesObs, ShapeObs, StrideObs, TVal,
                     zero_dim_like)

# Sizes a document only names (tables, docstrings), bound to the values the same document
# uses in its worked examples: batch_size, features = 32, 256 (bias example) and
# images = torch.randn(8, 3, 64, 64) for (batch, channels, H, W) (channel-wise example).
SYMBOLS = {"002": {"batch": 32, "features": 256, "B": 8, "C": 3, "H": 64, "W": 64}}

# Operations a document talks about without writing them: (document, line of the comment that
# talks about it) -> the code it means. Pitfall 2 of 002 says the mean without keepdim "will
# broadcast incorrectly" against the images; the fix two lines below writes the same
# subtraction with the keepdim mean.
IMPLIED = {("002", 543): "images - wrong_mean"}

BROADCASTABLE = re.compile(
    r"(?:(\w+) and (\w+)|same shapes) are (?:always )?(not )?broadcastable")
NO_DIM = re.compile(r"because (\w+) (?:does not have at least 1 dimension|has rank 0)")
NAMED_SHAPE = re.compile(r"^#\s*(\w+)\.?\s*shape\s*=\s*\[([\d,\s]*)\]")
EXAMPLE_SUM = re.compile(r"^#\s*Example:\s*(.*)$")
RESULT_SHAPE = re.compile(r"^#\s*Result shape:\s*(.*)$")
PSEUDO_PAIR = re.compile(r"^\s*(\([^)]*\))\s+and\s+(\([^)]*\))\s*→\s*(.*)$")
VIS_LINE = re.compile(r"^\s*(Shape A|Shape B|Result):\s*(\([^)]*\))")
LABEL = re.compile(r"^([A-Z][\w ]*):\s+(.*)$")
CONTINUES = re.compile(r"^(except|else|elif|finally)\b")
SAYS_BROADCASTS = re.compile(
    r"^(?!.*\b(?:not|fail|don't|doesn't|won't)\b.*\b(?:broadcasts|will broadcast)\b)"
    r".*\b(?:broadcasts|will broadcast)\b")


class DocRunner:
    """Runs one document and collects its calls, with claims, and what it skipped."""

    def __init__(self, name, text):
        self.name = name
        self.key = name[:3]
        self.lines = {}
        self.registry = Registry(name)
        self.calls = []
        self.skipped = []
        self.flags = set()
        self.helpers = {}
        self.example = 0
        self.line_offset = 0
        self.group_tensors = []
        self.symbols = SYMBOLS.get(self.key, {})
        self.fmt = None

    def source_line(self, line):
        return self.lines.get(line, "").strip()

    def add_call(self, call):
        call.tags.insert(0, self.fmt)
        self.calls.append(call)

    def skip(self, line, why):
        self.skipped.append((line, why))

    # -- blocks --------------------------------------------------------------------------

    def run(self, blocks, fmt):
        self.fmt = fmt
        for block in blocks:
            if block.kind == "table":
                self.table(block)
            elif block.lang == "plain":
                self.plain_block(block)
            else:
                self.code_block(block)
        self.helper_failures()

    def units(self, block):
        """Chunks of code lines (a statement with its indented body), and single other lines."""
        out, lines, i = [], block.lines, 0
        while i < len(lines):
            ln = lines[i]
            if ln.kind == "code" and not ln.text[:1].isspace():
                chunk = [ln]
                j = i + 1
                while j < len(lines):
                    nxt = lines[j]
                    if nxt.kind == "code" and (nxt.text[:1].isspace() or CONTINUES.match(nxt.text)):
                        chunk.append(nxt)
                        j += 1
                    elif nxt.kind == "blank":
                        k = j
                        while k < len(lines) and lines[k].kind == "blank":
                            k += 1
                        if k < len(lines) and lines[k].kind == "code" and lines[k].text[:1].isspace():
                            chunk.extend(lines[j:k])
                            j = k
                        else:
                            break
                    else:
                        break
                out.append(("chunk", chunk))
                i = j
            else:
                out.append((ln.kind, ln))
                i += 1
        return out

    def code_block(self, block):
        interp = Interpreter(self)
        self.flags = set()
        self.group_tensors = []
        self.example = 0
        last_expr = None      # the last expression statement, for comments right below it
        last_any = None       # the last statement of the block, for output and prose
        comments = []         # the current run of comment lines
        walkthrough = None
        output = []
        for kind, item in self.units(block):
            if kind != "output" and output:
                self.output_claim(output, last_any)
                output = []
            if kind == "blank":
                self.group_tensors = []
                self.example = 0
                last_expr = None
                comments = []
                continue
            if self.example == 0:
                self.example = item[0].line if kind == "chunk" else item.line
            if kind == "chunk":
                comments = []
                stmt = self.chunk(interp, item)
                if stmt is not None:
                    last_any = stmt
                    last_expr = stmt if stmt.kind in ("expr", "print") else None
            elif kind == "comment":
                text = item.text
                if last_expr is not None and self.following_claim(text, item.line, last_expr):
                    comments.append(text)
                    continue
                walkthrough = self.comment(interp, item, comments, walkthrough)
                comments.append(text)
            elif kind == "output":
                output.append(item)
            elif kind == "prose":
                if last_any is not None and "torch.Size" in item.text:
                    self.claim_on_stmt(item.text, item.line, item.text, last_any)
        if output:
            self.output_claim(output, last_any)

    def chunk(self, interp, lines):
        first = lines[0].line
        text = "\n".join(ln.text for ln in lines)
        for ln in lines:
            self.lines[ln.line] = ln.text
        try:
            tree = ast.parse(textwrap.dedent(text))
        except SyntaxError:
            if len(lines) == 1 and self.pseudo_line(lines[0]):
                return None
            self.skip(first, f"not Python: {text.strip()[:60]}")
            return None
        self.line_offset = first - 1
        trailing = trailing_comments(textwrap.dedent(text), first)
        last = None
        for node in tree.body:
            stmt = interp.exec_stmt(node, trailing)
            if stmt is not None:
                last = stmt
        return last

    # -- claims --------------------------------------------------------------------------

    def after_stmt(self, stmt, comment):
        """Claims of a statement's trailing comment, and labels it printed."""
        for value, shape, label in stmt.labels:
            self.shape_claim(value, shape, self.source_line(stmt.line), stmt.line)
        if comment:
            self.claim_on_stmt(comment, stmt.line, self.source_line(stmt.line), stmt, trailing=True)

    def target_of(self, value):
        if isinstance(value, (TVal, Err)):
            return value.producer if isinstance(value, TVal) else value.call
        if isinstance(value, tuple) and value and isinstance(value[0], TVal):
            return value[0].producer
        return None

    def shape_claim(self, value, shape, quote, line):
        """A claim about a tensor's shape: on the call that made it, or on `Tensor.size`."""
        if isinstance(value, ShapeObs):
            value = value.of
        if isinstance(value, (SizeRes, HelperRes)):
            value.call.claim(quote, line, {"outcome": "ok", "shape": shape})
            return
        call = self.target_of(value)
        if call is None and isinstance(value, TVal):
            interp = Interpreter(self)
            interp.stmt = Stmt("expr", line)
            interp.op("Tensor.size", [value], hints=[value.hint or None], line=line,
                      tags=["claim-on-input"])
            call = self.calls[-1]
        if call is not None:
            call.claim(quote, line, {"outcome": "ok", "shape": shape})

    def claim_on_stmt(self, text, line, quote, stmt, trailing=False):
        """Reads `text` as a claim about what `stmt` showed or computed. True when it was one."""
        if ct.is_error_text(text):
            target = stmt.raised or (stmt.calls[-1] if stmt.calls else None)
            if target is None:
                return False
            target.claim(quote, line, ct.error_claim(text))
            return True
        warning = ct.warning_claim(text)
        if warning and stmt.calls:
            stmt.calls[-1].claim(quote, line, warning)
            return True
        printed = ct.parse_printed_tensor(text) or ct.tensor_of(text)
        made = False
        for obs in stmt.obs:
            if printed and isinstance(obs, TVal):
                call = self.target_of(obs)
                if call is None:
                    continue
                claim = {"outcome": "ok", "shape": printed[0]}
                if call.deterministic:
                    claim["values"] = printed[1]
                call.claim(quote, line, claim)
                made = True
            elif isinstance(obs, SharesObs) and ct.bool_in(text) is not None:
                a, b = obs.a, obs.b
                call = b.producer if b.producer is not None and a in b.producer.args else a.producer
                if call is not None:
                    call.claim(quote, line, {"outcome": "ok", "shares_storage": ct.bool_in(text)})
                    made = True
            elif isinstance(obs, StrideObs):
                shape = ct.result_shape(text)
                if shape is not None and obs.of.producer is not None:
                    obs.of.producer.claim(quote, line, {"outcome": "ok", "strides": shape})
                    made = True
            elif isinstance(obs, IntRes) and ct.int_in(text) is not None:
                obs.call.claim(quote, line, {"outcome": "ok", "values": [ct.int_in(text)]})
                made = True
            elif isinstance(obs, HelperRes):
                if not trailing and not ct.ARROW.search(text):
                    continue
                shape = ct.result_shape(text)
                if shape is not None:
                    obs.call.claim(quote, line, {"outcome": "ok", "shape": shape})
                    made = True
            elif isinstance(obs, (TVal, ShapeObs, SizeRes, tuple)) and not printed:
                shape = ct.result_shape(text)
                if shape is not None:
                    items = obs if isinstance(obs, tuple) else (obs,)
                    for it in items:
                        if isinstance(it, (TVal, ShapeObs, SizeRes)):
                            self.shape_claim(it, shape, quote, line)
                            made = True
        return made

    def following_claim(self, text, line, stmt):
        """A comment right below a print or expression statement, read as its output."""
        return self.claim_on_stmt(text, line, text.strip(), stmt)

    def output_claim(self, output, stmt):
        if stmt is None:
            return
        text = "\n".join(o.text for o in output)
        quote = text
        if ct.parse_printed_tensor(" ".join(o.text for o in output)):
            text = " ".join(o.text for o in output)
        self.claim_on_stmt(text, output[0].line, quote, stmt)

    # -- comments ------------------------------------------------------------------------

    def comment(self, interp, item, previous, walkthrough):
        text, line = item.text, item.line
        self.lines[line] = text
        m = BROADCASTABLE.search(text)
        if m:
            self.broadcastable(interp, m, text, line)
            return walkthrough
        m = NAMED_SHAPE.match(text)
        if m:
            self.named_shape(interp, m.group(1), ct.ints(m.group(2)), text, line)
            return walkthrough
        m = EXAMPLE_SUM.match(text)
        if m and len(ct.shapes_in(m.group(1))) == 2 and not ct.ARROW.search(text):
            return (line, ct.shapes_in(m.group(1)), text)
        m = RESULT_SHAPE.match(text)
        if m and walkthrough is not None:
            start, (a, b), quote = walkthrough
            self.shapes_case(start, a, b, {"outcome": "ok", "shape": ct.shapes_in(m.group(1))[0]},
                             f"{quote.strip()} / {text.strip()}", line, ["comment-walkthrough"])
            return None
        if self.shape_arithmetic(text, line):
            return walkthrough
        if (self.key, line) in IMPLIED:
            self.commented_code(interp, item, previous + [text], IMPLIED[(self.key, line)])
            return walkthrough
        self.commented_code(interp, item, previous)
        return walkthrough

    def broadcastable(self, interp, m, text, line):
        names = [m.group(1), m.group(2)] if m.group(1) else self.group_tensors[-2:]
        if len(names) != 2 or any(n not in interp.env for n in names):
            self.skip(line, f"broadcastable claim without two tensors: {text}")
            return
        x, y = interp.env[names[0]], interp.env[names[1]]
        claim = {"outcome": "error" if m.group(3) else "ok"}
        quote = text.strip()
        interp.stmt = Stmt("expr", line)
        interp.op("torch.broadcast_tensors", [x, y], hints=names, line=self.example,
                  tags=["broadcastable-claim"])
        interp.stmt = None
        self.calls[-1].claim(quote, line, claim)
        r = NO_DIM.search(text)
        if r and r.group(1) in interp.env:
            v = interp.env[r.group(1)]
            interp.op("Tensor.dim", [v], hints=[r.group(1)], line=self.example,
                      tags=["dimension-claim"])
            self.calls[-1].claim(quote, line, {"outcome": "ok", "values": [0]})
            # What the document means: a tensor with no dimension, beside the other one.
            z = zero_dim_like(self.registry, v, (line, "0-d"))
            args = [z, y] if r.group(1) == names[0] else [x, z]
            hints = [h if a is not z else h + "_0d" for a, h in zip(args, names)]
            interp.op("torch.broadcast_tensors", args, hints=hints, line=self.example,
                      tags=["broadcastable-claim", "doc-intent"])
            self.calls[-1].claim(quote, line, claim)

    def named_shape(self, interp, name, shape, text, line):
        if name not in interp.env:
            interp.env[name] = self.registry.random_tensor(tuple(shape), __import__("torch").float32,
                                                           (line, name), name)
            return
        self.shape_claim(interp.env[name], shape, text.strip(), line)

    def shape_arithmetic(self, text, line):
        """`# (5, 1, 2) - (1, 3, 2) = (5, 3, 2)` and `(3x1) with (1x4) → (3x4)`."""
        body = ct.strip_comment(text)
        parts = re.split(r"→|(?<![=!<>])=(?!=)", body)
        if len(parts) != 2:
            return False
        before, after = ct.shapes_in(parts[0]), ct.shapes_in(parts[1])
        if len(before) != 2 or not after:
            return False
        self.shapes_case(line, before[0], before[1], {"outcome": "ok", "shape": after[0]},
                         text.strip(), line, ["comment-arithmetic"])
        return True

    def commented_code(self, interp, item, previous, implied=None):
        """Code the document shows commented out (or only describes: `implied`), with what it
        says would happen."""
        body = item.text.lstrip("#").strip()
        candidates = [body] if implied is None else [implied]
        m = LABEL.match(body)
        if m and implied is None:
            candidates.append(m.group(2))
        for src in candidates:
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Assign, ast.Expr)):
                continue
            value = tree.body[0].value
            names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            has_op = any(isinstance(n, (ast.BinOp, ast.Call, ast.Subscript, ast.Compare))
                         for n in ast.walk(value))
            if not has_op or not names or not all(
                    isinstance(interp.env.get(n), (TVal, Err)) for n in names):
                continue
            line = item.line
            stmt = Stmt("expr", line)
            interp.stmt = stmt
            try:
                interp.ev(value)
            except Skip as e:
                self.skip(line, f"commented code {src}: {e}")
                return
            finally:
                interp.stmt = None
            for c in stmt.calls:
                c.tags.append("commented-out" if implied is None else "implied")
            inner = trailing_comments(src, line)
            if line in inner:
                self.claim_on_stmt(inner[line], line, item.text.strip(), stmt, trailing=True)
                return
            for back, p in enumerate(reversed(previous)):
                if SAYS_BROADCASTS.search(p) and stmt.calls:
                    said = line - back if implied is not None else line - 1 - back
                    stmt.calls[-1].claim(p.strip(), said, {"outcome": "ok"})
                    break
            return

    # -- shapes only ---------------------------------------------------------------------

    def shapes_case(self, example, a, b, claim, quote, line, tags):
        """A `torch.broadcast_shapes(a, b)` call with the document's claim about it."""
        saved = self.example
        self.example = example
        interp = Interpreter(self)
        interp.stmt = Stmt("expr", line)
        interp.op("torch.broadcast_shapes", [tuple(a), tuple(b)], line=line, tags=tags)
        self.calls[-1].claim(quote, line, claim)
        self.example = saved

    def pseudo_line(self, ln):
        """`(5, 1, 7) and (   3, 7) → (5, 3, 7)  ✓` and `(3, 4) and (5,) → ERROR  ✗`."""
        m = PSEUDO_PAIR.match(ln.text)
        if not m:
            return False
        a, b = ct.shapes_in(m.group(1)), ct.shapes_in(m.group(2))
        if len(a) != 1 or len(b) != 1:
            return False
        rest = m.group(3)
        claim = ct.error_claim(rest) if ct.is_error_text("→ " + rest) else \
            {"outcome": "ok", "shape": ct.shapes_in(rest)[0]}
        self.shapes_case(ln.line, a[0], b[0], claim, ln.text.strip(), ln.line, ["pseudo-code"])
        return True

    def plain_block(self, block):
        """A diagram: `Shape A: (3, 1)`, `Shape B: (4)`, `Result: (3, 4)`."""
        found = {}
        for ln in block.lines:
            m = VIS_LINE.match(ln.text)
            if m and m.group(1) not in found:
                found[m.group(1)] = (ln, ct.shapes_in(m.group(2))[0])
        if len(found) == 3:
            (la, a), (_, b), (lr, r) = found["Shape A"], found["Shape B"], found["Result"]
            self.shapes_case(la.line, a, b, {"outcome": "ok", "shape": r}, lr.text.strip(),
                             lr.line, ["diagram"])
        elif block.lines:
            self.skip(block.start, "plain block without a shape diagram")

    def symbolic_shape(self, cell):
        cell = cell.strip().strip("`").strip()
        m = re.match(r"^\(([^)]*)\)$", cell)
        if not m:
            return None
        out = []
        for part in [p.strip() for p in m.group(1).split(",") if p.strip()]:
            if part.isdigit():
                out.append(int(part))
            elif part in self.symbols:
                out.append(self.symbols[part])
            else:
                return None
        return out

    def table(self, block):
        rows = [[c.strip() for c in ln.text.strip().strip("|").split("|")] for ln in block.lines]
        header = rows[0]
        if "Shape A" not in header or "Shape B" not in header:
            self.skip(block.start, "table without shapes")
            return
        ia, ib = header.index("Shape A"), header.index("Shape B")
        ir = header.index("Result") if "Result" in header else None
        for ln, row in zip(block.lines[2:], rows[2:]):
            a, b = self.symbolic_shape(row[ia]), self.symbolic_shape(row[ib])
            if a is None or b is None:
                self.skip(ln.line, f"table row with unknown sizes: {ln.text}")
                continue
            tags = ["table"]
            if any(not p.isdigit() for p in re.findall(r"\w+", row[ia] + row[ib])):
                tags.append("symbolic-sizes")
            if ir is not None:
                r = self.symbolic_shape(row[ir])
                claim = {"outcome": "ok", "shape": r}
            else:
                claim = {"outcome": "error"}
            self.lines[ln.line] = ln.text
            self.shapes_case(ln.line, a, b, claim, ln.text.strip(), ln.line, tags)

    # -- helper functions ----------------------------------------------------------------

    def define(self, interp, node):
        """A function in a document: a shape helper (two shapes, a loop over zip) stands for
        torch.broadcast_shapes; a function documenting its arguments' shapes is run on them."""
        params = [a.arg for a in node.args.args]
        line = node.lineno + self.line_offset
        loops = [n for n in ast.walk(node) if isinstance(n, ast.For)
                 and isinstance(n.iter, ast.Call) and getattr(n.iter.func, "id", "") == "zip"]
        uses_torch = any(isinstance(n, ast.Name) and n.id == "torch" for n in ast.walk(node))
        if len(params) == 2 and loops and not uses_torch:
            self.helpers[node.name] = self.compile_helper(node, line)
            return
        doc = ast.get_docstring(node) or ""
        shapes = {}
        for p in params:
            m = re.search(rf"^\s*{p}:\s*(\([^)]*\))(.*)$", doc, re.M)
            if m:
                shapes[p] = (self.symbolic_shape(m.group(1)), m.group(2))
        if shapes and len(shapes) == len(params) and all(s for s, _ in shapes.values()):
            self.documented_function(interp, node, line, shapes)
            return
        self.skip(line, f"function {node.name} is defined but no example calls it")

    def compile_helper(self, node, line):
        module = ast.Module(body=[node], type_ignores=[])
        scope = {"__builtins__": {"len": len, "zip": zip, "tuple": tuple, "max": max,
                                  "ValueError": ValueError, "print": lambda *a, **k: None}}
        exec(compile(module, self.name, "exec"), scope)  # noqa: S102 - a document's pure helper
        failure = None
        for n in ast.walk(node):
            if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call):
                failure = (n.lineno + self.line_offset, "raise", n.exc.func.id)
            elif isinstance(n, ast.Return) and isinstance(n.value, ast.Constant) \
                    and isinstance(n.value.value, str):
                failure = (n.lineno + self.line_offset, "return", n.value.value)
        return {"fn": scope[node.name], "line": line, "failure": failure, "name": node.name}

    def helper_call(self, interp, name, args, node):
        call_line = node.lineno + self.line_offset
        result = interp.op("torch.broadcast_shapes", [tuple(a) for a in args], line=call_line,
                           tags=["helper", name])
        call = self.calls[-1]
        return HelperRes(call) if not isinstance(result, Err) else result

    def helper_failures(self):
        """A helper's failure branch claims what incompatible shapes do: it is checked on the
        first example after the helper that the document says fails."""
        for h in self.helpers.values():
            if h["failure"] is None:
                continue
            fline, kind, what = h["failure"]
            later = [c for c in self.calls if c.line > h["line"] and
                     any(cl["claim"]["outcome"] == "error" for cl in c.claims)]
            pair = None
            for c in later:
                shapes = [list(a.t.shape) for a in c.args if isinstance(a, TVal)]
                if c.fn == "torch.broadcast_shapes":
                    shapes = [list(a) for a in c.args]
                if len(shapes) == 2:
                    pair = (c, shapes)
                    break
            if pair is None:
                self.skip(fline, f"helper {h['name']}: no failing example to check it on")
                continue
            c, (a, b) = pair
            claim = {"outcome": "error"}
            try:
                h["fn"](tuple(a), tuple(b))
            except ValueError as e:
                claim = {"outcome": "error", "error_type": "ValueError", "message": str(e)}
            saved = self.example
            self.example = h["line"]
            interp = Interpreter(self)
            interp.stmt = Stmt("expr", fline)
            interp.op("torch.broadcast_shapes", [tuple(a), tuple(b)], line=fline,
                      tags=["helper", h["name"], "helper-failure-branch"])
            self.calls[-1].claim(self.source_line(fline), fline, claim)
            self.example = saved

    def documented_function(self, interp, node, line, shapes):
        """Runs a function's return expression on tensors of its documented shapes."""
        saved_env = dict(interp.env)
        self.example = line
        for p, (shape, _) in shapes.items():
            interp.env[p] = self.registry.random_tensor(tuple(shape), __import__("torch").float32,
                                                        (line, p), p)
        rets = [n for n in node.body if isinstance(n, ast.Return)]
        for r in rets:
            rline = r.lineno + self.line_offset
            stmt = Stmt("expr", rline)
            interp.stmt = stmt
            try:
                interp.ev(r.value)
            except Skip as e:
                self.skip(rline, str(e))
            interp.stmt = None
            for c in stmt.calls:
                c.tags.append("docstring-shapes")
            doc_start = node.body[0].lineno + self.line_offset
            for p, (_, rest) in shapes.items():
                m = re.search(r"broadcasts to (\w+)", rest)
                if not m:
                    continue
                for c in stmt.calls:
                    if interp.env[p] in c.args:
                        for k, text in self.docstring_lines(node, doc_start):
                            if text.strip().startswith(f"{p}:"):
                                c.claim(text.strip(), k, {"outcome": "ok"})
                        break
        interp.env = saved_env

    def docstring_lines(self, node, start):
        first = node.body[0]
        end = first.end_lineno + self.line_offset
        return [(k, self.lines.get(k, "")) for k in range(start, end + 1)]
