//! One-input ops: `neg`, `abs`, `exp`, `log`, `sqrt`, `sin`, `cos`, `tanh`, `sigmoid`,
//! `floor`, `ceil`, `sign`, `reciprocal`, `logical_not`, `exp2`, `log1p`, `frac`, `round`,
//! `trunc`, `bitwise_not`, each with torch's dtype rules.
//!
//! ```
//! use bcast_engine::ops::{unary, UnaryOp};
//! use bcast_engine::{DType, Tensor};
//! let x = Tensor::from_vec(vec![4i64, 9], &[2]).unwrap();
//! let r = unary(UnaryOp::Sqrt, &x, None).unwrap();
//! assert_eq!((r.dtype(), r.to_vec::<f32>().unwrap()), (DType::Float32, vec![2.0, 3.0]));
//! let b = Tensor::from_vec(vec![true], &[1]).unwrap();
//! assert!(unary(UnaryOp::Neg, &b, None).unwrap_err().message().starts_with("Negation, the `-` operator"));
//! ```

use super::integer::Int;
use super::not_implemented;
use super::real::{self, Real};
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{Iter, IterConfig, IterInput, IterSetup};
use crate::layout::contiguous_strides;
use crate::loops::{map_unary, map_unary_run};
use crate::result_type::is_integral_or_bool;
use crate::{resize, DType, Element, Error, Result, Tensor};

/// A one-input element-wise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `torch.neg`.
    Neg,
    /// `torch.abs`.
    Abs,
    /// `torch.exp`.
    Exp,
    /// `torch.log` (natural).
    Log,
    /// `torch.sqrt`.
    Sqrt,
    /// `torch.sin`.
    Sin,
    /// `torch.cos`.
    Cos,
    /// `torch.tanh`.
    Tanh,
    /// `torch.sigmoid`.
    Sigmoid,
    /// `torch.floor`.
    Floor,
    /// `torch.ceil`.
    Ceil,
    /// `torch.sign`.
    Sign,
    /// `torch.reciprocal`.
    Reciprocal,
    /// `torch.logical_not`.
    LogicalNot,
    /// `torch.exp2`: `2^x`.
    Exp2,
    /// `torch.log1p`: `ln(1 + x)`.
    Log1p,
    /// `torch.frac`: `x - trunc(x)`, floating dtypes only.
    Frac,
    /// `torch.round` (without `decimals`): to the nearest integer, ties to even.
    Round,
    /// `torch.trunc`: toward zero.
    Trunc,
    /// `torch.bitwise_not`: `~x` of an integer, `not x` of a bool.
    BitwiseNot,
}

/// How an op treats dtypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Computes in the input's dtype; the output must have it too.
    SameDtype,
    /// Promotes bool and int64 to float32; the output may be any dtype the result casts to.
    Float,
    /// Reads any dtype, writes `bool` (or the output's dtype).
    Logical,
}

impl UnaryOp {
    /// Every unary op.
    pub const ALL: [UnaryOp; 20] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Sign,
        UnaryOp::Reciprocal,
        UnaryOp::LogicalNot,
        UnaryOp::Exp2,
        UnaryOp::Log1p,
        UnaryOp::Frac,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::BitwiseNot,
    ];

    /// torch's name, e.g. `"logical_not"`.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Sign => "sign",
            UnaryOp::Reciprocal => "reciprocal",
            UnaryOp::LogicalNot => "logical_not",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Frac => "frac",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::BitwiseNot => "bitwise_not",
        }
    }

    /// Parses [`UnaryOp::name`] or one of torch's aliases (`negative`, `absolute`).
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        let name = match name {
            "negative" => "neg",
            "absolute" => "abs",
            other => other,
        };
        UnaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether torch's float results of this op may differ from the engine's by rounding
    /// (its CPU kernels use vectorised approximations of the transcendentals).
    pub fn is_transcendental(self) -> bool {
        matches!(
            self,
            UnaryOp::Exp
                | UnaryOp::Log
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tanh
                | UnaryOp::Sigmoid
                | UnaryOp::Exp2
                | UnaryOp::Log1p
        )
    }

    fn family(self) -> Family {
        match self {
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Sign
            | UnaryOp::Frac
            | UnaryOp::Round
            | UnaryOp::Trunc
            | UnaryOp::BitwiseNot => Family::SameDtype,
            UnaryOp::LogicalNot => Family::Logical,
            _ => Family::Float,
        }
    }
}

