"""Functions a document defines: a shape helper (two shapes, a loop over zip, no torch) stands
for `torch.broadcast_shapes`, including its failure branch; a function whose docstring gives
its arguments' shapes is run on tensors of those shapes."""

import ast
import re

import torch

from .interp import Interpreter, Skip, Stmt
from .values import Err, HelperRes, TVal


class FunctionRecognisers:
    """The function recognisers of DocRunner."""

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
            interp.env[p] = self.registry.random_tensor(tuple(shape), torch.float32,
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
