"""Examples that are only shapes: Markdown tables (`| (3, 1) | (1, 4) | (3, 4) |`), lines like
`(3, 4) and (5,) → ERROR`, and a diagram (`Shape A: (3, 1)` / `Shape B: (4)` / `Result: ...`).
Each becomes a `torch.broadcast_shapes` call."""

import re

from . import claimtext as ct
from .interp import Interpreter, Stmt

# Sizes a document only names (tables, docstrings), bound to the values the same document
# uses in its worked examples: batch_size, features = 32, 256 (bias example) and
# images = torch.randn(8, 3, 64, 64) for (batch, channels, H, W) (channel-wise example).
SYMBOLS = {"002": {"batch": 32, "features": 256, "B": 8, "C": 3, "H": 64, "W": 64}}

PSEUDO_PAIR = re.compile(r"^\s*(\([^)]*\))\s+and\s+(\([^)]*\))\s*→\s*(.*)$")
VIS_LINE = re.compile(r"^\s*(Shape A|Shape B|Result):\s*(\([^)]*\))")


class ShapeRecognisers:
    """The shapes-only recognisers of DocRunner."""

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
