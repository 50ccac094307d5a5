//! Two-input arithmetic: `add` and `sub` (with `alpha`), `mul`, true division `div`, `pow`,
//! `maximum`, `minimum`, `remainder`, with torch's dtype rules and checks.
//!
//! ```
//! use bcast_engine::ops::{binary, BinaryOp};
//! use bcast_engine::{DType, Tensor};
//! let a = Tensor::from_vec(vec![1i64, 2, 3], &[3, 1]).unwrap();
//! let b = Tensor::from_vec(vec![2i64, 4], &[2]).unwrap();
//! let q = binary(BinaryOp::Div, &a, &b, None).unwrap();
//! assert_eq!((q.shape(), q.dtype()), (&[3, 2][..], DType::Float32));
//! assert_eq!(q.to_vec::<f32>().unwrap(), vec![0.5, 0.25, 1.0, 0.5, 1.5, 0.75]);
//! let s = binary(BinaryOp::Add(1.into()), &a, 0.5, None).unwrap();
//! assert_eq!(s.dtype(), DType::Float32);
//! ```

use super::integer;
use super::integer::Int;
use super::pow::{pow_number_tensor, pow_tensor_number};
use super::real::{self, Real};
use super::{not_implemented, Operand};
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{Iter, IterConfig, IterInput, IterSetup};
use crate::loops::map_binary;
use crate::result_type::is_integral_or_bool;
use crate::{DType, Element, Error, Result, Scalar, Tensor};
use std::sync::atomic::{AtomicBool, Ordering};

/// A two-input arithmetic op. `Add` and `Sub` carry torch's `alpha` (`a + alpha * b`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinaryOp {
    /// `torch.add(a, b, alpha=alpha)`: `a + alpha * b`.
    Add(Scalar),
    /// `torch.sub(a, b, alpha=alpha)`: `a - alpha * b`.
    Sub(Scalar),
    /// `torch.mul`.
    Mul,
    /// `torch.div` (true division).
    Div,
    /// `torch.pow`.
    Pow,
    /// `torch.maximum`.
    Maximum,
    /// `torch.minimum`.
    Minimum,
    /// `torch.remainder` (the result takes the divisor's sign).
    Remainder,
}

impl BinaryOp {
    /// Every op, `alpha` 1 where it has one.
    pub const ALL: [BinaryOp; 8] = [
        BinaryOp::Add(Scalar::Int(1)),
        BinaryOp::Sub(Scalar::Int(1)),
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Remainder,
    ];

    /// torch's name, e.g. `"remainder"`.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add(_) => "add",
            BinaryOp::Sub(_) => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Remainder => "remainder",
        }
    }

    /// Parses [`BinaryOp::name`] or one of torch's aliases (`subtract`, `multiply`, `divide`,
    /// `true_divide`), with `alpha` 1.
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        let name = match name {
            "subtract" => "sub",
            "multiply" => "mul",
            "divide" | "true_divide" => "div",
            other => other,
        };
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The same op with another `alpha`; `None` for ops without one.
    pub fn with_alpha(self, alpha: Scalar) -> Option<BinaryOp> {
        match self {
            BinaryOp::Add(_) => Some(BinaryOp::Add(alpha)),
            BinaryOp::Sub(_) => Some(BinaryOp::Sub(alpha)),
            _ => None,
        }
    }
}

/// torch's `sub_check`: no bool operand (a Python `True` counts).
fn sub_check(a: DType, b: DType) -> Result<()> {
    if a == DType::Bool && b == DType::Bool {
        return Err(Error::runtime("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."));
    }
    if a == DType::Bool || b == DType::Bool {
        return Err(Error::runtime("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."));
    }
    Ok(())
}

/// torch's error for an integer division by zero, raised from inside its loop.
fn zero_division() -> Error {
    Error::runtime("ZeroDivisionError")
}

