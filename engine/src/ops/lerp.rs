//! `torch.lerp(x, end, weight)`: `x + weight * (end - x)` for a weight below 0.5 in magnitude,
//! `end - (end - x) * (1 - weight)` otherwise, each rounded once (a fused multiply-add, as
//! torch computes it at every position), in the op-math type (`float32` for `float16` and
//! `bfloat16`). `x` and `end` must share a dtype; a tensor weight must too unless it is 0-d,
//! when the three promote.
//!
//! ```
//! use bcast_engine::ops::lerp;
//! use bcast_engine::{Scalar, Tensor};
//! let a = Tensor::from_vec(vec![0.0f32, 1.0], &[2]).unwrap();
//! let b = Tensor::from_vec(vec![2.0f32, 3.0], &[2, 1]).unwrap();
//! let r = lerp(&a, &b, Scalar::Float(0.5), None).unwrap();
//! assert_eq!((r.shape(), r.to_vec::<f32>().unwrap()), (&[2, 2][..], vec![1.0, 1.5, 1.5, 2.0]));
//! ```

use super::complex_math as c;
use super::real::Real;
use super::{not_implemented, Operand};
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::loops::{map_binary, map_ternary};
use crate::{DType, Element, Error, Result, Scalar, Tensor};

/// `torch.lerp(x, end, weight, out=out)`; `weight` a Python number or a tensor.
///
/// # Errors
/// torch's, in its order: `end` (then a dimensioned `weight`) of another dtype than `x`
/// (`expected dtype float for `end` but got dtype double`); overlap of `out`; shapes that do
/// not broadcast; the shape of `out`; an `out` dtype the result cannot be cast to (`Found
/// dtype Double but expected Float` where nothing promotes); a dtype without a kernel
/// (`"lerp_kernel_scalar" not implemented for 'Int'`); a number weight the dtype cannot hold.
pub fn lerp(
    x: &Tensor,
    end: &Tensor,
    weight: impl Into<Operand>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    lerp_operands(x, end, weight.into(), out)
}

/// [`lerp`] with its operands converted (compiled once, not once per caller's types).
fn lerp_operands(
    x: &Tensor,
    end: &Tensor,
    weight: Operand,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::lerp(x, end, weight, out);
    }
    check_dtype(x, end, "end")?;
    let (inputs, promote) = match &weight {
        Operand::Number(_) => (vec![IterInput::tensor(x), IterInput::tensor(end)], true),
        Operand::Tensor(w) => {
            if w.ndim() != 0 {
                check_dtype(x, w, "weight")?;
            }
            let inputs = vec![
                IterInput::tensor(x),
                IterInput::tensor(end),
                IterInput::tensor(w),
            ];
            (inputs, w.ndim() == 0)
        }
    };
    let mut setup = IterSetup::new(IterConfig::default(), out, inputs)?;
    let dtype = if promote {
        let dtype = setup.result_type();
        setup.check_safe_cast(dtype)?;
        setup.compute_output_in(dtype)?;
        setup.promote_inputs(dtype)?;
        dtype
    } else {
        setup.check_all_same_dtype()?
    };
    let iter = setup.finish(dtype)?;
    let out = iter.output();
    let ins: Vec<&Tensor> = iter.inputs().iter().map(IterInput::as_tensor).collect();
    match weight {
        Operand::Number(w) => {
            // torch's kernel has the floating and complex dtypes but `complex32`.
            if (!dtype.is_floating() && !dtype.is_complex()) || dtype == DType::Complex32 {
                return Err(not_implemented("lerp_kernel_scalar", dtype));
            }
            let (a, b) = (ins[0], ins[1]);
            let checked = if dtype.is_reduced_float() {
                DType::Float32
            } else {
                dtype
            };
            w.check_fits(checked)?;
            match dtype {
                DType::Float16 => by_number_reduced::<Half>(out, a, b, w)?,
                DType::BFloat16 => by_number_reduced::<BFloat16>(out, a, b, w)?,
                DType::Float32 => by_number_real::<f32>(out, a, b, w)?,
                DType::Float64 => by_number_real::<f64>(out, a, b, w)?,
                DType::Complex64 => by_number_complex::<f32>(out, a, b, w)?,
                DType::Complex128 => by_number_complex::<f64>(out, a, b, w)?,
                _ => {
                    return Err(Error::internal(
                        "lerp's weight check let an integer through",
                    ))
                }
            }
        }
        Operand::Tensor(_) => {
            let (a, b, w) = (ins[0], ins[1], ins[2]);
            match dtype {
                DType::Float16 => by_tensor_reduced::<Half>(out, a, b, w)?,
                DType::BFloat16 => by_tensor_reduced::<BFloat16>(out, a, b, w)?,
                DType::Float32 => map_ternary(out, a, b, w, lerp_real::<f32>)?,
                DType::Float64 => map_ternary(out, a, b, w, lerp_real::<f64>)?,
                DType::Complex64 => map_ternary(out, a, b, w, lerp_complex::<f32>)?,
                DType::Complex128 => map_ternary(out, a, b, w, lerp_complex::<f64>)?,
                _ => return Err(not_implemented("lerp_kernel_tensor", dtype)),
            }
        }
    }
    iter.into_result()
}

