//! Comparisons (`eq`, `ne`, `lt`, `le`, `gt`, `ge`) and the logical binary ops (`logical_and`,
//! `logical_or`, `logical_xor`): inputs promoted to their result dtype, a `bool` result, or
//! any dtype when written into `out=` or in place (`x.eq_(y)` keeps `x`'s dtype).
//!
//! ```
//! use bcast_engine::ops::{compare, CompareOp};
//! use bcast_engine::{DType, Tensor};
//! let x = Tensor::from_vec(vec![16_777_217i64], &[1]).unwrap();
//! // int64 against a Python float compares in float32, where both round to 2^24.
//! let r = compare(CompareOp::Eq, &x, 16_777_216.0, None).unwrap();
//! assert_eq!((r.dtype(), r.to_vec::<bool>().unwrap()), (DType::Bool, vec![true]));
//! ```

use super::Operand;
use crate::complex::Complex;
use crate::iter::{IterConfig, IterSetup};
use crate::loops::map_binary;
use crate::{DType, Element, Result, Tensor};

/// A comparison or logical binary op: a predicate of two elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `torch.eq`: `a == b`.
    Eq,
    /// `torch.ne`: `a != b`.
    Ne,
    /// `torch.lt`: `a < b`.
    Lt,
    /// `torch.le`: `a <= b`.
    Le,
    /// `torch.gt`: `a > b`.
    Gt,
    /// `torch.ge`: `a >= b`.
    Ge,
    /// `torch.logical_and`.
    LogicalAnd,
    /// `torch.logical_or`.
    LogicalOr,
    /// `torch.logical_xor`.
    LogicalXor,
}

impl CompareOp {
    /// Every op.
    pub const ALL: [CompareOp; 9] = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Gt,
        CompareOp::Ge,
        CompareOp::LogicalAnd,
        CompareOp::LogicalOr,
        CompareOp::LogicalXor,
    ];

    /// torch's name, e.g. `"logical_xor"`.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::LogicalAnd => "logical_and",
            CompareOp::LogicalOr => "logical_or",
            CompareOp::LogicalXor => "logical_xor",
        }
    }

    /// Parses [`CompareOp::name`] or one of torch's aliases (`greater`, `less_equal`, ...).
    pub fn from_name(name: &str) -> Option<CompareOp> {
        let name = match name {
            "not_equal" => "ne",
            "less" => "lt",
            "less_equal" => "le",
            "greater" => "gt",
            "greater_equal" => "ge",
            other => other,
        };
        CompareOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether this is a logical op (operands taken as true when non-zero).
    pub fn is_logical(self) -> bool {
        matches!(
            self,
            CompareOp::LogicalAnd | CompareOp::LogicalOr | CompareOp::LogicalXor
        )
    }

    /// The predicate on two elements of one dtype (NaN compares unequal to everything).
    pub fn apply<T: Element + PartialOrd>(self, a: T, b: T) -> bool {
        let truth = |v: T| v.cast::<bool>();
        match self {
            CompareOp::Eq => a == b,
            CompareOp::Ne => a != b,
            CompareOp::Lt => a < b,
            CompareOp::Le => a <= b,
            CompareOp::Gt => a > b,
            CompareOp::Ge => a >= b,
            CompareOp::LogicalAnd => truth(a) && truth(b),
            CompareOp::LogicalOr => truth(a) || truth(b),
            CompareOp::LogicalXor => truth(a) != truth(b),
        }
    }
}

/// `torch.NAME(a, b, out=out)` (or `a.NAME(b)`). Returns a new `bool` tensor, or `out`
/// (resized when its shape differed) holding 0/1 in its own dtype.
///
/// # Errors
/// torch's, in its order: overlap of `out`, shapes that do not broadcast, the shape of `out`
/// where it cannot be resized. Any output dtype is accepted.
pub fn compare(
    op: CompareOp,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    compare_operands(op, a.into(), b.into(), out)
}

