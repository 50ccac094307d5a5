"""Reads a seed document into blocks of classified lines, keeping each line's number in the file.

Formats: reStructuredText (`::` literal blocks with `>>>` prompts and printed output), Markdown
(fenced code, pipe tables), and a notebook export (`In [n]:` cells, then their output)."""

import re
from dataclasses import dataclass, field

# Per-document recognisers: the format, and a line prefix left by a source browser.
FORMATS = {
    "000": {"format": "rst"},
    "001": {"format": "rst", "prefix": r"^\d+\*[0-9a-f]{8}SAndroid Build Coastguard Worker",
            "skip_unprefixed": True},
    "002": {"format": "markdown"},
    "003": {"format": "notebook"},
    "004": {"format": "markdown"},
}

OUTPUT_START = re.compile(r"^(torch\.Size\(|tensor\(|RuntimeError:|\w+Error:|.*\b\w+Warning: )")


@dataclass
class Line:
    """One line of a block: `kind` is code, comment, output, prose or blank."""
    line: int
    kind: str
    text: str


@dataclass
class Block:
    """A code block (`lang` python or plain), a table, or a prose paragraph."""
    kind: str
    start: int
    lines: list = field(default_factory=list)
    lang: str = "python"


def doc_key(name):
    return name[:3]


def raw_lines(name, text):
    """(line number, text) of every line, with any source-browser prefix removed."""
    spec = FORMATS[doc_key(name)]
    prefix = re.compile(spec["prefix"]) if "prefix" in spec else None
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if prefix is not None:
            m = prefix.match(line)
            if m is None:
                if spec.get("skip_unprefixed"):
                    continue
            else:
                line = line[m.end():]
        out.append((number, line.rstrip()))
    return out


def classify_code(number, text):
    """A code line at column 0 that is a comment is a comment; anything else is code."""
    if not text.strip():
        return Line(number, "blank", "")
    if text.startswith(">>> "):
        return Line(number, "code", text[4:])
    if text.startswith("... "):
        return Line(number, "code", text[4:])
    if text.startswith("#"):
        return Line(number, "comment", text)
    return Line(number, "code", text)


def dedent(lines):
    widths = [len(t) - len(t.lstrip()) for _, t in lines if t.strip()]
    cut = min(widths) if widths else 0
    return [(n, t[cut:]) for n, t in lines]


def read_rst(lines):
    blocks, i = [], 0
    while i < len(lines):
        number, text = lines[i]
        if text.endswith("::"):
            j = i + 1
            body = []
            while j < len(lines) and (not lines[j][1].strip() or lines[j][1].startswith(" ")):
                body.append(lines[j])
                j += 1
            block = Block("code", number)
            for n, t in dedent(body):
                if not t.strip():
                    block.lines.append(Line(n, "blank", ""))
                elif t.startswith(">>> "):
                    block.lines.append(Line(n, "code", t[4:]))
                elif t.startswith("#"):
                    block.lines.append(Line(n, "comment", t))
                else:
                    block.lines.append(Line(n, "output", t.strip()))
            # The first prose line after a block may state its outcome ("now produces ...").
            if j < len(lines) and lines[j][1].strip():
                block.lines.append(Line(lines[j][0], "prose", lines[j][1].strip()))
            blocks.append(block)
            i = j
        else:
            i += 1
    return blocks


FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


def read_markdown(lines):
    blocks, i = [], 0
    while i < len(lines):
        number, text = lines[i]
        m = FENCE.match(text)
        if m:
            indent, lang = len(m.group(1)), m.group(2) or "plain"
            j = i + 1
            body = []
            while j < len(lines) and not FENCE.match(lines[j][1]):
                body.append((lines[j][0], lines[j][1][indent:]))
                j += 1
            block = Block("code", number, lang="python" if lang in ("python", "py") else "plain")
            block.lines = [classify_code(n, t) for n, t in body]
            blocks.append(block)
            i = j + 1
        elif text.startswith("|"):
            block = Block("table", number)
            while i < len(lines) and lines[i][1].startswith("|"):
                block.lines.append(Line(lines[i][0], "row", lines[i][1]))
                i += 1
            blocks.append(block)
        else:
            i += 1
    return blocks


CELL = re.compile(r"^In \[[^\]]*\]:\s*$")


def read_notebook(lines):
    blocks, i = [], 0
    while i < len(lines):
        number, text = lines[i]
        if not CELL.match(text):
            i += 1
            continue
        block = Block("code", number)
        j = i + 1
        while j < len(lines) and lines[j][1].strip() and not CELL.match(lines[j][1]):
            block.lines.append(classify_code(*lines[j]))
            j += 1
        k = j
        while k < len(lines) and not lines[k][1].strip():
            k += 1
        if k < len(lines) and OUTPUT_START.match(lines[k][1]):
            while k < len(lines) and lines[k][1].strip():
                block.lines.append(Line(lines[k][0], "output", lines[k][1].strip()))
                k += 1
            j = k
        blocks.append(block)
        i = j
    return blocks


READERS = {"rst": read_rst, "markdown": read_markdown, "notebook": read_notebook}


def read_document(name, text):
    """The blocks of a document, in order."""
    lines = raw_lines(name, text)
    return READERS[FORMATS[doc_key(name)]["format"]](lines)