/// `torch.NAME(x, out=out)`, or `x.NAME()` without `out`. Returns the result: a new tensor,
/// or `out` (resized when its shape differed; same object).
///
/// # Errors
/// torch's, in its order: `neg` of a bool tensor, `floor`/`ceil`/`trunc`/`sign` of a complex
/// one; overlap of `out`; the shape of `out` where it cannot be resized; the dtype of `out`;
/// then the kernel's refusal of the dtype (`kernel_refusal`).
pub fn unary(op: UnaryOp, x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::unary_op(op, x, out);
    }
    if op == UnaryOp::Abs && x.dtype().is_complex() {
        return abs_complex(x, out);
    }
    if op == UnaryOp::Neg && x.dtype() == DType::Bool {
        return Err(Error::runtime(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    if x.dtype().is_complex() {
        match op {
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Trunc => {
                return Err(Error::not_implemented(format!(
                    "{} is not supported for complex inputs",
                    op.name()
                )))
            }
            UnaryOp::Sign => return Err(Error::not_implemented(
                "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
            )),
            _ => {}
        }
    }
    let mut setup = IterSetup::new(IterConfig::default(), out, vec![IterInput::tensor(x)])?;
    let iter = match op.family() {
        Family::SameDtype => {
            let dtype = setup.check_all_same_dtype()?;
            setup.finish(dtype)?
        }
        Family::Float => {
            let mut common = x.dtype();
            if is_integral_or_bool(common) {
                common = DType::Float32;
            }
            setup.check_safe_cast(common)?;
            setup.compute_output_in(common)?;
            setup.promote_inputs_first(common)?;
            setup.finish(common)?
        }
        Family::Logical => {
            setup.compute_output_in(DType::Bool)?;
            let iter = setup.finish(DType::Bool)?;
            // torch's kernel dispatches on the input's dtype and then on the output's, and
            // neither dispatch has `ComplexHalf` (an empty call raises too, after the resize).
            if x.dtype() == DType::Complex32 || out.is_some_and(|o| o.dtype() == DType::Complex32) {
                return Err(not_implemented("logical_not_cpu", DType::Complex32));
            }
            iter
        }
    };
    run(op, &iter)?;
    iter.into_result()
}

/// `abs` of a complex tensor as torch's `unary_op_impl_with_complex_to_float_out`. Into a
/// complex `out`, as any same-dtype op (`out` of `x`'s dtype, `|z| + 0i`). Into a real `out`:
/// first (before any overlap check) the real dtype must cast safely to `out`'s, then the
/// absolute values go into a new tensor, `out` is resized to its shape (contiguous where the
/// shape changes: an expanded `out` of another shape is no overlap) and copied into. Without
/// `out`, into `empty_like(x)` of the real dtype, so the result keeps `x`'s layout as `clone()`
/// would (strides of size-1 dims included).
fn abs_complex(x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    let real = x.dtype().to_real();
    let Some(o) = out else {
        return abs_complex(x, Some(&x.empty_like(real)?));
    };
    if o.dtype().is_complex() {
        let setup = IterSetup::new(IterConfig::default(), out, vec![IterInput::tensor(x)])?;
        let dtype = setup.check_all_same_dtype()?;
        let iter = setup.finish(dtype)?;
        run(UnaryOp::Abs, &iter)?;
        return iter.into_result();
    }
    if !real.can_cast_to(o.dtype()) {
        return Err(crate::iter::cast_refused(
            real.scalar_type_name(),
            o.dtype().scalar_type_name(),
        ));
    }
    let iter =
        IterSetup::new(IterConfig::default(), None, vec![IterInput::tensor(x)])?.finish(real)?;
    run(UnaryOp::Abs, &iter)?;
    let values = iter.into_result()?;
    let shape = values.shape();
    let result = resize::resize_output(o, shape, &contiguous_strides(shape))?;
    super::copy_(&result, &values)
}

/// `torch.round(x, decimals=d, out=out)`: as torch's `round.decimals`, `nearbyint(x · 10^d) /
/// 10^d` (for `d < 0`, `nearbyint(x / 10^-d) · 10^-d`), computed in `float32` for the
/// half-precision dtypes and `float32` itself, `10^d` being C's `pow(10, d)` converted to
/// that type (so `decimals=40` in `float32` is NaN: `x · inf / inf`). `decimals=0` is
/// `round`, except that an integer tensor is refused rather than copied.
///
/// ```
/// use bcast_engine::ops::round_decimals;
/// use bcast_engine::Tensor;
/// let x = Tensor::from_vec(vec![1.25f64, -123.456], &[2]).unwrap();
/// let r = round_decimals(&x, 1, None).unwrap();
/// assert_eq!(r.to_vec::<f64>().unwrap(), vec![1.2, -123.5]);
/// let n = Tensor::from_vec(vec![3i64], &[1]).unwrap();
/// let e = round_decimals(&n, 0, None).unwrap_err();
/// assert_eq!(e.message(), "\"round_vml_cpu\" not implemented for 'Long'");
/// ```
///
/// # Errors
/// As for [`unary`] with `round`; then a dtype other than a real floating one (the kernel
/// `round_vml_cpu` for `decimals=0`, `round_cpu` otherwise).
pub fn round_decimals(x: &Tensor, decimals: i64, out: Option<&Tensor>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::round_decimals_op(x, decimals, out);
    }
    let setup = IterSetup::new(IterConfig::default(), out, vec![IterInput::tensor(x)])?;
    let dtype = setup.check_all_same_dtype()?;
    let iter = setup.finish(dtype)?;
    if !dtype.is_floating() {
        let kernel = if decimals == 0 {
            "round_vml_cpu"
        } else {
            "round_cpu"
        };
        return Err(not_implemented(kernel, dtype));
    }
    if decimals == 0 {
        run(UnaryOp::Round, &iter)?;
        return iter.into_result();
    }
    let (out, x) = (iter.output(), iter.inputs()[0].as_tensor());
    // torch negates `decimals` in int64 (wrapping) and takes `pow(10, |decimals|)` in double.
    let scaled_down = decimals < 0;
    let ten = 10f64.powf(decimals.wrapping_abs() as f64);
    match dtype {
        DType::Float16 => map_unary(out, x, |v: Half| {
            Half::from_f32(round_scaled(v.cast::<f32>(), ten as f32, scaled_down))
        }),
        DType::BFloat16 => map_unary(out, x, |v: BFloat16| {
            BFloat16::from_f32(round_scaled(v.cast::<f32>(), ten as f32, scaled_down))
        }),
        DType::Float32 => map_unary(out, x, |v: f32| round_scaled(v, ten as f32, scaled_down)),
        _ => map_unary(out, x, |v: f64| round_scaled(v, ten, scaled_down)),
    }?;
    iter.into_result()
}

/// `x.round_(decimals=d)`: [`round_decimals`] written into `x`.
///
/// # Errors
/// As [`round_decimals`], with `x` as the output.
pub fn round_decimals_(x: &Tensor, decimals: i64) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::round_decimals_op_(x, decimals);
    }
    round_decimals(x, decimals, Some(x))
}

