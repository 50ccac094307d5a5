//! The op catalogue: every op the suite's cases call (the fixtures, and the libtorch op corpus
//! `conformance/tests/data/tch_ops.json`), with its family, the forms in which the cases spell
//! it (`torch.add`, `Tensor.add`, `Tensor.add_`, `getitem`), its arguments and
//! keywords as Python takes them, and whether it exists only in Python. Backends, generators,
//! `bcast ops` and `OPS.md` read it; a test keeps it equal to what the fixtures call, and
//! every form it lists has torch-labelled fixture cases. It lists only forms Python torch has:
//! `maximum`, `minimum`, `fmax` and `fmin` have no in-place method, in Python or in libtorch
//! (`Tensor.maximum_` raises `AttributeError`), so none is listed.
//!
//! ```
//! use bcast_case::ops::{lookup, Family, Form};
//! let (op, form) = lookup("Tensor.add_").unwrap();
//! assert_eq!((op.name, op.family, form), ("add", Family::Binary, Form::InPlace));
//! assert!(op.kwargs.contains(&"alpha"));
//! assert!(lookup("torch.addd").is_none());
//! assert!(lookup("torch.broadcast_shapes").unwrap().0.python_only);
//! ```

use std::fmt;

/// What kind of op it is; a backend routes a call to its implementation by family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Shape arithmetic without tensors (`broadcast_shapes`).
    Shapes,
    /// Views and copies of one tensor's geometry (`expand`, `permute`, `reshape`, `clone`, indexing).
    Views,
    /// Facts about a tensor (`numel`, `dim`, `size`).
    Queries,
    /// Element-wise ops of one tensor.
    Unary,
    /// Element-wise arithmetic of two operands that broadcast.
    Binary,
    /// Element-wise comparisons, to bool.
    Compare,
    /// Element-wise logical ops, to bool.
    Logical,
    /// `where(condition, x, y)`: three operands that broadcast.
    Where,
    /// Integer ops of two operands that broadcast (`bitwise_and`, shifts, `gcd`, `lcm`).
    Bitwise,
    /// Ops of a tensor and bounds, weights, factors or a mask that broadcast (`clamp`,
    /// `lerp`, `addcmul`, `masked_fill`), and the closeness tests `isclose` and `equal`.
    Ternary,
    /// `copy_`: a broadcasting, casting write into a tensor.
    Copy,
    /// Reductions over dims (`sum`, `mean`, `amax`, `var`, ...).
    Reduction,
    /// Matrix products (`matmul`, `mm`, `bmm`, `mv`, `dot`).
    Linalg,
    /// `einsum`, in equation and sublist forms.
    Einsum,
}

impl Family {
    /// Every family, in catalogue order.
    pub const ALL: [Family; 14] = [
        Family::Shapes,
        Family::Views,
        Family::Queries,
        Family::Unary,
        Family::Binary,
        Family::Compare,
        Family::Logical,
        Family::Where,
        Family::Bitwise,
        Family::Ternary,
        Family::Copy,
        Family::Reduction,
        Family::Linalg,
        Family::Einsum,
    ];

    /// Whether its ops are element-wise: every operand (a tensor or a Python number standing
    /// for one) broadcasts against the others, TensorIterator-style.
    ///
    /// ```
    /// use bcast_case::ops::Family;
    /// assert!(Family::Where.is_elementwise() && !Family::Reduction.is_elementwise());
    /// ```
    pub fn is_elementwise(self) -> bool {
        matches!(
            self,
            Family::Unary
                | Family::Binary
                | Family::Compare
                | Family::Logical
                | Family::Where
                | Family::Bitwise
                | Family::Ternary
                | Family::Copy
        )
    }

