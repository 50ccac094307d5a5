//! Two-input arithmetic: `add` and `sub` (with `alpha`), `mul`, true division `div`, `pow`,
//! `maximum`, `minimum`, `remainder`, and the math ops ([`BinaryOp::MATH`]: rounding
//! division, `fmod`, `atan2`, ..., whose loops are in `binary_math`), with torch's dtype rules
//! and checks.
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

use super::binary_math;
use super::integer;
use super::integer::Int;
use super::ldexp::ldexp;
use super::pow::{float_power, pow_number_tensor, pow_tensor_number};
use super::real::{self, Real};
use super::{not_implemented, Operand};
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{Iter, IterConfig, IterInput, IterSetup};
use crate::loops::{map_binary, map_binary_guarded, map_binary_run, map_binary_widened};
use crate::result_type::is_integral_or_bool;
use crate::{DType, Element, Error, Result, Scalar, Tensor};

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
    /// `torch.div(a, b, rounding_mode='trunc')`.
    DivTrunc,
    /// `torch.div(a, b, rounding_mode='floor')`, `torch.floor_divide`.
    DivFloor,
    /// `torch.fmod` (the result takes the dividend's sign).
    Fmod,
    /// `torch.atan2` (`arctan2`).
    Atan2,
    /// `torch.hypot`.
    Hypot,
    /// `torch.copysign`.
    Copysign,
    /// `torch.nextafter`.
    Nextafter,
    /// `torch.ldexp`: `a * 2^b`.
    Ldexp,
    /// `torch.logaddexp`.
    Logaddexp,
    /// `torch.logaddexp2`.
    Logaddexp2,
    /// `torch.xlogy` (`torch.special.xlogy`).
    Xlogy,
    /// `torch.special.xlog1py`.
    Xlog1py,
    /// `torch.special.zeta` (Hurwitz).
    Zeta,
    /// `torch.float_power`: `pow` in `float64` or `complex128`.
    FloatPower,
    /// `torch.heaviside`.
    Heaviside,
    /// `torch.fmax` (NaN-ignoring).
    Fmax,
    /// `torch.fmin` (NaN-ignoring).
    Fmin,
    /// `torch.rsub(a, b, alpha=alpha)`: `b - alpha * a`.
    Rsub(Scalar),
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

    /// The math ops: the ones torch's OpInfo database lists among the binary ufuncs beyond
    /// [`BinaryOp::ALL`], `alpha` 1 for `rsub`.
    pub const MATH: [BinaryOp; 18] = [
        BinaryOp::DivTrunc,
        BinaryOp::DivFloor,
        BinaryOp::Fmod,
        BinaryOp::Atan2,
        BinaryOp::Hypot,
        BinaryOp::Copysign,
        BinaryOp::Nextafter,
        BinaryOp::Ldexp,
        BinaryOp::Logaddexp,
        BinaryOp::Logaddexp2,
        BinaryOp::Xlogy,
        BinaryOp::Xlog1py,
        BinaryOp::Zeta,
        BinaryOp::FloatPower,
        BinaryOp::Heaviside,
        BinaryOp::Fmax,
        BinaryOp::Fmin,
        BinaryOp::Rsub(Scalar::Int(1)),
    ];

    /// Whether this is one of [`BinaryOp::MATH`].
    pub fn is_math(self) -> bool {
        !matches!(
            self,
            BinaryOp::Add(_)
                | BinaryOp::Sub(_)
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Pow
                | BinaryOp::Maximum
                | BinaryOp::Minimum
                | BinaryOp::Remainder
        )
    }

    /// The `rounding_mode` keyword `div` takes for this op (`DivTrunc`, `DivFloor`).
    pub fn rounding_mode(self) -> Option<&'static str> {
        match self {
            BinaryOp::DivTrunc => Some("trunc"),
            BinaryOp::DivFloor => Some("floor"),
            _ => None,
        }
    }

    /// `div` with a `rounding_mode` (`None`, `"trunc"` or `"floor"`).
    ///
    /// ```
    /// use bcast_engine::ops::BinaryOp;
    /// assert_eq!(BinaryOp::div_with_mode(Some("floor")).unwrap(), BinaryOp::DivFloor);
    /// let err = BinaryOp::div_with_mode(Some("round")).unwrap_err();
    /// assert_eq!(err.message(), "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
    /// ```
    ///
    /// # Errors
    /// Any other mode, with torch's message.
    pub fn div_with_mode(mode: Option<&str>) -> Result<BinaryOp> {
        match mode {
            None => Ok(BinaryOp::Div),
            Some("trunc") => Ok(BinaryOp::DivTrunc),
            Some("floor") => Ok(BinaryOp::DivFloor),
            Some(other) => Err(Error::runtime(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
            ))),
        }
    }

    /// torch's name, e.g. `"remainder"`; the rounding divisions are `"div"` (with
    /// [`BinaryOp::rounding_mode`]), the `torch.special` ops `"special.xlog1py"` and
    /// `"special.zeta"`.
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
            BinaryOp::DivTrunc | BinaryOp::DivFloor => "div",
            BinaryOp::Fmod => "fmod",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::Hypot => "hypot",
            BinaryOp::Copysign => "copysign",
            BinaryOp::Nextafter => "nextafter",
            BinaryOp::Ldexp => "ldexp",
            BinaryOp::Logaddexp => "logaddexp",
            BinaryOp::Logaddexp2 => "logaddexp2",
            BinaryOp::Xlogy => "xlogy",
            BinaryOp::Xlog1py => "special.xlog1py",
            BinaryOp::Zeta => "special.zeta",
            BinaryOp::FloatPower => "float_power",
            BinaryOp::Heaviside => "heaviside",
            BinaryOp::Fmax => "fmax",
            BinaryOp::Fmin => "fmin",
            BinaryOp::Rsub(_) => "rsub",
        }
    }

    /// Parses [`BinaryOp::name`] or one of torch's aliases (`subtract`, `multiply`, `divide`,
    /// `true_divide`, `floor_divide`, `arctan2`, `special.xlogy`), with `alpha` 1 (`div` is
    /// true division).
    ///
    /// ```
    /// use bcast_engine::ops::BinaryOp;
    /// assert_eq!(BinaryOp::from_name("floor_divide"), Some(BinaryOp::DivFloor));
    /// assert_eq!(BinaryOp::from_name("special.xlogy"), Some(BinaryOp::Xlogy));
    /// assert_eq!(BinaryOp::from_name("special.xlog1py"), Some(BinaryOp::Xlog1py));
    /// ```
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        let name = match name {
            "subtract" => "sub",
            "multiply" => "mul",
            "divide" | "true_divide" => "div",
            "floor_divide" => return Some(BinaryOp::DivFloor),
            "arctan2" => "atan2",
            "special.xlogy" => "xlogy",
            other => other,
        };
        BinaryOp::ALL
            .into_iter()
            .chain(BinaryOp::MATH)
            .find(|op| op.name() == name)
    }

    /// The same op with another `alpha`; `None` for ops without one.
    pub fn with_alpha(self, alpha: Scalar) -> Option<BinaryOp> {
        match self {
            BinaryOp::Add(_) => Some(BinaryOp::Add(alpha)),
            BinaryOp::Sub(_) => Some(BinaryOp::Sub(alpha)),
            BinaryOp::Rsub(_) => Some(BinaryOp::Rsub(alpha)),
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
    binary_operands(op, a.into(), b.into(), out)
}

/// [`binary`] with its operands converted (compiled once, not once per caller's types).
fn binary_operands(op: BinaryOp, a: Operand, b: Operand, out: Option<&Tensor>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::binary_op(op, a, b, out);
    }
    if op == BinaryOp::FloatPower {
        return float_power(a, b, out, false);
    }
    if op == BinaryOp::Pow {
        match (&a, &b) {
            (Operand::Tensor(base), Operand::Number(e)) => return pow_tensor_number(base, *e, out),
            (Operand::Number(base), Operand::Tensor(e)) => return pow_number_tensor(*base, e, out),
            _ => {}
        }
    }
    binary_inputs(op, a.into_input(), b.into_input(), out)
}

