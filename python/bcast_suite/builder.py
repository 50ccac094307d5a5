"""Writing cases: one case's storages, strided views and call, in the schema's terms (the case
model of fixtures/README.md, as plain dicts). Generators such as tch_op_cases build with it."""


def contiguous_strides(shape):
    """Row-major strides of `shape`, in elements (a size-0 or size-1 dim counts as 1)."""
    strides, n = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = n
        n *= max(shape[d], 1)
    return strides


def extent(shape, strides):
    """The elements a view spans from its offset: 0 when it has none, else its last element's
    position plus one."""
    if 0 in shape:
        return 0
    return sum((s - 1) * st for s, st in zip(shape, strides)) + 1


class CaseBuilder:
    """Builds one case: storages (named s0, s1, ...), views over them (t0, t1, ...), then the
    call, which returns the case. `case` is the dict being built."""

    def __init__(self, case_id, **fields):
        self.case = {"id": case_id, **fields, "storages": {}, "tensors": {}}

    def storage(self, dtype, *, fill=None, values=None, name=None):
        """Adds a storage with a fill recipe or literal values; returns its name."""
        if (fill is None) == (values is None):
            raise ValueError("a storage has either a fill or values")
        name = name or f"s{len(self.case['storages'])}"
        self.case["storages"][name] = {"dtype": dtype, "fill": fill} if fill is not None else {"dtype": dtype, "values": values}
        return name

    def random_storage(self, dtype, seed, length):
        """Adds a storage filled by the random recipe; returns its name."""
        return self.storage(dtype, fill={"kind": "random", "seed": seed, "len": length})

    def view(self, storage, shape, strides, offset=0, name=None):
        """Adds a strided view of a storage; returns its argument, {"tensor": name}."""
        name = name or f"t{len(self.case['tensors'])}"
        self.case["tensors"][name] = {"storage": storage, "shape": list(shape), "strides": list(strides),
                                      "offset": offset}
        return {"tensor": name}

    def tensor_spec(self, arg):
        """The view spec behind a {"tensor": name} argument (to read or change)."""
        return self.case["tensors"][arg["tensor"]]

    def call(self, fn, *args, **kwargs):
        """Sets the call (args and kwargs are argument objects) and returns the case."""
        self.case["call"] = {"fn": fn, "args": list(args), "kwargs": kwargs}
        return self.case
