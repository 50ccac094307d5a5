"""The values a document's code computes while it is run: tensors with where their storage came
from, so that a case can rebuild each input as a fresh storage (a fill recipe, or a short
literal list when the document's data is deterministic and small)."""

import hashlib
from dataclasses import dataclass, field

import torch

from ..casefmt import encode_number, fill_values
from ..torch_exec import DTYPE_NAMES, TORCH_DTYPES

# A deterministic storage up to this many elements is written out literally.
MAX_LITERAL = 64
RANDOM_CTORS = ("randn", "empty", "FloatTensor")
DETERMINISTIC_CTORS = ("tensor", "ones", "zeros", "arange")
CTORS = RANDOM_CTORS + DETERMINISTIC_CTORS


def stable_seed(*parts):
    """A seed from text, the same on every run and machine."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:4], "little")


@dataclass(eq=False)
class StorageRec:
    """One storage the document's code created. `spec` is its schema form once decided."""
    dtype: str
    length: int
    deterministic: bool
    seed: int
    spec: dict = None


@dataclass(eq=False)
class TVal:
    """A tensor value: the torch tensor, its storage record, and the call that produced it."""
    t: torch.Tensor
    storage: StorageRec
    producer: object = None
    hint: str = ""


@dataclass(eq=False)
class Err:
    """A call that raised: later calls on it are not made."""
    call: object


@dataclass(eq=False)
class ShapeObs:
    """`t.shape` or `t.size()`: the size of a tensor, observed."""
    of: TVal


@dataclass(eq=False)
class StrideObs:
    of: TVal


@dataclass(eq=False)
class StorageRef:
    of: TVal


@dataclass(eq=False)
class PtrRef:
    of: TVal


@dataclass(eq=False)
class SharesObs:
    """`a.storage().data_ptr() == b.storage().data_ptr()`."""
    a: TVal
    b: TVal


@dataclass(eq=False)
class IntRes:
    """An int a call returned (`numel`)."""
    value: int
    call: object


@dataclass(eq=False)
class HelperRes:
    """What a document's shape helper returned, as the broadcast_shapes call it stands for."""
    call: object


@dataclass
class Registry:
    """Every storage of one document run, keyed by the storage's memory (tensors stay alive)."""
    doc: str
    by_ptr: dict = field(default_factory=dict)
    keep: list = field(default_factory=list)

    def wrap(self, t, deterministic, seed_parts, inputs=(), producer=None, hint=""):
        """The TVal of a tensor: an input's storage when it views one, else a new storage."""
        self.keep.append(t)
        ptr = t.untyped_storage().data_ptr()
        nbytes = t.untyped_storage().nbytes()
        if nbytes > 0:
            for i in inputs:
                if isinstance(i, TVal) and i.t.untyped_storage().data_ptr() == ptr:
                    return TVal(t, i.storage, producer, hint)
        rec = StorageRec(DTYPE_NAMES[t.dtype], nbytes // t.element_size(), deterministic,
                         stable_seed(self.doc, *seed_parts))
        return TVal(t, rec, producer, hint)

    def random_tensor(self, shape, dtype, seed_parts, hint):
        """A tensor of `shape` filled by the random recipe: it stands for uninitialised or
        random data in the document."""
        n = 1
        for s in shape:
            n *= s
        seed = stable_seed(self.doc, *seed_parts)
        data = torch.tensor(fill_values(DTYPE_NAMES[dtype], {"kind": "random", "seed": seed, "len": n}),
                            dtype=dtype).reshape(shape)
        self.keep.append(data)
        rec = StorageRec(DTYPE_NAMES[dtype], n, n == 0, seed,
                         {"dtype": DTYPE_NAMES[dtype], "values": []} if n == 0 else
                         {"dtype": DTYPE_NAMES[dtype], "fill": {"kind": "random", "seed": seed, "len": n}})
        return TVal(data, rec, None, hint)


def storage_contents(tval):
    t = tval.t
    n = tval.storage.length
    flat = torch.empty(0, dtype=t.dtype)
    flat.set_(t.untyped_storage(), 0, (n,), (1,))
    return flat.tolist()


def storage_spec(tval):
    """The schema form of a tensor's storage: decided once, then reused by every case."""
    rec = tval.storage
    if rec.spec is None:
        values = storage_contents(tval)
        if rec.deterministic and values == list(range(len(values))) and values and rec.dtype != "bool":
            rec.spec = {"dtype": rec.dtype, "fill": {"kind": "arange", "len": len(values)}}
        elif rec.deterministic and len(values) <= MAX_LITERAL:
            rec.spec = {"dtype": rec.dtype, "values": [encode_number(v) for v in values]}
        else:
            # Random or computed from random data: a fresh random fill of the same length.
            rec.deterministic = False
            rec.spec = {"dtype": rec.dtype, "fill": {"kind": "random", "seed": rec.seed, "len": rec.length}}
    return rec.spec


def zero_dim_like(registry, tval, seed_parts):
    """A 0-d tensor of `tval`'s dtype: what a document means by "a tensor with no dimension"."""
    return registry.random_tensor((), tval.t.dtype, seed_parts, tval.hint + "_0d")


def dtype_of(name):
    return TORCH_DTYPES[name]