/// [`binary`] on iteration inputs, without `pow`'s number forms (which call it).
pub(crate) fn binary_inputs(
    op: BinaryOp,
    a: IterInput,
    b: IterInput,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    match op {
        BinaryOp::Rsub(alpha) => return binary_inputs(BinaryOp::Sub(alpha), b, a, out),
        BinaryOp::Ldexp => return ldexp(&a, &b, out),
        BinaryOp::FloatPower => {
            let operand = |i: IterInput| match i.number_value() {
                Some(n) => Operand::Number(n),
                None => Operand::Tensor(i.as_tensor().clone()),
            };
            return float_power(operand(a), operand(b), out, false);
        }
        BinaryOp::Heaviside => heaviside_check(&a, &b, out)?,
        _ => {}
    }
    if let BinaryOp::Sub(_) = op {
        sub_check(a.as_tensor().dtype(), b.as_tensor().dtype())?;
    }
    if matches!(
        op,
        BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Fmax | BinaryOp::Fmin
    ) && (a.as_tensor().dtype().is_complex() || b.as_tensor().dtype().is_complex())
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
    let mut common = setup.result_type();
    let float_op = op == BinaryOp::Div || binary_math::promotes_integers(op);
    if float_op && is_integral_or_bool(common) {
        common = DType::Float32;
    }
    setup.check_safe_cast(common)?;
    setup.compute_output_in(common)?;
    setup.promote_inputs(common)?;
    let iter = setup.finish(common)?;
    if let BinaryOp::Add(alpha) | BinaryOp::Sub(alpha) = op {
        alpha_check(common, alpha)?;
        // The kernel reads `alpha` as the computation type (`Scalar::to<scalar_t>`), empty or
        // not: `int8` refuses 300, `float16` 70000; `to<bool>` is `!= 0`, never refused.
        if common != DType::Bool {
            alpha.check_fits(common)?;
        }
    }
    match wide_scalar {
        Some(s) if common.is_reduced_float() && matches!(op, BinaryOp::Mul | BinaryOp::Div) => {
            run_reduced_by_scalar(op, &iter, common, f32::from_scalar(s))?
        }
        _ if op.is_math() => {
            let divisor = wide_scalar
                .filter(|_| op.rounding_mode().is_some())
                .map(f32::from_scalar);
            binary_math::run(op, &iter, common, divisor)?
        }
        _ => run(op, &iter, common)?,
    }
    iter.into_result()
}