/// torch's `alpha_check` against the computation dtype.
fn alpha_check(dtype: DType, alpha: Scalar) -> Result<()> {
    if alpha.is_bool() && dtype != DType::Bool {
        return Err(Error::runtime(
            "Boolean alpha only supported for Boolean results.",
        ));
    }
    // torch checks "integral" first: a complex alpha is not integral either.
    if crate::result_type::is_integral_or_bool(dtype) && (alpha.is_float() || alpha.is_complex()) {
        return Err(Error::runtime(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    if !dtype.is_complex() && alpha.is_complex() {
        return Err(Error::runtime(
            "For non-complex input tensors, argument alpha must not be a complex number.",
        ));
    }
    Ok(())
}

/// `torch.NAME(a, b, out=out)` (or `a.NAME(b)` without `out`). Either operand may be a Python
/// number. Returns the new tensor, or `out` (resized when its shape differed).
///
/// # Errors
/// torch's, in its order: bool subtraction; overlap of `out`; shapes that do not broadcast;
/// the shape of `out` where it cannot be resized; a result dtype `out` cannot hold; `alpha`;
/// ops not implemented for bool; integer `remainder` by zero.
pub fn binary(
    op: BinaryOp,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let (a, b) = (a.into(), b.into());
    if op == BinaryOp::Pow {
        match (&a, &b) {
            (Operand::Tensor(base), Operand::Number(e)) => return pow_tensor_number(base, *e, out),
            (Operand::Number(base), Operand::Tensor(e)) => return pow_number_tensor(*base, e, out),
            _ => {}
        }
    }
    binary_inputs(op, a.input(), b.input(), out)
}

/// [`binary`] on iteration inputs, without `pow`'s number forms (which call it).
pub(crate) fn binary_inputs(
    op: BinaryOp,
    a: IterInput,
    b: IterInput,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if let BinaryOp::Sub(_) = op {
        sub_check(a.as_tensor().dtype(), b.as_tensor().dtype())?;
    }
    if matches!(op, BinaryOp::Maximum | BinaryOp::Minimum)
        && (a.as_tensor().dtype().is_complex() || b.as_tensor().dtype().is_complex())
    {
        return Err(Error::runtime(format!(
            "{} not implemented for complex tensors.",
            op.name()
        )));
    }
    // torch's `mul` and `div` kernels on float16/bfloat16 read a divisor or factor that is one
    // element (a number, a 0-d or broadcast one-element tensor) in float32 from its original
    // dtype, without rounding it to the computation dtype.
    let wide_scalar = (b.as_tensor().numel() == 1)
        .then(|| b.as_tensor().get_flat(0))
        .flatten();
    let mut setup = IterSetup::new(IterConfig::default(), out, vec![a, b])?;
    let mut common = setup.result_type()?;
    if op == BinaryOp::Div && is_integral_or_bool(common) {
        common = DType::Float32;
    }
    setup.check_safe_cast(common)?;
    setup.compute_output_in(common)?;
    setup.promote_inputs(common)?;
    let iter = setup.finish(common)?;
    if let BinaryOp::Add(alpha) | BinaryOp::Sub(alpha) = op {
        alpha_check(common, alpha)?;
    }
    match wide_scalar {
        Some(s) if common.is_reduced_float() && matches!(op, BinaryOp::Mul | BinaryOp::Div) => {
            run_reduced_by_scalar(op, &iter, common, f32::from_scalar(s))?
        }
        _ => run(op, &iter, common)?,
    }
    iter.into_result()
}

/// `a.NAME_(b)`: the op written into `a` itself.
///
/// # Errors
/// As for [`binary`], with `a` as the output.
pub fn binary_(op: BinaryOp, a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(op, a, b, Some(a))
}

/// `alpha` as the kernel uses it: negated for `sub`.
fn signed_alpha(op: BinaryOp) -> Scalar {
    match op {
        BinaryOp::Sub(Scalar::Int(i)) => Scalar::Int(i.wrapping_neg()),
        BinaryOp::Sub(Scalar::Float(f)) => Scalar::Float(-f),
        BinaryOp::Sub(Scalar::Complex(re, im)) => Scalar::Complex(-re, -im),
        BinaryOp::Add(alpha) | BinaryOp::Sub(alpha) => alpha,
        _ => Scalar::Int(1),
    }
}

fn run(op: BinaryOp, iter: &Iter, dtype: DType) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    let alpha = signed_alpha(op);
    match dtype {
        DType::Bool => {
            let al = alpha.to_bool();
            match op {
                BinaryOp::Add(_) => map_binary(out, a, b, move |x: bool, y: bool| x | (al & y)),
                BinaryOp::Mul | BinaryOp::Minimum => {
                    map_binary(out, a, b, |x: bool, y: bool| x & y)
                }
                BinaryOp::Maximum => map_binary(out, a, b, |x: bool, y: bool| x | y),
                BinaryOp::Pow => Err(not_implemented("pow", DType::Bool)),
                BinaryOp::Remainder => Err(not_implemented("remainder_cpu", DType::Bool)),
                BinaryOp::Sub(_) | BinaryOp::Div => {
                    Err(Error::internal(format!("{} on bool", op.name())))
                }
            }
        }
        DType::UInt8 => run_int::<u8>(op, iter, alpha),
        DType::Int8 => run_int::<i8>(op, iter, alpha),
        DType::Int16 => run_int::<i16>(op, iter, alpha),
        DType::Int32 => run_int::<i32>(op, iter, alpha),
        DType::Int64 => run_int::<i64>(op, iter, alpha),
        DType::Float16 => run_reduced::<Half>(op, out, a, b, alpha),
        DType::BFloat16 => run_reduced::<BFloat16>(op, out, a, b, alpha),
        DType::Float32 => run_real::<f32>(op, out, a, b, alpha),
        DType::Float64 => run_real::<f64>(op, out, a, b, alpha),
        DType::Complex64 => run_complex::<f32>(op, out, a, b, alpha),
        DType::Complex128 => run_complex::<f64>(op, out, a, b, alpha),
    }
}

fn run_int<T: Int>(op: BinaryOp, iter: &Iter, alpha: Scalar) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    let al = T::from_scalar(alpha);
    match op {
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinaryOp::Mul => map_binary(out, a, b, T::wmul),
        BinaryOp::Pow => map_binary(out, a, b, integer::powi::<T>),
        BinaryOp::Maximum => map_binary(out, a, b, |x: T, y: T| x.max(y)),
        BinaryOp::Minimum => map_binary(out, a, b, |x: T, y: T| x.min(y)),
        BinaryOp::Remainder => {
            if iter.numel() > 0 && b.to_vec::<T>()?.contains(&T::ZERO) {
                return Err(zero_division());
            }
            // The divisor can still become 0 mid-loop when the output aliases it
            // (torch lets some such overlaps through); torch checks every element.
            let divided_by_zero = AtomicBool::new(false);
            map_binary(out, a, b, |x: T, y: T| {
                if y == T::ZERO {
                    divided_by_zero.store(true, Ordering::Relaxed);
                    return T::ZERO;
                }
                integer::remainder(x, y)
            })?;
            if divided_by_zero.load(Ordering::Relaxed) {
                return Err(zero_division());
            }
            Ok(())
        }
        BinaryOp::Div => Err(Error::internal("div on an integer dtype")),
    }
}

/// One element of a real op, as the generic loops compute it.
#[inline]
fn real_op<T: Real>(op: BinaryOp, al: T, x: T, y: T) -> T {
    match op {
        BinaryOp::Add(_) | BinaryOp::Sub(_) => x + al * y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Pow => x.powf(y),
        BinaryOp::Maximum => real::maximum(x, y),
        BinaryOp::Minimum => real::minimum(x, y),
        BinaryOp::Remainder => real::remainder(x, y),
    }
}

/// `mul` or `div` of `float16`/`bfloat16` by one element `s`, kept in `float32`.
fn run_reduced_by_scalar(op: BinaryOp, iter: &Iter, dtype: DType, s: f32) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    fn go<T: Element>(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor, s: f32) -> Result<()> {
        if op == BinaryOp::Mul {
            map_binary(out, a, b, move |x: T, _: T| {
                T::from_f32(x.cast::<f32>() * s)
            })
        } else {
            map_binary(out, a, b, move |x: T, _: T| {
                T::from_f32(x.cast::<f32>() / s)
            })
        }
    }
    if dtype == DType::Float16 {
        go::<Half>(op, out, a, b, s)
    } else {
        go::<BFloat16>(op, out, a, b, s)
    }
}

