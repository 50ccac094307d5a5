"""Claims and examples written as comments: `# x and y are (not) broadcastable`,
`# x.shape = [..]`, shape arithmetic (`# (5, 1, 2) - (1, 3, 2) = (5, 3, 2)`), a walkthrough
(`# Example: A + B` ... `# Result shape: R`), and code shown commented out or only described."""

import ast
import re

import torch

from . import claimtext as ct
from .interp import Skip, Stmt, trailing_comments
from .values import Err, TVal, zero_dim_like

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
OPERAND = re.compile(r"^#\s*(\w+)(?: broadcasts)?:\s*(.*(?:→|←).*)$")
LABEL = re.compile(r"^([A-Z][\w ]*):\s+(.*)$")
SAYS_BROADCASTS = re.compile(
    r"^(?!.*\b(?:not|fail|don't|doesn't|won't)\b.*\b(?:broadcasts|will broadcast)\b)"
    r".*\b(?:broadcasts|will broadcast)\b")


class CommentRecognisers:
    """The comment recognisers of DocRunner."""

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
        if self.shape_arithmetic(text, line) or self.operand_expansion(interp, text, line):
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
            interp.env[name] = self.registry.random_tensor(tuple(shape), torch.float32,
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

    def operand_expansion(self, interp, text, line):
        """`#   a: (3, 1, 5) → (3, 4, 5)`, `# b: (5) ← implicitly (1, 1, 5)`: how an operand is
        viewed when it broadcasts, run as `torch.broadcast_to` of a tensor of the first shape."""
        m = OPERAND.match(text.strip())
        if not m:
            return False
        shapes = ct.shapes_in(m.group(2))
        if len(shapes) < 2:
            return False
        name = m.group(1).lower() if m.group(1)[0].isupper() and len(m.group(1)) > 1 else m.group(1)
        v = self.registry.random_tensor(tuple(shapes[0]), torch.float32, (line, name), name)
        interp.stmt = Stmt("expr", line)
        interp.op("torch.broadcast_to", [v, tuple(shapes[-1])], hints=[name, None], line=line,
                  tags=["operand-expansion"])
        interp.stmt = None
        self.calls[-1].claim(text.strip(), line, {"outcome": "ok", "shape": shapes[-1]})
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
