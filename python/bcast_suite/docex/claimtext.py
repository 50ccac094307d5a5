"""Reading what a line of a document says about an outcome: a shape, a stride tuple, a bool, an
int, printed tensor values, an error (with its class and message when printed), or a warning.

Everything here parses text; nothing here knows what torch does."""

import ast
import re

INT_TUPLE = re.compile(r"\(\s*(\d+\s*(?:,\s*\d+\s*)*,?\s*)?\)")
SIZE = re.compile(r"torch\.Size\(\[([\d,\s]*)\]\)")
BRACKETS = re.compile(r"\[([\d,\s]+)\]")
TIMES = re.compile(r"\((\d+(?:x\d+)+)\)")
TENSOR_OF = re.compile(r"(\d+)x(\d+) tensor of (\d+)s")
ARROW = re.compile(r"→|->")


def ints(text):
    return [int(p) for p in re.split(r"[,\s]+", text.strip()) if p]


def shapes_in(text):
    """Every shape written in `text`, in order: `torch.Size([..])`, `(3, 4)`, `(3,)`, `()`,
    `(3x4)`, and a bare `(4)` (a one-dim shape written without its comma)."""
    found = []
    for m in SIZE.finditer(text):
        found.append((m.start(), ints(m.group(1))))
    masked = SIZE.sub(lambda m: " " * len(m.group(0)), text)
    for m in INT_TUPLE.finditer(masked):
        found.append((m.start(), ints(m.group(1) or "")))
    for m in TIMES.finditer(masked):
        found.append((m.start(), [int(p) for p in m.group(1).split("x")]))
    return [s for _, s in sorted(found, key=lambda p: p[0])]


def result_shape(text):
    """The shape a comment gives as a result: after the last arrow when there is one; the last
    `torch.Size` when a sentence gives two ("previously X, now Y"); else the first shape."""
    parts = ARROW.split(text)
    if len(parts) > 1:
        after = shapes_in(parts[-1])
        return after[0] if after else None
    sizes = [ints(m.group(1)) for m in SIZE.finditer(text)]
    if len(sizes) > 1:
        return sizes[-1]
    shapes = shapes_in(text)
    return shapes[0] if shapes else None


def strip_comment(text):
    return text.lstrip().lstrip("#").strip()


def parse_printed_tensor(text):
    """`tensor([[2., 2.], ...])` as printed: (shape, values), or None."""
    m = re.match(r"^tensor\((.*)\)\s*$", " ".join(strip_comment(text).split()), re.S)
    if not m:
        return None
    body = m.group(1)
    body = re.sub(r",\s*(dtype|device|requires_grad)=.*$", "", body)
    body = re.sub(r"(\d)\.(?=[,\]\s])", r"\1.0", body)
    try:
        nested = ast.literal_eval(body)
    except (ValueError, SyntaxError):
        return None
    shape, level = [], nested
    while isinstance(level, list):
        shape.append(len(level))
        level = level[0] if level else None
    values = []

    def flat(v):
        if isinstance(v, list):
            for x in v:
                flat(x)
        else:
            values.append(v)

    flat(nested)
    return shape, values


def is_error_text(text):
    t = strip_comment(text)
    return bool(re.match(r"^(Error\b|\w+Error:)", t)) or bool(re.search(r"→\s*ERROR", t))


def error_claim(text):
    """An error claim from `RuntimeError: msg` (class and message), `Error: ...` or `→ ERROR`."""
    t = strip_comment(text)
    m = re.match(r"^(\w+Error): (.*)$", t, re.S)
    if m:
        return {"outcome": "error", "error_type": m.group(1), "message": m.group(2)}
    return {"outcome": "error"}


def warning_claim(text):
    """`__main__:1: UserWarning: msg` (possibly continued on more lines) as a warning claim."""
    m = re.search(r"\b(\w+Warning): (.*)$", text, re.S)
    if not m:
        return None
    return {"outcome": "ok", "warning": f"{m.group(1)}: {m.group(2)}"}


def bool_in(text):
    m = re.match(r"^(True|False)\b", strip_comment(text))
    return None if m is None else m.group(1) == "True"


def int_in(text):
    m = re.match(r"^(\d+)\s*$", strip_comment(text))
    return None if m is None else int(m.group(1))


def tensor_of(text):
    """`3x4 tensor of 5s`: (shape, values)."""
    m = TENSOR_OF.search(text)
    if not m:
        return None
    r, c, v = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return [r, c], [v] * (r * c)
