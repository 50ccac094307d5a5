"""Writes case/data/python_signatures.json: the signature strings torch's Python argument parser
holds for every function and method of the op catalogue, in the order the parser tries them.

    python -m bcast_suite.signatures [--check]

torch builds its Python bindings with torchgen, which the torch wheel ships: the same code
(`torchgen/packaged/autograd/gen_python_functions.py`) that wrote the parser's strings into
torch's `python_torch_functions.cpp` and `python_variable_methods.cpp` writes them here, from the
installed torch's own `native_functions.yaml` and `deprecated.yaml`. A name torchgen does not
bind (a Python-level function such as `torch.broadcast_tensors`, or a hand-written method such as
`Tensor.size`) is written as null: no backend claims to know its parser. A function written in
Python also has its parameters listed (`(*tensors)`), for Python's own argument rules.

Each string is checked against the installed torch: for every name with more than one visible
signature, calling it with an argument no signature accepts must raise the TypeError whose
"expected one of" list is those signatures, as the Rust emulation (`bcast_case::pyargs`) prints
them. `--check` only compares the file with what would be written.
"""

import argparse
import inspect
import json
import os
import re
import subprocess
import sys

import torch

from . import repo

# Functions whose Tensor parameters also take a Python number (torch's C++ list
# `should_allow_numbers_as_tensors` in torch/csrc/utils/python_arg_parser.cpp; it is not in
# torchgen's data). The check below confirms it on the installed torch.
NUMBERS_AS_TENSORS = [
    "add", "add_", "add_out", "div", "div_", "div_out", "divide", "divide_", "divide_out",
    "mul", "mul_", "mul_out", "multiply", "multiply_", "multiply_out", "sub", "sub_", "sub_out",
    "subtract", "subtract_", "subtract_out", "true_divide", "true_divide_", "true_divide_out",
    "to", "_to_copy", "copy_", "floor_divide", "floor_divide_", "floor_divide_out",
]