/// [`compare`] with its operands converted (compiled once, not once per caller's types).
fn compare_operands(op: CompareOp, a: Operand, b: Operand, out: Option<&Tensor>) -> Result<Tensor> {
    let mut setup = IterSetup::new(
        IterConfig::default(),
        out,
        vec![a.into_input(), b.into_input()],
    )?;
    let common = setup.result_type();
    // torch writes a non-bool output through a temporary of the common dtype; one of bool
    // holds the same 0/1 values.
    setup.compute_output_in(DType::Bool)?;
    setup.promote_inputs(common)?;
    let iter = setup.finish(DType::Bool)?;
    let (o, x, y) = (
        iter.output(),
        iter.inputs()[0].as_tensor(),
        iter.inputs()[1].as_tensor(),
    );
    crate::element::dispatch_real!(common, T => compare_real::<T>(op, o, x, y),
    complex => match complex {
        DType::Complex32 => compare_complex_half(op, o, x, y),
        DType::Complex64 => compare_complex::<f32>(op, o, x, y),
        _ => compare_complex::<f64>(op, o, x, y),
    })?;
    iter.into_result()
}

/// [`CompareOp::apply`] over every element, the op chosen before the loop (each loop one
/// plain predicate, which vectorises).
fn compare_real<T: Element + PartialOrd>(
    op: CompareOp,
    o: &Tensor,
    x: &Tensor,
    y: &Tensor,
) -> Result<()> {
    let truth = |v: T| v.cast::<bool>();
    match op {
        CompareOp::Eq => map_binary(o, x, y, |p: T, q: T| p == q),
        CompareOp::Ne => map_binary(o, x, y, |p: T, q: T| p != q),
        CompareOp::Lt => map_binary(o, x, y, |p: T, q: T| p < q),
        CompareOp::Le => map_binary(o, x, y, |p: T, q: T| p <= q),
        CompareOp::Gt => map_binary(o, x, y, |p: T, q: T| p > q),
        CompareOp::Ge => map_binary(o, x, y, |p: T, q: T| p >= q),
        CompareOp::LogicalAnd => map_binary(o, x, y, move |p: T, q: T| truth(p) & truth(q)),
        CompareOp::LogicalOr => map_binary(o, x, y, move |p: T, q: T| truth(p) | truth(q)),
        CompareOp::LogicalXor => map_binary(o, x, y, move |p: T, q: T| truth(p) != truth(q)),
    }
}

/// Complex numbers have `==`, `!=` and the logical ops, no order.
fn compare_complex<T: crate::ops::real::Real>(
    op: CompareOp,
    o: &Tensor,
    x: &Tensor,
    y: &Tensor,
) -> Result<()>
where
    Complex<T>: Element,
{
    match op {
        CompareOp::Lt | CompareOp::Le | CompareOp::Gt | CompareOp::Ge => Err(
            super::not_implemented(&format!("{}_cpu", op.name()), Complex::<T>::DTYPE),
        ),
        _ => map_binary(o, x, y, move |p: Complex<T>, q: Complex<T>| match op {
            CompareOp::Eq => p == q,
            CompareOp::Ne => p != q,
            CompareOp::LogicalAnd => p.cast::<bool>() && q.cast::<bool>(),
            CompareOp::LogicalOr => p.cast::<bool>() || q.cast::<bool>(),
            _ => p.cast::<bool>() != q.cast::<bool>(),
        }),
    }
}

/// `complex32` has `==` and `!=` (both parts compared as `float16`); torch names its kernel
/// for the others.
fn compare_complex_half(op: CompareOp, o: &Tensor, x: &Tensor, y: &Tensor) -> Result<()> {
    use super::complex_half::{eq, C32};
    match op {
        CompareOp::Eq => map_binary(o, x, y, eq),
        CompareOp::Ne => map_binary(o, x, y, |p: C32, q: C32| !eq(p, q)),
        _ => Err(super::not_implemented(
            &format!("{}_cpu", op.name()),
            DType::Complex32,
        )),
    }
}

/// `a.NAME_(b)`: the result written into `a`, in `a`'s dtype.
///
/// # Errors
/// As for [`compare`], with `a` as the output.
pub fn compare_(op: CompareOp, a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare_in_place(op, a, b.into())
}

/// [`compare_`] with its operands converted (compiled once, not once per caller's types).
fn compare_in_place(op: CompareOp, a: &Tensor, b: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::compare_op_(op, a, b);
    }
    compare_operands(op, a.into(), b, Some(a))
}
