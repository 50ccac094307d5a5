//! `clamp`, `clamp_min` and `clamp_max`, with number bounds (torch's unary-op setup over the
//! input converted to the result dtype) or tensor bounds (a broadcasting, promoting op of two
//! or three operands), each with torch's checks and kernels.
//!
//! ```
//! use bcast_engine::ops::{clamp_numbers, clamp_tensors};
//! use bcast_engine::{DType, Scalar, Tensor};
//! let x = Tensor::from_vec(vec![1i32, 2, -3], &[3]).unwrap();
//! let r = clamp_numbers(&x, Some(Scalar::Float(1.5)), None, None).unwrap();
//! assert_eq!((r.dtype(), r.to_vec::<f32>().unwrap()), (DType::Float32, vec![1.5, 2.0, 1.5]));
//! let lo = Tensor::from_vec(vec![0i32, 5], &[2, 1]).unwrap();
//! let r = clamp_tensors(&x, Some(&lo), None, None, true).unwrap();
//! assert_eq!((r.shape(), r.to_vec::<i32>().unwrap()), (&[2, 3][..], vec![1, 2, 0, 5, 5, 5]));
//! ```

use super::integer::Int;
use super::not_implemented;
use super::real::{self, Real};
use crate::half::{BFloat16, Half};
use crate::iter::{cast_refused, Iter, IterConfig, IterInput, IterSetup};
use crate::loops::{map_binary, map_ternary, map_unary};
use crate::result_type::{result_type, Participant};
use crate::{dispatch_dtype, DType, Element, Error, Result, Scalar, Tensor};

fn no_bounds() -> Error {
    Error::runtime("torch.clamp: At least one of 'min' or 'max' must not be None")
}

fn complex_refused() -> Error {
    Error::not_implemented("clamp is not supported for complex types")
}

/// `torch.clamp(x, min, max, out=out)` with Python numbers (or `None`) as bounds; also
/// `clamp_min(x, min)` and `clamp_max(x, max)`, which torch routes the same way. An integral
/// `x` is first converted to the result dtype of `x` and the numbers. A NaN bound fills the
/// result with NaN.
///
/// # Errors
/// torch's, in its order: no bound; a complex `x`; an in-place call whose result dtype is not
/// `x`'s (`result type Float can't be cast to the desired output type int`, the C++ type
/// name); overlap of `out`; the shape of `out`; an `out` of another dtype (`Found dtype
/// Double but expected Float`); a bool result (`"clamp_scalar_cpu" not implemented for
/// 'Bool'`); a complex bound with an imaginary part (`value cannot be converted to type
/// double without overflow`, whatever the dtype); a bound the result dtype cannot hold
/// (`value cannot be converted to type uint8_t without overflow`, `min` first).
pub fn clamp_numbers(
    x: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::clamp_numbers(x, min, max, out);
    }
    if min.is_none() && max.is_none() {
        return Err(no_bounds());
    }
    if x.dtype().is_complex() {
        return Err(complex_refused());
    }
    let mut dtype = x.dtype();
    if !dtype.is_floating() {
        let mut parts = vec![Participant::tensor(x.dtype(), x.ndim())];
        parts.extend(
            min.iter()
                .chain(max.iter())
                .map(|v| Participant::number(*v)),
        );
        dtype = result_type(&parts);
        if dtype != x.dtype() && out.is_some_and(|o| o.is_same(x)) {
            return Err(cast_refused(
                dtype.scalar_type_name(),
                x.dtype().type_meta_name(),
            ));
        }
    }
    if dtype.is_complex() {
        return Err(complex_refused());
    }
    let input = if dtype == x.dtype() {
        x.clone()
    } else {
        x.to_dtype(dtype)?
    };
    let setup = IterSetup::new(IterConfig::default(), out, vec![IterInput::tensor(&input)])?;
    setup.check_all_same_dtype()?;
    let iter = setup.finish(dtype)?;
    // torch's kernel first reads each bound as a double (its NaN test), so a complex bound
    // with an imaginary part fails there, before the conversion to the result dtype.
    for bound in min.iter().chain(max.iter()) {
        bound.check_fits(DType::Float64)?;
    }
    let is_nan = |v: Option<Scalar>| v.is_some_and(|v| v.to_f64().is_nan());
    if is_nan(min) || is_nan(max) {
        fill_nan(&iter, dtype)?;
    } else {
        let kernel = match (min, max) {
            (Some(_), Some(_)) => "clamp_scalar_cpu",
            (Some(_), None) => "clamp_min_scalar_cpu",
            _ => "clamp_max_scalar_cpu",
        };
        if dtype == DType::Bool {
            return Err(not_implemented(kernel, dtype));
        }
        for bound in min.iter().chain(max.iter()) {
            bound.check_fits(dtype)?;
        }
        let (out, a) = (iter.output(), iter.inputs()[0].as_tensor());
        match dtype {
            DType::Float16 => clamp_by_numbers::<Half>(out, a, min, max)?,
            DType::BFloat16 => clamp_by_numbers::<BFloat16>(out, a, min, max)?,
            DType::Float32 => clamp_by_numbers::<f32>(out, a, min, max)?,
            DType::Float64 => clamp_by_numbers::<f64>(out, a, min, max)?,
            DType::UInt8 => clamp_by_numbers::<u8>(out, a, min, max)?,
            DType::Int8 => clamp_by_numbers::<i8>(out, a, min, max)?,
            DType::Int16 => clamp_by_numbers::<i16>(out, a, min, max)?,
            DType::Int32 => clamp_by_numbers::<i32>(out, a, min, max)?,
            DType::Int64 => clamp_by_numbers::<i64>(out, a, min, max)?,
            other => return Err(Error::internal(format!("clamp on {}", other.name()))),
        }
    }
    iter.into_result()
}