/// One element of `round(decimals=d)`: `ten` is `10^|d|`, `scaled_down` whether `d < 0`.
#[inline]
fn round_scaled<T: Real>(v: T, ten: T, scaled_down: bool) -> T {
    if scaled_down {
        (v / ten).round_even() * ten
    } else {
        (v * ten).round_even() / ten
    }
}

/// `x.NAME_()`: the op written into `x` itself.
///
/// # Errors
/// `abs_` of a complex tensor, first (torch checks it before anything else, overlap
/// included: `torch.abs(z, out=z)` is allowed, `z.abs_()` is not); then as for [`unary`],
/// with `x` as the output.
pub fn unary_(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::unary_op_(op, x);
    }
    if op == UnaryOp::Abs && x.dtype().is_complex() {
        return Err(Error::runtime(
            "In-place abs is not supported for complex tensors.",
        ));
    }
    unary(op, x, Some(x))
}

/// The error of the kernel torch dispatches `op` to where it has no implementation for
/// `dtype` (`"round_vml_cpu" not implemented for 'Bool'`); checked once the iteration is set
/// up, so after the checks of `out`.
fn kernel_refusal(op: UnaryOp, dtype: DType) -> Option<Error> {
    let kernel = match op {
        UnaryOp::Abs if dtype == DType::Bool => "abs_cpu",
        UnaryOp::Floor if dtype == DType::Bool => "floor_vml_cpu",
        UnaryOp::Ceil if dtype == DType::Bool => "ceil_vml_cpu",
        UnaryOp::Trunc if dtype == DType::Bool => "trunc_vml_cpu",
        UnaryOp::Round if dtype == DType::Bool || dtype.is_complex() => "round_vml_cpu",
        UnaryOp::Frac if !dtype.is_floating() => "frac_cpu",
        UnaryOp::BitwiseNot if dtype.is_floating() || dtype.is_complex() => "bitwise_not_cpu",
        _ => return None,
    };
    Some(not_implemented(kernel, dtype))
}

