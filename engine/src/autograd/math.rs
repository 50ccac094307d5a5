//! Shorthands for the ATen calls torch's backward formulas make, each one of the engine's
//! ops (recording is off while a backward runs), so that a formula reads as torch writes it.

use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::ops::{
    binary, compare, copy_, masked_fill, r#where, unary, BinaryOp, CompareOp, Operand, UnaryOp,
};
use crate::{DType, Result, Scalar, Tensor};

pub(super) use super::complex_views::{conj, handle_r_to_c};

/// `a * b`.
pub(super) fn mul(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Mul, a, b, None)
}

/// `a / b`.
pub(super) fn div(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Div, a, b, None)
}

/// `a + b`.
pub(super) fn add(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Add(Scalar::Int(1)), a, b, None)
}

/// `a - b`.
pub(super) fn sub(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Sub(Scalar::Int(1)), a, b, None)
}

/// `-t`.
pub(super) fn neg(t: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::Neg, t, None)
}

/// `a OP b` for a comparison or logical op.
pub(super) fn cmp(op: CompareOp, a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    compare(op, a, b, None)
}

/// `at::where(condition, a, b)`.
pub(super) fn select(c: &Tensor, a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    r#where(c, a, b, None)
}

/// `t.masked_fill(mask, 0)`.
pub(super) fn fill_zero(t: &Tensor, mask: &Tensor) -> Result<Tensor> {
    masked_fill(t, mask, Scalar::Int(0))
}

/// `at::zeros_like(t)`: zeros laid out as `t` (torch's `preserve_format`).
pub(super) fn zeros_like(t: &Tensor) -> Result<Tensor> {
    t.empty_like(t.dtype())
}

/// `at::zeros(sizes, options)`: contiguous zeros (also `zeros_like` of a tensor a formula
/// did not save, of which torch keeps only the sizes and options).
pub(super) fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::zeros(shape, dtype)
}

/// `at::scalar_tensor(0., grad.options())`: a 0-d zero of `dtype` (a tensor, not a wrapped
/// number, for type promotion).
pub(super) fn scalar_zero(dtype: DType) -> Tensor {
    Tensor::scalar_tensor(Scalar::Int(0), dtype)
}

/// The complex conjugate of a number.
pub(super) fn conj_scalar(s: Scalar) -> Scalar {
    match s {
        Scalar::Complex(re, im) => Scalar::Complex(re, -im),
        other => other,
    }
}

/// torch's `maybe_multiply`: `t` itself when `s` is 1, else `t * s`.
pub(super) fn maybe_multiply(t: Tensor, s: Scalar) -> Result<Tensor> {
    let one = match s {
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
        _ => false,
    };
    if one {
        Ok(t)
    } else {
        mul(t, s)
    }
}

/// `t.sgn()`: `sign` of a real tensor; `z / |z|` (0 at 0) of a complex one, laid out as
/// torch's `sgn` kernel (a unary TensorIterator op on `t`) lays it out: `|z|` keeps `t`'s
/// layout as `empty_like` does, strides of size-1 dims included, and a `where` over it would
/// too, where the kernel's output gives a size-1 dim the stride of its place in the memory
/// order (torch 2.13.0: `t` of shape `[2, 4, 1]` and strides `[4, 1, 8]` gives `[4, 1, 1]`),
/// which the gradient `grad * t.sgn()` then takes.
///
/// `complex32` has a kernel of its own in torch (`sgn_cpu`, where `div` has none): the
/// modulus rounded to `float16`, the quotient in `float32` as `c10::complex`'s division by a
/// real `c` computes it (`z · (1 / c)`, so an infinite part gives `NaN` in both), rounded back.
pub(super) fn sgn(t: &Tensor) -> Result<Tensor> {
    if !t.dtype().is_complex() {
        return unary(UnaryOp::Sign, t, None);
    }
    let abs = unary(UnaryOp::Abs, t, None)?;
    let zero = cmp(CompareOp::Eq, &abs, Scalar::Int(0))?;
    let values = if t.dtype() == DType::Complex32 {
        let scale = div(Scalar::Float(1.0), &abs.to_dtype(DType::Float32)?)?;
        let quotient = mul(&t.to_dtype(DType::Complex64)?, &scale)?;
        select(&zero, Scalar::Int(0), &quotient)?.to_dtype(DType::Complex32)?
    } else {
        select(&zero, Scalar::Int(0), div(t, &abs)?)?
    };
    let out = IterSetup::new(IterConfig::default(), None, vec![IterInput::tensor(t)])?
        .finish(t.dtype())?
        .into_result()?;
    copy_(&out, &values)
}