/// `x.clamp_(min, max)` with number bounds.
///
/// # Errors
/// As for [`clamp_numbers`], with `x` as the output.
pub fn clamp_numbers_(x: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::clamp_numbers_(x, min, max);
    }
    clamp_numbers(x, min, max, Some(x))
}

/// torch's `fill_` of the result with NaN (a NaN bound).
fn fill_nan(iter: &Iter, dtype: DType) -> Result<()> {
    let (out, a) = (iter.output(), iter.inputs()[0].as_tensor());
    dispatch_dtype!(dtype, T => map_unary(out, a, |_: T| T::from_f64(f64::NAN)))
}

/// `std::min(std::max(a, min), max)`: the element itself when it is NaN or between the bounds.
#[inline]
fn clamp_value<T: Copy>(a: T, lo: Option<T>, hi: Option<T>, less: impl Fn(T, T) -> bool) -> T {
    let mut r = a;
    if let Some(lo) = lo
        && less(r, lo)
    {
        r = lo;
    }
    if let Some(hi) = hi
        && less(hi, r)
    {
        r = hi;
    }
    r
}

fn clamp_by_numbers<T: Element + Ordered>(
    out: &Tensor,
    a: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<()> {
    let (lo, hi) = (min.map(T::from_scalar), max.map(T::from_scalar));
    map_unary(out, a, move |x: T| clamp_value(x, lo, hi, T::less))
}

/// The order of an element type as C++'s `<` sees it (half types through `float`).
trait Ordered: Copy {
    fn less(a: Self, b: Self) -> bool;
    /// Whether the value is NaN (never, for integers and bool).
    fn is_nan(self) -> bool;
}

macro_rules! ordered {
    ($nan:expr; $($t:ty),*) => {$(
        impl Ordered for $t {
            #[inline]
            fn less(a: Self, b: Self) -> bool {
                a < b
            }
            #[inline]
            #[allow(clippy::redundant_closure_call)]
            fn is_nan(self) -> bool {
                ($nan)(self)
            }
        }
    )*};
}
ordered!(|_| false; u8, i8, i16, i32, i64, bool);
ordered!(|v: Self| v.is_nan(); f32, f64);

impl Ordered for Half {
    #[inline]
    fn less(a: Self, b: Self) -> bool {
        a.cast::<f32>() < b.cast::<f32>()
    }
    #[inline]
    fn is_nan(self) -> bool {
        Half::is_nan(self)
    }
}

impl Ordered for BFloat16 {
    #[inline]
    fn less(a: Self, b: Self) -> bool {
        a.cast::<f32>() < b.cast::<f32>()
    }
    #[inline]
    fn is_nan(self) -> bool {
        BFloat16::is_nan(self)
    }
}

/// `torch.clamp(x, min, max, out=out)` with tensor bounds (or `None`), and `clamp_min(x, min)`
/// / `clamp_max(x, max)` with a tensor (`check_complex` false: torch checks a complex `x`
/// only in `clamp`). The operands broadcast and promote to their result dtype; with one bound
/// torch runs `maximum` (or `minimum`), with both its `clamp` kernel (NaN when a bound is).
///
/// # Errors
/// torch's, in its order: no bound; a complex `x` (`clamp`); overlap of `out`; shapes that do
/// not broadcast; the shape of `out`; a result dtype `out` cannot hold; a dtype the kernel
/// lacks (`"clamp_cpu" not implemented for 'Bool'`, `"maximum_cpu" not implemented for
/// 'ComplexFloat'`).
pub fn clamp_tensors(
    x: &Tensor,
    min: Option<&Tensor>,
    max: Option<&Tensor>,
    out: Option<&Tensor>,
    check_complex: bool,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::clamp_tensors(x, min, max, out, check_complex);
    }
    if min.is_none() && max.is_none() {
        return Err(no_bounds());
    }
    if check_complex && x.dtype().is_complex() {
        return Err(complex_refused());
    }
    let mut inputs = vec![IterInput::tensor(x)];
    inputs.extend(min.iter().chain(max.iter()).map(|t| IterInput::tensor(t)));
    let mut setup = IterSetup::new(IterConfig::default(), out, inputs)?;
    let dtype = setup.result_type();
    setup.check_safe_cast(dtype)?;
    setup.compute_output_in(dtype)?;
    setup.promote_inputs(dtype)?;
    let iter = setup.finish(dtype)?;
    let out = iter.output();
    let ins: Vec<&Tensor> = iter.inputs().iter().map(IterInput::as_tensor).collect();
    match (min, max) {
        (Some(_), Some(_)) => {
            let (a, lo, hi) = (ins[0], ins[1], ins[2]);
            match dtype {
                DType::Float16 => clamp3_real::<Half>(out, a, lo, hi)?,
                DType::BFloat16 => clamp3_real::<BFloat16>(out, a, lo, hi)?,
                DType::Float32 => clamp3_real::<f32>(out, a, lo, hi)?,
                DType::Float64 => clamp3_real::<f64>(out, a, lo, hi)?,
                DType::UInt8 => clamp3_int::<u8>(out, a, lo, hi)?,
                DType::Int8 => clamp3_int::<i8>(out, a, lo, hi)?,
                DType::Int16 => clamp3_int::<i16>(out, a, lo, hi)?,
                DType::Int32 => clamp3_int::<i32>(out, a, lo, hi)?,
                DType::Int64 => clamp3_int::<i64>(out, a, lo, hi)?,
                _ => return Err(not_implemented("clamp_cpu", dtype)),
            }
        }
        (lo, _) => {
            let upper = lo.is_none();
            let kernel = if upper { "minimum_cpu" } else { "maximum_cpu" };
            let (a, b) = (ins[0], ins[1]);
            match dtype {
                DType::Bool if upper => map_binary(out, a, b, |x: bool, y: bool| x & y)?,
                DType::Bool => map_binary(out, a, b, |x: bool, y: bool| x | y)?,
                DType::Float16 => extreme_reduced::<Half>(out, a, b, upper)?,
                DType::BFloat16 => extreme_reduced::<BFloat16>(out, a, b, upper)?,
                DType::Float32 => extreme_real::<f32>(out, a, b, upper)?,
                DType::Float64 => extreme_real::<f64>(out, a, b, upper)?,
                DType::UInt8 => extreme_int::<u8>(out, a, b, upper)?,
                DType::Int8 => extreme_int::<i8>(out, a, b, upper)?,
                DType::Int16 => extreme_int::<i16>(out, a, b, upper)?,
                DType::Int32 => extreme_int::<i32>(out, a, b, upper)?,
                DType::Int64 => extreme_int::<i64>(out, a, b, upper)?,
                _ => return Err(not_implemented(kernel, dtype)),
            }
        }
    }
    iter.into_result()
}