/// `a.NAME_(b)`: the op written into `a` itself.
///
/// # Errors
/// As for [`binary`], with `a` as the output (`float_power_` words its dtype check for the
/// base).
pub fn binary_(op: BinaryOp, a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary_in_place(op, a, b.into())
}

/// [`binary_`] with its operands converted (compiled once, not once per caller's types).
fn binary_in_place(op: BinaryOp, a: &Tensor, b: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::binary_op_(op, a, b);
    }
    if op == BinaryOp::FloatPower {
        return float_power(Operand::Tensor(a.clone()), b, Some(a), true);
    }
    binary_operands(op, a.into(), b, Some(a))
}

/// torch's `heaviside` checks, before broadcasting: no complex operand (the output
/// included), and one dtype for all.
fn heaviside_check(a: &IterInput, b: &IterInput, out: Option<&Tensor>) -> Result<()> {
    let (x, y) = (a.as_tensor().dtype(), b.as_tensor().dtype());
    let out = out.map(Tensor::dtype);
    if x.is_complex() || y.is_complex() || out.is_some_and(DType::is_complex) {
        return Err(Error::runtime(
            "heaviside is not yet implemented for complex tensors.",
        ));
    }
    if x != y || out.is_some_and(|o| o != x) {
        return Err(Error::runtime(
            "heaviside is not yet implemented for tensors with different dtypes.",
        ));
    }
    Ok(())
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
                _ => Err(Error::internal(format!("{} on bool", op.name()))),
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
        DType::Complex32 => run_complex_half(op, out, a, b, alpha),
        DType::Complex64 => run_complex::<f32>(op, out, a, b, alpha),
        DType::Complex128 => run_complex::<f64>(op, out, a, b, alpha),
    }
}