/// `float16` and `bfloat16`: computed in `float32`, rounded once; `alpha` rounded to the
/// dtype first.
fn run_reduced<T: Element>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()> {
    let al = T::from_scalar(alpha).cast::<f32>();
    map_binary(out, a, b, move |x: T, y: T| {
        T::from_f32(real_op::<f32>(op, al, x.cast::<f32>(), y.cast::<f32>()))
    })
}

fn run_complex<T: Real>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()>
where
    Complex<T>: Element,
{
    use super::complex_math as c;
    let al = Complex::<T>::from_scalar(alpha);
    match op {
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary(out, a, b, move |x: Complex<T>, y| c::add(x, c::mul(al, y)))
        }
        BinaryOp::Mul => map_binary(out, a, b, c::mul::<T>),
        BinaryOp::Div => map_binary(out, a, b, c::div::<T>),
        BinaryOp::Pow => map_binary(out, a, b, c::pow::<T>),
        BinaryOp::Remainder => Err(not_implemented("remainder_cpu", out.dtype())),
        // `binary` refuses complex maximum/minimum before any loop runs.
        BinaryOp::Maximum | BinaryOp::Minimum => Err(Error::internal(
            "complex maximum/minimum reached the complex loops",
        )),
    }
}

fn run_real<T: Real>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()> {
    let al = T::from_scalar(alpha);
    match op {
        // torch's kernel is `fmadd(b, alpha, a)`, one rounding (ufunc/add.h); with alpha 1 or
        // -1 that is the plain sum or difference, which keeps the vectorised loop.
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == T::ONE => {
            map_binary(out, a, b, |x: T, y: T| x + y)
        }
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == -T::ONE => {
            map_binary(out, a, b, |x: T, y: T| x - y)
        }
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary(out, a, b, move |x: T, y: T| y.mul_add(al, x))
        }
        BinaryOp::Mul => map_binary(out, a, b, |x: T, y: T| x * y),
        BinaryOp::Div => map_binary(out, a, b, |x: T, y: T| x / y),
        BinaryOp::Pow => map_binary(out, a, b, T::powf),
        BinaryOp::Maximum => map_binary(out, a, b, real::maximum::<T>),
        BinaryOp::Minimum => map_binary(out, a, b, real::minimum::<T>),
        BinaryOp::Remainder => map_binary(out, a, b, real::remainder::<T>),
    }
}