/// `x.clamp_(min, max)` (or `clamp_min_`, `clamp_max_`) with tensor bounds.
///
/// # Errors
/// As for [`clamp_tensors`], with `x` as the output.
pub fn clamp_tensors_(
    x: &Tensor,
    min: Option<&Tensor>,
    max: Option<&Tensor>,
    check_complex: bool,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::clamp_tensors_(x, min, max, check_complex);
    }
    clamp_tensors(x, min, max, Some(x), check_complex)
}

/// torch's `clamp_cpu` on floats: NaN when a bound is NaN, else `min(max(a, lo), hi)`.
fn clamp3_real<T: Element + Ordered>(
    out: &Tensor,
    a: &Tensor,
    lo: &Tensor,
    hi: &Tensor,
) -> Result<()> {
    let nan = T::from_f64(f64::NAN);
    map_ternary(out, a, lo, hi, move |x: T, l: T, h: T| {
        let clamped = clamp_value(x, Some(l), Some(h), T::less);
        if l.is_nan() | h.is_nan() {
            nan
        } else {
            clamped
        }
    })
}

fn clamp3_int<T: Int + Ordered>(out: &Tensor, a: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<()> {
    map_ternary(out, a, lo, hi, |x: T, l: T, h: T| {
        clamp_value(x, Some(l), Some(h), T::less)
    })
}

fn extreme_real<T: Real>(out: &Tensor, a: &Tensor, b: &Tensor, upper: bool) -> Result<()> {
    if upper {
        map_binary(out, a, b, real::minimum::<T>)
    } else {
        map_binary(out, a, b, real::maximum::<T>)
    }
}

fn extreme_reduced<T: Element>(out: &Tensor, a: &Tensor, b: &Tensor, upper: bool) -> Result<()> {
    let f = if upper {
        real::minimum::<f32>
    } else {
        real::maximum::<f32>
    };
    map_binary(out, a, b, move |x: T, y: T| {
        T::from_f32(f(x.cast::<f32>(), y.cast::<f32>()))
    })
}

fn extreme_int<T: Int>(out: &Tensor, a: &Tensor, b: &Tensor, upper: bool) -> Result<()> {
    if upper {
        map_binary(out, a, b, |x: T, y: T| x.min(y))
    } else {
        map_binary(out, a, b, |x: T, y: T| x.max(y))
    }
}