    /// The family's name in listings.
    pub fn name(self) -> &'static str {
        match self {
            Family::Shapes => "shapes",
            Family::Views => "views",
            Family::Queries => "queries",
            Family::Unary => "unary",
            Family::Binary => "binary",
            Family::Compare => "compare",
            Family::Logical => "logical",
            Family::Where => "where",
            Family::Bitwise => "bitwise",
            Family::Ternary => "ternary",
            Family::Copy => "copy",
            Family::Reduction => "reduction",
            Family::Linalg => "linalg",
            Family::Einsum => "einsum",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a case's `fn` spells a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    /// `torch.NAME(*args, **kwargs)`.
    Function,
    /// `args[0].NAME(*args[1:], **kwargs)`.
    Method,
    /// `args[0].NAME_(*args[1:], **kwargs)`: writes into `args[0]`.
    InPlace,
    /// `args[0][args[1]]`.
    Getitem,
    /// `args[0].__rNAME__(args[1])`: the reflected operator through which Python evaluates
    /// `2 - t` (see [`Reflection`]).
    Reflected,
}

/// One op of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// The base name (`add`; `getitem` for indexing).
    pub name: &'static str,
    /// Its family: which module of a backend runs it.
    pub family: Family,
    /// The forms the corpus calls it in.
    pub forms: &'static [Form],
    /// Its Python signature, as torch documents it, in the terms the cases use.
    pub signature: &'static str,
    /// The keywords cases pass it (`out` only with the function form).
    pub kwargs: &'static [&'static str],
    /// It exists only in Python: libtorch has no twin.
    pub python_only: bool,
}

impl Op {
    /// The `fn` name of one form (`torch.add`, `Tensor.add`, `Tensor.add_`, `getitem`).
    ///
    /// ```
    /// use bcast_case::ops::{lookup, Form};
    /// let add = lookup("torch.add").unwrap().0;
    /// assert_eq!(add.fn_name(Form::InPlace), "Tensor.add_");
    /// ```
    pub fn fn_name(&self, form: Form) -> String {
        match form {
            Form::Function => format!("torch.{}", self.name),
            Form::Method => format!("Tensor.{}", self.name),
            Form::InPlace => format!("Tensor.{}_", self.name),
            Form::Getitem => "getitem".to_string(),
            Form::Reflected => match reflection_of(self.name) {
                Some(r) => format!("Tensor.{}", r.dunder),
                None => format!("Tensor.__r{}__", self.name),
            },
        }
    }

    /// Every `fn` name of this op, in its forms' order (a reflected form may have two names:
    /// `__rtruediv__` and `__rdiv__`).
    pub fn fn_names(&self) -> impl Iterator<Item = String> + '_ {
        self.forms.iter().flat_map(move |&f| match f {
            Form::Reflected => REFLECTIONS
                .iter()
                .filter(|r| r.op == self.name)
                .map(|r| format!("Tensor.{}", r.dunder))
                .collect(),
            _ => vec![self.fn_name(f)],
        })
    }
}

const F: Form = Form::Function;
const M: Form = Form::Method;
const I: Form = Form::InPlace;
const G: Form = Form::Getitem;
const R: Form = Form::Reflected;

macro_rules! op {
    ($name:literal, $family:ident, [$($form:ident),*], $sig:literal, [$($kw:literal),*]) => {
        op!($name, $family, [$($form),*], $sig, [$($kw),*], false)
    };
    ($name:literal, $family:ident, [$($form:ident),*], $sig:literal, [$($kw:literal),*], $py:literal) => {
        Op {
            name: $name,
            family: Family::$family,
            forms: &[$($form),*],
            signature: $sig,
            kwargs: &[$($kw),*],
            python_only: $py,
        }
    };
}