fn run(op: UnaryOp, iter: &Iter) -> Result<()> {
    let (out, x) = (iter.output(), iter.inputs()[0].as_tensor());
    if op.family() == Family::Logical {
        return crate::dispatch_dtype!(x.dtype(), T => map_unary(out, x, |v: T| !v.cast::<bool>()));
    }
    if let Some(e) = kernel_refusal(op, x.dtype()) {
        return Err(e);
    }
    match x.dtype() {
        DType::Bool => match op {
            UnaryOp::Sign => map_unary(out, x, |v: bool| v),
            UnaryOp::BitwiseNot => map_unary(out, x, |v: bool| !v),
            _ => Err(Error::internal(format!("{} on bool", op.name()))),
        },
        DType::UInt8 => run_int::<u8>(op, out, x),
        DType::Int8 => run_int::<i8>(op, out, x),
        DType::Int16 => run_int::<i16>(op, out, x),
        DType::Int32 => run_int::<i32>(op, out, x),
        DType::Int64 => run_int::<i64>(op, out, x),
        DType::Float16 => match op {
            UnaryOp::Neg => map_unary(out, x, |v: Half| Half(v.0 ^ SIGN_BIT)),
            UnaryOp::Abs => map_unary(out, x, |v: Half| Half(v.0 & !SIGN_BIT)),
            _ => run_reduced::<Half>(op, out, x),
        },
        DType::BFloat16 => match op {
            UnaryOp::Neg => map_unary(out, x, |v: BFloat16| bf16_sign_op(v, |b| b ^ SIGN_BIT)),
            UnaryOp::Abs => map_unary(out, x, |v: BFloat16| bf16_sign_op(v, |b| b & !SIGN_BIT)),
            _ => run_reduced::<BFloat16>(op, out, x),
        },
        DType::Float32 => run_real::<f32>(op, out, x),
        DType::Float64 => run_real::<f64>(op, out, x),
        DType::Complex32 => run_complex_half(op, out, x),
        DType::Complex64 => run_complex::<f32>(op, out, x),
        DType::Complex128 => run_complex::<f64>(op, out, x),
    }
}