fn run_int<T: Int>(op: BinaryOp, iter: &Iter, alpha: Scalar) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    let al = T::from_scalar(alpha);
    match op {
        // `x + 1 * y` and `x + -1 * y` are the plain (wrapping) sum and difference: without
        // the multiply, which for `uint8` and `int8` costs a widening, the loop is one add.
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == T::ONE => map_binary(out, a, b, T::wadd),
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == T::ONE.wneg() => {
            map_binary(out, a, b, |x: T, y: T| x.wadd(y.wneg()))
        }
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinaryOp::Mul => map_binary(out, a, b, T::wmul),
        BinaryOp::Pow => map_binary(out, a, b, integer::powi::<T>),
        BinaryOp::Maximum => map_binary(out, a, b, |x: T, y: T| x.max(y)),
        BinaryOp::Minimum => map_binary(out, a, b, |x: T, y: T| x.min(y)),
        BinaryOp::Remainder => binary_math::checked_division(iter, integer::remainder::<T>),
        BinaryOp::Div => Err(Error::internal("div on an integer dtype")),
        _ => Err(Error::internal("a math op reached the arithmetic loops")),
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
/// dtype first. The op is chosen before the loop, so each loop is one plain closure.
fn run_reduced<T: crate::half::WidenSlice>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()> {
    let al = T::from_scalar(alpha).cast::<f32>();
    match op {
        // `x + 1 * y` and `x + -1 * y` are the plain sum and difference.
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == 1.0 => {
            map_binary_widened::<T>(out, a, b, |x, y| x + y)
        }
        BinaryOp::Add(_) | BinaryOp::Sub(_) if al == -1.0 => {
            map_binary_widened::<T>(out, a, b, |x, y| x - y)
        }
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary_widened::<T>(out, a, b, move |x, y| x + al * y)
        }
        BinaryOp::Mul => map_binary_widened::<T>(out, a, b, |x, y| x * y),
        BinaryOp::Div => map_binary_widened::<T>(out, a, b, |x, y| x / y),
        BinaryOp::Pow => map_binary_widened::<T>(out, a, b, f32::powf),
        BinaryOp::Maximum => map_binary_widened::<T>(out, a, b, real::maximum::<f32>),
        BinaryOp::Minimum => map_binary_widened::<T>(out, a, b, real::minimum::<f32>),
        BinaryOp::Remainder => map_binary_widened::<T>(out, a, b, real::remainder::<f32>),
        _ => Err(Error::internal("a math op reached the arithmetic loops")),
    }
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
        _ => Err(Error::internal(format!(
            "complex {} reached the arithmetic loops",
            op.name()
        ))),
    }
}

/// `complex32`: `add`, `sub` and `mul` (torch's only `ComplexHalf` arithmetic kernels on the
/// CPU), each operation rounded to `float16` ([`super::complex_half`]); `alpha` rounded to
/// `complex32` first.
fn run_complex_half(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()> {
    use super::complex_half as h;
    let al = h::C32::from_scalar(alpha);
    match op {
        BinaryOp::Add(_) | BinaryOp::Sub(_) => {
            map_binary(out, a, b, move |x: h::C32, y| h::add(x, h::mul(al, y)))
        }
        BinaryOp::Mul => map_binary(out, a, b, h::mul),
        BinaryOp::Div => Err(not_implemented("div_cpu", DType::Complex32)),
        BinaryOp::Pow => Err(not_implemented("pow", DType::Complex32)),
        BinaryOp::Remainder => Err(not_implemented("remainder_cpu", DType::Complex32)),
        _ => Err(Error::internal(format!(
            "complex {} reached the arithmetic loops",
            op.name()
        ))),
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
        BinaryOp::Pow => match T::powf_run() {
            Some(run) => map_binary_run(out, a, b, T::powf, run),
            None => map_binary(out, a, b, T::powf),
        },
        BinaryOp::Maximum => map_binary(out, a, b, real::maximum::<T>),
        BinaryOp::Minimum => map_binary(out, a, b, real::minimum::<T>),
        BinaryOp::Remainder => {
            map_binary_guarded(out, a, b, real::remainder_fast::<T>, real::remainder::<T>)
        }
        _ => Err(Error::internal("a math op reached the arithmetic loops")),
    }
}