/// Every op the cases call, by family.
pub const OPS: &[Op] = &[
    op!("broadcast_shapes", Shapes, [F], "(*shapes) -> Size: each shape an int, a tuple/list of ints or a Size", [], true),
    op!("broadcast_tensors", Views, [F], "(*tensors) -> list of views", []),
    op!("broadcast_to", Views, [F, M], "(input, size)", []),
    op!("expand", Views, [M], "(self, *sizes); sizes as ints or one list, -1 keeps a dim", []),
    op!("expand_as", Views, [M], "(self, other)", []),
    op!("unsqueeze", Views, [F, M], "(self, dim)", []),
    op!("squeeze", Views, [F, M], "(self, dim=None); dim an int or a tuple of ints", []),
    op!("permute", Views, [F, M], "(self, *dims)", []),
    op!("transpose", Views, [F, M], "(self, dim0, dim1)", []),
    op!("t", Views, [F, M], "(self)", []),
    op!("narrow", Views, [F, M], "(self, dim, start, length)", []),
    op!("select", Views, [F, M], "(self, dim, index)", []),
    op!("as_strided", Views, [F, M], "(self, size, stride, storage_offset=None)", []),
    op!("view", Views, [M], "(self, *shape)", []),
    op!("reshape", Views, [F, M], "(self, *shape)", []),
    op!("getitem", Views, [G], "self[index]; index an int, slice, None, Ellipsis or a tuple of them", []),
    op!("contiguous", Views, [M], "(self)", []),
    op!("clone", Views, [F, M], "(input)", []),
    op!("repeat", Views, [M], "(self, *repeats)", []),
    op!("numel", Queries, [F, M], "(self) -> int", []),
    op!("dim", Queries, [M], "(self) -> int", []),
    op!("size", Queries, [M], "(self) -> Size", []),
    op!("abs", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("neg", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("sign", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("floor", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("ceil", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("exp", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("log", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("sqrt", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("sin", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("cos", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("tanh", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("sigmoid", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("reciprocal", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("exp2", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("log1p", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("frac", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("round", Unary, [F, M, I], "(input, *, decimals=0, out=None)", ["decimals", "out"]),
    op!("trunc", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("bitwise_not", Unary, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("add", Binary, [F, M, I, R], "(input, other, *, alpha=1, out=None); input or other may be a Python number", ["alpha", "out"]),
    op!("sub", Binary, [F, M, I, R], "(input, other, *, alpha=1, out=None); input or other may be a Python number", ["alpha", "out"]),
    op!("mul", Binary, [F, M, I, R], "(input, other, *, out=None)", ["out"]),
    op!("div", Binary, [F, M, I, R], "(input, other, *, rounding_mode=None, out=None)", ["rounding_mode", "out"]),
    op!("remainder", Binary, [F, M, I, R], "(input, other, *, out=None)", ["out"]),
    op!("pow", Binary, [F, M, I, R], "(input, exponent, *, out=None); input may be a Python number", ["out"]),
    op!("maximum", Binary, [F, M], "(input, other, *, out=None); no in-place form", ["out"]),
    op!("minimum", Binary, [F, M], "(input, other, *, out=None); no in-place form", ["out"]),
    op!("subtract", Binary, [F, I], "(input, other, *, alpha=1, out=None): sub", ["out"]),
    op!("multiply", Binary, [F, I], "(input, other, *, out=None): mul", ["out"]),
    op!("divide", Binary, [F, M, I], "(input, other, *, rounding_mode=None, out=None): div", ["rounding_mode", "out"]),
    op!("true_divide", Binary, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("floor_divide", Binary, [F, M, I, R], "(input, other, *, out=None): div(rounding_mode='floor'); input or other may be a Python number", ["out"]),
    op!("fmod", Binary, [F, M, I], "(input, other, *, out=None); other may be a Python number", ["out"]),
    op!("atan2", Binary, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("arctan2", Binary, [F, M, I], "(input, other, *, out=None): atan2", ["out"]),
    op!("hypot", Binary, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("copysign", Binary, [F, M, I], "(input, other, *, out=None); other may be a Python number", ["out"]),
    op!("nextafter", Binary, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("ldexp", Binary, [F, M, I], "(input, other, *, out=None): input * 2**other", ["out"]),
    op!("logaddexp", Binary, [F, M], "(input, other, *, out=None)", ["out"]),
    op!("logaddexp2", Binary, [F, M], "(input, other, *, out=None)", ["out"]),
    op!("xlogy", Binary, [F, M, I], "(input, other, *, out=None); input or other may be a Python number (not both)", ["out"]),
    op!("special.xlogy", Binary, [F], "(input, other, *, out=None): xlogy; input or other may be a Python number (not both)", ["out"]),
    op!("special.xlog1py", Binary, [F], "(input, other, *, out=None): input * log1p(other); input or other may be a Python number (not both)", ["out"]),
    op!("special.zeta", Binary, [F], "(input, other, *, out=None): Hurwitz zeta; input or other may be a Python number (not both)", ["out"]),
    op!("float_power", Binary, [F, M, I], "(input, exponent, *, out=None): pow in float64/complex128; input or exponent may be a Python number (not both)", ["out"]),
    op!("heaviside", Binary, [F, M, I], "(input, values, *, out=None)", ["out"]),
    op!("fmax", Binary, [F, M], "(input, other, *, out=None); no in-place form", ["out"]),
    op!("fmin", Binary, [F, M], "(input, other, *, out=None); no in-place form", ["out"]),
    op!("rsub", Binary, [F], "(input, other, *, alpha=1): other - alpha * input; other may be a Python number", ["alpha"]),
    op!("eq", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("ne", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("lt", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("le", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("gt", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("ge", Compare, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("greater", Compare, [F, I], "(input, other, *, out=None): gt", ["out"]),
    op!("less_equal", Compare, [F, I], "(input, other, *, out=None): le", ["out"]),
    op!("logical_not", Logical, [F, M, I], "(input, *, out=None)", ["out"]),
    op!("logical_and", Logical, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("logical_or", Logical, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("logical_xor", Logical, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("where", Where, [F, M], "torch.where(condition, input, other, *, out=None); input.where(condition, other); input or other may be a Python number", ["out"]),
    op!("bitwise_and", Bitwise, [F, M, I, R], "(input, other, *, out=None); either may be a Python number (input not with out=)", ["out"]),
    op!("bitwise_or", Bitwise, [F, M, I, R], "(input, other, *, out=None); either may be a Python number (input not with out=)", ["out"]),
    op!("bitwise_xor", Bitwise, [F, M, I, R], "(input, other, *, out=None); either may be a Python number (input not with out=)", ["out"]),
    op!("bitwise_left_shift", Bitwise, [F, M, I, R], "(input, other, *, out=None); either may be a Python number (input not with out=)", ["out"]),
    op!("bitwise_right_shift", Bitwise, [F, M, I, R], "(input, other, *, out=None); either may be a Python number (input not with out=)", ["out"]),
    op!("gcd", Bitwise, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("lcm", Bitwise, [F, M, I], "(input, other, *, out=None)", ["out"]),
    op!("clamp", Ternary, [F, M, I], "(input, min=None, max=None, *, out=None); min and max Python numbers (or None), or tensors (or None)", ["min", "max", "out"]),
    op!("clamp_min", Ternary, [F, M, I], "(input, min, *, out=None); min a Python number or a tensor", ["out"]),
    op!("clamp_max", Ternary, [F, M, I], "(input, max, *, out=None); max a Python number or a tensor", ["out"]),
    op!("lerp", Ternary, [F, M, I], "(input, end, weight, *, out=None); weight a Python number or a tensor", ["out"]),
    op!("addcmul", Ternary, [F, M, I], "(input, tensor1, tensor2, *, value=1, out=None)", ["value", "out"]),
    op!("addcdiv", Ternary, [F, M, I], "(input, tensor1, tensor2, *, value=1, out=None)", ["value", "out"]),
    op!("masked_fill", Ternary, [F, M, I], "(input, mask, value); value a Python number or a 0-d tensor", []),
    op!("isclose", Ternary, [F, M], "(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)", ["rtol", "atol", "equal_nan"]),
    op!("equal", Ternary, [F, M], "(input, other) -> bool", []),
    op!("copy", Copy, [I], "(self, src): src a tensor or a Python number", []),
    op!("sum", Reduction, [F, M], "(input, dim=None, keepdim=False, *, dtype=None, out=None)", ["dim", "keepdim", "dtype", "out"]),
    op!("mean", Reduction, [F, M], "(input, dim=None, keepdim=False, *, dtype=None, out=None)", ["dim", "keepdim", "dtype", "out"]),
    op!("amax", Reduction, [F, M], "(input, dim=(), keepdim=False, *, out=None)", ["dim", "keepdim", "out"]),
    op!("amin", Reduction, [F, M], "(input, dim=(), keepdim=False, *, out=None)", ["dim", "keepdim", "out"]),
    op!("max", Reduction, [F, M], "(input) -> the largest element; (input, dim, keepdim=False, *, out=None) -> (values, indices), the first index of a tie; (input, other, *, out=None): two tensors, the element-wise maximum", ["dim", "keepdim", "out"]),
    op!("min", Reduction, [F, M], "(input) -> the smallest element; (input, dim, keepdim=False, *, out=None) -> (values, indices), the first index of a tie; (input, other, *, out=None): two tensors, the element-wise minimum", ["dim", "keepdim", "out"]),
    op!("var", Reduction, [F, M], "(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None); a bool second argument is unbiased", ["dim", "keepdim", "unbiased", "correction", "out"]),
    op!("std", Reduction, [F, M], "(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None); a bool second argument is unbiased", ["dim", "keepdim", "unbiased", "correction", "out"]),
    op!("matmul", Linalg, [F, M, R], "(input, other, *, out=None)", ["out"]),
    op!("mm", Linalg, [F, M], "(input, mat2)", []),
    op!("bmm", Linalg, [F, M], "(input, mat2)", []),
    op!("mv", Linalg, [F, M], "(input, vec)", []),
    op!("dot", Linalg, [F, M], "(input, other)", []),
    op!("einsum", Einsum, [F], "(equation, *operands) or (operand, sublist, ..., [sublist_out]); operands may be one list", []),
];

/// What a reflected operator calls: Python evaluates `x - t`, for `x` that does not know how
/// to subtract a tensor, as `t.__rsub__(x)`. Every one turns a `TypeError` raised inside into
/// `NotImplemented` (its result, not an error), so that Python can raise its own.
///
/// ```
/// use bcast_case::ops::{lookup, Form, Reflects};
/// let (op, form) = lookup("Tensor.__rtruediv__").unwrap();
/// assert_eq!((op.name, form), ("div", Form::Reflected));
/// let r = bcast_case::ops::reflection_of("div").unwrap();
/// assert_eq!(r.calls, Reflects::ReciprocalTimes);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reflection {
    /// The op of the catalogue it reflects.
    pub op: &'static str,
    /// Its method name (`__rsub__`).
    pub dunder: &'static str,
    /// What its body calls.
    pub calls: Reflects,
}

/// The body of a reflected operator, as torch 2.13.0 writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reflects {
    /// C++: `self.NAME(other, **kwargs)`, the method, with its arguments as given
    /// (`__radd__`, `__rmul__`, `__rand__`).
    Method(&'static str),
    /// Python, `(self, other)`: `torch.NAME(self, other)` (`__rsub__` is `torch.rsub`).
    Function(&'static str),
    /// Python, `(self, other)`: `torch.NAME(other, self)` (`__rpow__` is `torch.pow(other, self)`).
    Swapped(&'static str),
    /// Python, `(self, other)`: `self.reciprocal() * other` (`__rtruediv__`).
    ReciprocalTimes,
}

/// Every reflected operator torch defines on `Tensor` for an op of the catalogue.
pub const REFLECTIONS: &[Reflection] = &[
    Reflection {
        op: "add",
        dunder: "__radd__",
        calls: Reflects::Method("add"),
    },
    Reflection {
        op: "sub",
        dunder: "__rsub__",
        calls: Reflects::Function("rsub"),
    },
    Reflection {
        op: "mul",
        dunder: "__rmul__",
        calls: Reflects::Method("mul"),
    },
    Reflection {
        op: "div",
        dunder: "__rtruediv__",
        calls: Reflects::ReciprocalTimes,
    },
    Reflection {
        op: "div",
        dunder: "__rdiv__",
        calls: Reflects::ReciprocalTimes,
    },
    Reflection {
        op: "remainder",
        dunder: "__rmod__",
        calls: Reflects::Swapped("remainder"),
    },
    Reflection {
        op: "pow",
        dunder: "__rpow__",
        calls: Reflects::Swapped("pow"),
    },
    Reflection {
        op: "floor_divide",
        dunder: "__rfloordiv__",
        calls: Reflects::Swapped("floor_divide"),
    },
    Reflection {
        op: "bitwise_and",
        dunder: "__rand__",
        calls: Reflects::Method("bitwise_and"),
    },
    Reflection {
        op: "bitwise_or",
        dunder: "__ror__",
        calls: Reflects::Method("bitwise_or"),
    },
    Reflection {
        op: "bitwise_xor",
        dunder: "__rxor__",
        calls: Reflects::Method("bitwise_xor"),
    },
    Reflection {
        op: "bitwise_left_shift",
        dunder: "__rlshift__",
        calls: Reflects::Swapped("bitwise_left_shift"),
    },
    Reflection {
        op: "bitwise_right_shift",
        dunder: "__rrshift__",
        calls: Reflects::Swapped("bitwise_right_shift"),
    },
    Reflection {
        op: "matmul",
        dunder: "__rmatmul__",
        calls: Reflects::Swapped("matmul"),
    },
];

/// The reflected operator of an op, if torch has one (the first, where it has two names).
pub fn reflection_of(op: &str) -> Option<&'static Reflection> {
    REFLECTIONS.iter().find(|r| r.op == op)
}

/// The op and form a `fn` name calls, if the catalogue has it. A namespaced op's name keeps
/// its namespace (`torch.special.xlog1py` is the op `special.xlog1py`, a function only).
///
/// ```
/// use bcast_case::ops::{lookup, Form};
/// let (op, form) = lookup("torch.special.xlog1py").unwrap();
/// assert_eq!((op.name, form), ("special.xlog1py", Form::Function));
/// assert!(lookup("Tensor.special.xlog1py").is_none());
/// ```
pub fn lookup(fn_name: &str) -> Option<(&'static Op, Form)> {
    let (form, name) = if fn_name == "getitem" {
        (Form::Getitem, "getitem")
    } else if let Some(r) = REFLECTIONS
        .iter()
        .find(|r| fn_name.strip_prefix("Tensor.") == Some(r.dunder))
    {
        (Form::Reflected, r.op)
    } else if let Some(name) = fn_name.strip_prefix("torch.") {
        (Form::Function, name)
    } else {
        let name = fn_name.strip_prefix("Tensor.")?;
        match name.strip_suffix('_') {
            Some(base) => (Form::InPlace, base),
            None => (Form::Method, name),
        }
    };
    OPS.iter()
        .find(|op| op.name == name && op.forms.contains(&form))
        .map(|op| (op, form))
}

/// Every `fn` name of the catalogue's ops of these families.
///
/// ```
/// use bcast_case::ops::{fn_names, Family};
/// let names = fn_names(&[Family::Queries]);
/// assert_eq!(names, ["torch.numel", "Tensor.numel", "Tensor.dim", "Tensor.size"]);
/// ```
pub fn fn_names(families: &[Family]) -> Vec<String> {
    OPS.iter()
        .filter(|op| families.contains(&op.family))
        .flat_map(Op::fn_names)
        .collect()
}

/// Every `fn` name of the catalogue.
pub fn all_fn_names() -> Vec<String> {
    fn_names(&Family::ALL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_fn_name_is_listed_once_and_looks_itself_up() {
        let names = all_fn_names();
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "a name listed twice");
        for name in &names {
            let (op, form) = lookup(name).unwrap_or_else(|| panic!("{name} does not look up"));
            assert!(op.fn_names().any(|n| &n == name), "{name}");
            assert_eq!(lookup(&op.fn_name(form)), Some((op, form)));
        }
    }

    #[test]
    fn out_is_a_keyword_of_function_forms_only() {
        for op in OPS {
            if op.kwargs.contains(&"out") {
                assert!(op.forms.contains(&Form::Function), "{}", op.name);
            }
        }
    }
}