def catalogue_fn_names(root):
    """The `fn` names of the op catalogue, as `bcast ops` lists them (`$BCAST_BIN`, else a
    release build of the checkout)."""
    bcast = os.environ.get("BCAST_BIN")
    if not bcast:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "bcast-cli"], cwd=root, check=True)
        bcast = os.path.join(root, "target", "release", "bcast")
    out = subprocess.run([bcast, "ops"], cwd=root,
                         check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def torchgen_signatures():
    """{"functions": {name: [signature, ...]}, "methods": {...}} for everything torchgen binds
    in the `torch` namespace, `torch.special` and on Tensor."""
    import torchgen
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd import gen_python_functions as g

    packaged = os.path.join(os.path.dirname(torchgen.__file__), "packaged")
    native = parse_native_yaml(os.path.join(packaged, "ATen", "native", "native_functions.yaml"),
                               os.path.join(packaged, "ATen", "native", "tags.yaml")).native_functions
    native = [f for f in native if g.should_generate_py_binding(f)]
    deprecated = os.path.join(packaged, "autograd", "deprecated.yaml")
    tables = {}
    for key, method, pred, prefix in (("functions", False, g.is_py_torch_function, ""),
                                      ("special", False, g.is_py_special_function, "special_"),
                                      ("methods", True, g.is_py_variable_method, "")):
        pairs = g.load_signatures(native, deprecated, method=method)
        grouped = g.group_filter_overloads(pairs, pred)
        table = {}
        for name, overloads in grouped.items():
            sigs = [o.signature.signature_str(symint=True) for o in g.group_overloads(overloads, symint=True)]
            # torch's parser tries deprecated signatures last (a stable partition).
            sigs = [s for s in sigs if not s.endswith("|deprecated")] + \
                   [s for s in sigs if s.endswith("|deprecated")]
            table[str(name)[len(prefix):] if str(name).startswith(prefix) else str(name)] = sigs
        tables[key] = table
    return tables


def python_name(fn):
    """(table, name) of a catalogue `fn` name, or None for forms without a parser."""
    if fn.startswith("torch.special."):
        return "special", fn[len("torch.special."):]
    if fn.startswith("torch."):
        return "functions", fn[len("torch."):]
    if fn.startswith("Tensor."):
        return "methods", fn[len("Tensor."):]
    return None


def parsed_in_cpp(table, name):
    """Whether Python reaches torch's generated C++ parser for this name, rather than a function
    written in Python (`torch.broadcast_tensors` in torch/functional.py, a method that
    torch/_tensor.py overrides) with Python's own argument rules."""
    if table == "functions":
        return getattr(torch, name, None) is getattr(torch._C._VariableFunctions, name, object())
    if table == "special":
        return getattr(torch.special, name, None) is getattr(torch._C._special, "special_" + name, object())
    return name not in torch.Tensor.__dict__ and hasattr(torch._C.TensorBase, name)


def python_parameters(table, name):
    """A function written in Python, as `inspect` gives its parameters (`(*tensors)`), or None."""
    if table != "functions" or parsed_in_cpp(table, name):
        return None
    f = getattr(torch, name, None)
    if not inspect.isfunction(f):
        return None
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return "(" + ", ".join(stars.get(p.kind, "") + p.name
                           for p in inspect.signature(f).parameters.values()) + ")"


def build_table(root):
    tables = torchgen_signatures()
    entries, python = {}, {}
    for fn in catalogue_fn_names(root):
        where = python_name(fn)
        if where is None:
            continue
        table, name = where
        entries[fn] = tables[table].get(name) if parsed_in_cpp(table, name) else None
        params = python_parameters(table, name)
        if params is not None:
            python[fn] = params
    return {
        "torch": torch.__version__.split("+")[0],
        "numbers_as_tensors": NUMBERS_AS_TENSORS,
        "signatures": entries,
        "python": python,
    }


# How torch's parser names a parameter type in its messages (FunctionParameter::type_name).
TYPE_NAMES = {
    "Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
    "complex": "complex", "TensorList": "tuple of Tensors",
    "c10::List<::std::optional<Tensor>>": "tuple of Tensors", "IntArrayRef": "tuple of ints",
    "SymIntArrayRef": "tuple of ints", "ArrayRef<double>": "tuple of floats",
    "Generator": "torch.Generator", "bool": "bool", "Storage": "torch.Storage",
    "PyObject*": "object", "ScalarType": "torch.dtype", "Layout": "torch.layout",
    "MemoryFormat": "torch.memory_format", "QScheme": "torch.qscheme", "Device": "torch.device",
    "Stream": "torch.Stream", "std::string": "str", "c10::string_view": "str", "Dimname": "name",
    "DimnameList": "tuple of names", "ScalarList": "tuple of Scalars",
}


def printed(signature):
    """A signature as torch's "expected one of" list prints it."""
    params = signature[signature.index("(") + 1:signature.rindex(")")]
    out, keyword, starred = [], False, False
    for p in [p for p in params.split(", ") if p]:
        if p == "*":
            keyword = True
            continue
        if keyword and not starred:
            out.append("*")
            starred = True
        ty, name = p.split(" ", 1)
        ty = re.sub(r"\[.*\]", "", ty.rstrip("?"))
        out.append(TYPE_NAMES[ty] + " " + name.replace("=", " = "))
    return "(" + ", ".join(out) + ")"


class Unaccepted:
    """An argument no parameter type accepts."""


def check_against_torch(table):
    """Every name with two or more visible signatures lists them, in order, when called with
    more arguments than any of them takes."""
    checked = 0
    for fn, sigs in table["signatures"].items():
        visible = [s for s in (sigs or []) if not s.endswith(("|deprecated", "|hidden"))]
        if len(visible) < 2:
            continue
        x = torch.ones(2)
        target = getattr(torch.special, fn.split(".")[-1]) if fn.startswith("torch.special.") \
            else getattr(torch, fn[len("torch."):]) if fn.startswith("torch.") \
            else getattr(x, fn[len("Tensor."):])
        # More arguments than any signature takes: none is plausible, so torch lists them all.
        args = (Unaccepted(),) * 40
        try:
            target(*args)
        except TypeError as e:
            listed = [line[3:] for line in str(e).splitlines() if line.startswith(" * ")]
            want = [printed(s) for s in visible]
            if listed != want:
                raise SystemExit(f"{fn}: torch lists {listed}, the table gives {want}")
            checked += 1
            continue
        raise SystemExit(f"{fn}: a call with an unaccepted argument did not raise")
    return checked


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="fail if the file differs from what would be written")
    a = p.parse_args(argv)
    root = repo.root()
    path = os.path.join(root, "case", "data", "python_signatures.json")
    table = build_table(root)
    checked = check_against_torch(table)
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    if a.check:
        with open(path) as f:
            if f.read() != text:
                sys.exit(f"{path} is not what torch {table['torch']} gives; run python -m bcast_suite.signatures")
        print(f"signatures: up to date ({len(table['signatures'])} names, {checked} checked against torch)")
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"signatures: {len(table['signatures'])} names written, {checked} checked against torch")


if __name__ == "__main__":
    main()
