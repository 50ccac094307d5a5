//! The two `pow` forms with a Python number: `pow(tensor, number)` (a one-input op on the
//! base converted to the result dtype, with fast paths for exponents 0 and 1) and
//! `pow(number, tensor)` (an output shaped and laid out like the exponent, row-major).

use super::binary::binary_inputs;
use super::integer;
use super::real::{self, Real};
use super::{not_implemented, BinaryOp};
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::layout::contiguous_strides;
use crate::loops::map_unary;
use crate::result_type::{is_integral_or_bool, result_type, Participant};
use crate::{alloc, loops, resize, DType, Error, Result, Scalar, Tensor};

fn is_zero(s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => !b,
        Scalar::Int(i) => i == 0,
        Scalar::Float(f) => f == 0.0,
        Scalar::Complex(re, im) => re == 0.0 && im == 0.0,
    }
}

fn is_one(s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
        Scalar::Complex(re, im) => re == 1.0 && im == 0.0,
    }
}

/// Fills every element of `t` with `value`. Like torch's `fill_`, it checks no overlap
/// (filling is idempotent): `torch.pow(1, e, out=t)` fills even an expanded `t`.
fn fill(t: &Tensor, value: Scalar) -> Result<()> {
    loops::copy_into(t, &Tensor::scalar_tensor(value, t.dtype()))
}

/// `torch.pow(base, exponent)` with a Python number exponent.
///
/// # Errors
/// An integer base with a negative integer exponent (first), then as for
/// [`binary`](super::binary) with the result dtype of `base` and `exponent`.
pub fn pow_tensor_number(base: &Tensor, exponent: Scalar, out: Option<&Tensor>) -> Result<Tensor> {
    let integral_exponent = matches!(exponent, Scalar::Bool(_) | Scalar::Int(_));
    if is_integral_or_bool(base.dtype()) && integral_exponent && exponent.to_i64() < 0 {
        return Err(Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let common = result_type(&[
        Participant::tensor(base.dtype(), base.ndim()),
        Participant::number(exponent),
    ])?;
    let converted = base.to_dtype(common)?;
    let mut setup = IterSetup::new(
        IterConfig::default(),
        out,
        vec![IterInput::tensor(&converted)],
    )?;
    setup.check_safe_cast(common)?;
    setup.compute_output_in(common)?;
    let iter = setup.finish(common)?;
    if is_zero(exponent) {
        let result = iter.into_result()?;
        fill(&result, Scalar::Int(1))?;
        return Ok(result);
    }
    if is_one(exponent) {
        let result = iter.into_result()?;
        super::copy_(&result, base)?;
        return Ok(result);
    }
    let (o, x) = (iter.output(), iter.inputs()[0].as_tensor());
    match common {
        DType::Int64 => {
            let e = exponent.to_i64();
            map_unary(o, x, move |v: i64| integer::powi(v, e))?
        }
        DType::Float32 => map_real::<f32>(o, x, exponent)?,
        DType::Float64 => map_real::<f64>(o, x, exponent)?,
        DType::Bool => return Err(not_implemented("pow", DType::Bool)),
        other => return Err(Error::unsupported_dtype("pow", other)),
    }
    iter.into_result()
}

fn map_real<T: Real>(o: &Tensor, x: &Tensor, exponent: Scalar) -> Result<()> {
    map_unary(o, x, real::pow_by_number::<T>(exponent.to_f64()))
}

/// `torch.pow(base, exponent)` with a Python number base: the output has the exponent's
/// shape, row-major (an `out=` of another shape is resized so); base 1 fills it with ones,
/// any other base runs the tensor-tensor `pow` into it.
///
/// # Errors
/// As for [`binary`](super::binary).
pub fn pow_number_tensor(base: Scalar, exponent: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    let shape = exponent.shape();
    let strides = contiguous_strides(shape);
    let result = match out {
        Some(o) => resize::resize_output(o, shape, &strides)?,
        None => {
            let dtype = result_type(&[
                Participant::number(base),
                Participant::tensor(exponent.dtype(), exponent.ndim()),
            ])?;
            // torch's meta function gives the output no strides: `empty`, row-major.
            alloc::empty_in_format(shape, &strides, dtype)?
        }
    };
    let base_is_one = match base {
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
        Scalar::Complex(re, im) => re == 1.0 && im == 0.0,
        Scalar::Bool(_) => false,
    };
    if base_is_one {
        fill(&result, Scalar::Int(1))?;
        return Ok(result);
    }
    binary_inputs(
        BinaryOp::Pow,
        IterInput::number(base),
        IterInput::tensor(exponent),
        Some(&result),
    )
}