fn run_int<T: Int>(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()> {
    match op {
        UnaryOp::Neg => map_unary(out, x, T::wneg),
        UnaryOp::Abs => map_unary(out, x, T::wabs),
        UnaryOp::Sign => map_unary(out, x, T::signum),
        // torch copies an integer tensor for these.
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc => {
            map_unary(out, x, |v: T| v)
        }
        UnaryOp::BitwiseNot => map_unary(out, x, T::bit_not),
        _ => Err(Error::internal(format!("{} on {}", op.name(), T::DTYPE))),
    }
}

/// One element of a real op.
#[inline]
pub fn real_op<T: Real>(op: UnaryOp, v: T) -> T {
    match op {
        UnaryOp::Neg => -v,
        UnaryOp::Abs => v.abs(),
        UnaryOp::Exp => v.exp(),
        UnaryOp::Log => v.ln(),
        UnaryOp::Sqrt => v.sqrt(),
        UnaryOp::Sin => v.sin(),
        UnaryOp::Cos => v.cos(),
        UnaryOp::Tanh => v.tanh(),
        UnaryOp::Sigmoid => real::sigmoid(v),
        UnaryOp::Floor => v.floor(),
        UnaryOp::Ceil => v.ceil(),
        UnaryOp::Sign => real::sign(v),
        UnaryOp::Reciprocal => T::ONE / v,
        UnaryOp::LogicalNot => T::from_bool(v == T::ZERO),
        UnaryOp::Exp2 => v.exp2(),
        UnaryOp::Log1p => v.ln_1p(),
        UnaryOp::Frac => v - v.trunc(),
        UnaryOp::Round => v.round_even(),
        UnaryOp::Trunc => v.trunc(),
        // Refused before any loop runs (`kernel_refusal`).
        UnaryOp::BitwiseNot => T::NAN,
    }
}

/// The sign bit of a float16 or bfloat16.
pub const SIGN_BIT: u16 = 0x8000;

/// A bfloat16 `neg` or `abs` on the bits (`sign_op` flips or clears the sign), as widening,
/// the `f32` op and rounding back give: the value is exact, so only the sign changes, except
/// that the rounding makes a NaN [`BFloat16::CONVERTED_NAN`] (c10's scalar conversion;
/// torch's own vectorised `neg` flips a NaN's sign instead, so its NaN bits depend on the
/// path). float16 needs no such case: torch keeps a NaN's payload there, and `neg`/`abs`
/// are the bit operations.
#[inline]
fn bf16_sign_op(v: BFloat16, sign_op: impl Fn(u16) -> u16) -> BFloat16 {
    // A select, not a branch, so the loop vectorises.
    if v.is_nan() {
        BFloat16::CONVERTED_NAN
    } else {
        BFloat16(sign_op(v.0))
    }
}

/// A float16 or bfloat16 op: the `f32` op on the value widened, rounded back. One loop per
/// op, so each inlines its own element function (and vectorises where it can) instead of
/// choosing the op per element.
fn run_reduced<T: Element>(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()> {
    macro_rules! per_op {
        ($($name:ident),*) => {
            match op {
                $(UnaryOp::$name => map_unary(out, x, |v: T| {
                    T::from_f32(real_op::<f32>(UnaryOp::$name, v.cast::<f32>()))
                }),)*
            }
        };
    }
    per_op!(
        Neg, Abs, Exp, Log, Sqrt, Sin, Cos, Tanh, Sigmoid, Floor, Ceil, Sign, Reciprocal,
        LogicalNot, Exp2, Log1p, Frac, Round, Trunc, BitwiseNot
    )
}

fn run_complex<T: Real>(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()>
where
    Complex<T>: Element,
{
    use super::complex_math as c;
    let f: fn(Complex<T>) -> Complex<T> = match op {
        UnaryOp::Neg => c::neg,
        UnaryOp::Abs if out.dtype().is_complex() => {
            return map_unary(out, x, |z| Complex::new(c::abs(z), T::ZERO))
        }
        UnaryOp::Abs => return map_unary(out, x, c::abs::<T>),
        UnaryOp::Exp => c::exp,
        UnaryOp::Log => c::log,
        UnaryOp::Sqrt => c::sqrt,
        UnaryOp::Sin => c::sin,
        UnaryOp::Cos => c::cos,
        UnaryOp::Tanh => c::tanh,
        UnaryOp::Sigmoid => c::sigmoid,
        UnaryOp::Reciprocal => c::reciprocal,
        UnaryOp::Exp2 => c::exp2,
        UnaryOp::Log1p => c::log1p,
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Sign
        | UnaryOp::LogicalNot
        | UnaryOp::Frac
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::BitwiseNot => return Err(Error::internal(format!("{} on complex", op.name()))),
    };
    map_unary(out, x, f)
}

/// `complex32`: torch's CPU kernels have `neg` and `abs` for `ComplexHalf`, and name their
/// kernel for the others.
fn run_complex_half(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()> {
    use super::complex_half as h;
    let kernel = match op {
        UnaryOp::Neg => return map_unary(out, x, h::neg),
        UnaryOp::Abs if out.dtype().is_complex() => {
            return map_unary(out, x, |z| h::C32::new(h::abs(z), Half(0)))
        }
        UnaryOp::Abs => return map_unary(out, x, h::abs),
        UnaryOp::Exp => "exp_vml_cpu",
        UnaryOp::Log => "log_vml_cpu",
        UnaryOp::Sqrt => "sqrt_vml_cpu",
        UnaryOp::Sin => "sin_vml_cpu",
        UnaryOp::Cos => "cos_vml_cpu",
        UnaryOp::Tanh => "tanh_vml_cpu",
        UnaryOp::Sigmoid => "sigmoid_cpu",
        UnaryOp::Reciprocal => "reciprocal_cpu",
        UnaryOp::Exp2 => "exp2",
        UnaryOp::Log1p => "log1p_vml_cpu",
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Sign
        | UnaryOp::LogicalNot
        | UnaryOp::Frac
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::BitwiseNot => return Err(Error::internal(format!("{} on complex", op.name()))),
    };
    Err(not_implemented(kernel, DType::Complex32))
}

fn run_real<T: Real>(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()> {
    match op {
        UnaryOp::Neg => map_unary(out, x, |v: T| -v),
        UnaryOp::Abs => map_unary(out, x, T::abs),
        UnaryOp::Exp => match T::exp_run() {
            Some(run) => map_unary_run(out, x, T::exp, run),
            None => map_unary(out, x, T::exp),
        },
        UnaryOp::Log => map_unary(out, x, T::ln),
        UnaryOp::Sqrt => map_unary(out, x, T::sqrt),
        UnaryOp::Sin => map_unary(out, x, T::sin),
        UnaryOp::Cos => map_unary(out, x, T::cos),
        UnaryOp::Tanh => map_unary(out, x, T::tanh),
        UnaryOp::Sigmoid => map_unary(out, x, real::sigmoid::<T>),
        UnaryOp::Floor => map_unary(out, x, T::floor),
        UnaryOp::Ceil => map_unary(out, x, T::ceil),
        UnaryOp::Sign => map_unary(out, x, real::sign::<T>),
        UnaryOp::Reciprocal => map_unary(out, x, |v: T| T::ONE / v),
        UnaryOp::LogicalNot => map_unary(out, x, |v: T| v == T::ZERO),
        UnaryOp::Exp2 => map_unary(out, x, T::exp2),
        UnaryOp::Log1p => map_unary(out, x, T::ln_1p),
        UnaryOp::Frac => map_unary(out, x, |v: T| v - v.trunc()),
        UnaryOp::Round => map_unary(out, x, T::round_even),
        UnaryOp::Trunc => map_unary(out, x, T::trunc),
        UnaryOp::BitwiseNot => Err(Error::internal("bitwise_not on a float")),
    }
}
