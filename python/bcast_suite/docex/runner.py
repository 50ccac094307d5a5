"""Walks a document's blocks: runs code through the interpreter, and reads every claim the
document makes (trailing comments, printed output, prose after a block) onto the call it is
about. Comments, shapes-only examples and functions have their own recognisers."""

import ast
import re
import textwrap

from . import claimtext as ct
from .comments import CommentRecognisers
from .functions import FunctionRecognisers
from .interp import Interpreter, SizeRes, Stmt, trailing_comments
from .shapes_only import SYMBOLS, ShapeRecognisers
from .values import Err, HelperRes, IntRes, Registry, SharesObs, ShapeObs, StrideObs, TVal

CONTINUES = re.compile(r"^(except|else|elif|finally)\b")


class DocRunner(CommentRecognisers, ShapeRecognisers, FunctionRecognisers):
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