/// `x.lerp_(end, weight)`.
///
/// # Errors
/// As for [`lerp`], with `x` as the output.
pub fn lerp_(x: &Tensor, end: &Tensor, weight: impl Into<Operand>) -> Result<Tensor> {
    lerp_in_place(x, end, weight.into())
}

/// [`lerp_`] with its operands converted (compiled once, not once per caller's types).
fn lerp_in_place(x: &Tensor, end: &Tensor, weight: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::ternary::lerp_(x, end, weight);
    }
    lerp_operands(x, end, weight, Some(x))
}

fn check_dtype(x: &Tensor, other: &Tensor, name: &str) -> Result<()> {
    if x.dtype() == other.dtype() {
        return Ok(());
    }
    Err(Error::runtime(format!(
        "expected dtype {} for `{name}` but got dtype {}",
        x.dtype().type_meta_name(),
        other.dtype().type_meta_name()
    )))
}

/// torch's `lerp` on reals: each branch one fused multiply-add (in its vectorised and its
/// scalar loop alike), `(w - 1) * d + end` being exactly `end - d * (1 - w)`.
#[inline]
fn lerp_real<T: Real>(x: T, end: T, w: T) -> T {
    let half = T::ONE / (T::ONE + T::ONE);
    let d = end - x;
    if w.abs() < half {
        w.mul_add(d, x)
    } else {
        d.mul_add(w - T::ONE, end)
    }
}

#[inline]
fn lerp_complex<T: Real>(x: Complex<T>, end: Complex<T>, w: Complex<T>) -> Complex<T> {
    let half = T::ONE / (T::ONE + T::ONE);
    let one = Complex {
        re: T::ONE,
        im: T::ZERO,
    };
    let diff = c::add(end, c::neg(x));
    if c::abs(w) < half {
        c::add(x, c::mul(w, diff))
    } else {
        c::add(end, c::neg(c::mul(diff, c::add(one, c::neg(w)))))
    }
}

fn by_number_real<T: Real>(out: &Tensor, a: &Tensor, b: &Tensor, w: Scalar) -> Result<()> {
    let w = T::from_scalar(w);
    map_binary(out, a, b, move |x: T, e: T| lerp_real(x, e, w))
}

fn by_number_reduced<T: Element>(out: &Tensor, a: &Tensor, b: &Tensor, w: Scalar) -> Result<()> {
    let w = f32::from_scalar(w);
    map_binary(out, a, b, move |x: T, e: T| {
        T::from_f32(lerp_real(x.cast::<f32>(), e.cast::<f32>(), w))
    })
}

fn by_number_complex<T: Real>(out: &Tensor, a: &Tensor, b: &Tensor, w: Scalar) -> Result<()>
where
    Complex<T>: Element,
{
    let w = Complex::<T>::from_scalar(w);
    map_binary(out, a, b, move |x: Complex<T>, e: Complex<T>| {
        lerp_complex(x, e, w)
    })
}

fn by_tensor_reduced<T: Element>(out: &Tensor, a: &Tensor, b: &Tensor, w: &Tensor) -> Result<()> {
    map_ternary(out, a, b, w, |x: T, e: T, w: T| {
        T::from_f32(lerp_real(x.cast::<f32>(), e.cast::<f32>(), w.cast::<f32>()))
    })
}
