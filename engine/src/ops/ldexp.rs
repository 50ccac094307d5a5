//! `torch.ldexp(input, other)`: `input * 2^other`. A float `input` with an integral `other`
//! runs torch's own kernel (`std::ldexp`, into `empty_like(input)` or the `out=`); anything
//! else is `mul(input, pow(2, other))`, the power computed in `float32` for an integral or
//! `float32` input and in the input's dtype otherwise.
//!
//! ```
//! use bcast_engine::ops::{binary, BinaryOp};
//! use bcast_engine::{DType, Tensor};
//! let x = Tensor::from_vec(vec![1.5f32, -3.0], &[2]).unwrap();
//! let e = Tensor::from_vec(vec![2i64, -1], &[2]).unwrap();
//! let r = binary(BinaryOp::Ldexp, &x, &e, None).unwrap();
//! assert_eq!(r.to_vec::<f32>().unwrap(), vec![6.0, -1.5]);
//! let i = Tensor::from_vec(vec![3i64], &[1]).unwrap();
//! assert_eq!(binary(BinaryOp::Ldexp, &i, &i, None).unwrap().dtype(), DType::Float32);
//! ```

use super::binary::binary_inputs;
use super::binary_math::ldexp_f64;
use super::pow::pow_number_tensor;
use super::{not_implemented, BinaryOp};
use crate::half::{BFloat16, Half};
use crate::iter::{IterConfig, IterInput, IterSetup};
use crate::loops::map_binary;
use crate::result_type::is_integral_or_bool;
use crate::{DType, Element, Error, Result, Scalar, Tensor};

/// `torch.ldexp(x, e, out=out)` (`x.ldexp_(e)` with `out` = `x`).
///
/// # Errors
/// An integral or bool `out` (`ldexp can't be cast to the desired output type Long`); a bool
/// exponent of a float input (`"ldexp_cpu_exp" not implemented for 'Bool'`); otherwise `mul`'s
/// and `pow`'s (a complex input with a `float16` exponent is refused: the power would be
/// `complex32`).
/// A float input with an integral exponent and an `out=` of another float dtype is refused
/// ([`Error::limit`]): torch 2.13.0 runs its kernel into it and fails an internal assert
/// (`needs_dynamic_casting`).
pub(crate) fn ldexp(x: &IterInput, e: &IterInput, out: Option<&Tensor>) -> Result<Tensor> {
    let (xt, et) = (x.as_tensor(), e.as_tensor());
    if let Some(o) = out
        && is_integral_or_bool(o.dtype())
    {
        return Err(Error::runtime(format!(
            "ldexp can't be cast to the desired output type {}",
            o.dtype().scalar_type_name()
        )));
    }
    let int_exponent = is_integral_or_bool(et.dtype()) && xt.dtype().is_floating();
    if int_exponent {
        let result = match out {
            Some(o) if o.dtype() != xt.dtype() => {
                return Err(Error::limit(
                    "ldexp of a float tensor by an integer one into an out= of another dtype fails an internal assert in torch",
                ))
            }
            Some(o) => o.clone(),
            None => xt.empty_like(xt.dtype())?,
        };
        return int_exponent_kernel(xt, et, &result);
    }
    let power = pow2(xt, et)?;
    binary_inputs(BinaryOp::Mul, x.clone(), IterInput::tensor(&power), out)
}

/// torch's `_pow2`: `pow(2.0, e)` for an integral, bool or `float32` input, else a 0-d `2` of
/// the input's dtype to the power `e`.
fn pow2(x: &Tensor, e: &Tensor) -> Result<Tensor> {
    if is_integral_or_bool(x.dtype()) || x.dtype() == DType::Float32 {
        return pow_number_tensor(Scalar::Float(2.0), e, None);
    }
    let two = Tensor::scalar_tensor(Scalar::Float(2.0), x.dtype());
    binary_inputs(
        BinaryOp::Pow,
        IterInput::tensor(&two),
        IterInput::tensor(e),
        None,
    )
}

/// torch's `_ldexp_int_exponent`: a TensorIterator over `result`, `x` and `e` in their own
/// dtypes (no promotion), `result` resized when its shape differs.
fn int_exponent_kernel(x: &Tensor, e: &Tensor, result: &Tensor) -> Result<Tensor> {
    let inputs = vec![IterInput::tensor(x), IterInput::tensor(e)];
    let setup = IterSetup::new(IterConfig::default(), Some(result), inputs)?;
    let iter = setup.finish(x.dtype())?;
    let out = iter.output();
    match x.dtype() {
        DType::Float16 => by_exponent::<Half>(out, x, e)?,
        DType::BFloat16 => by_exponent::<BFloat16>(out, x, e)?,
        DType::Float32 => by_exponent::<f32>(out, x, e)?,
        DType::Float64 => by_exponent::<f64>(out, x, e)?,
        // `ldexp` sends only float inputs here.
        other => return Err(Error::internal(format!("ldexp's kernel on {other:?}"))),
    }
    iter.into_result()
}

fn by_exponent<T: Element>(out: &Tensor, x: &Tensor, e: &Tensor) -> Result<()> {
    fn go<T: Element, I: Element>(out: &Tensor, x: &Tensor, e: &Tensor) -> Result<()> {
        map_binary(out, x, e, |v: T, n: I| {
            T::from_f64(ldexp_f64(v.cast::<f64>(), n.cast::<i64>()))
        })
    }
    match e.dtype() {
        DType::UInt8 => go::<T, u8>(out, x, e),
        DType::Int8 => go::<T, i8>(out, x, e),
        DType::Int16 => go::<T, i16>(out, x, e),
        DType::Int32 => go::<T, i32>(out, x, e),
        DType::Int64 => go::<T, i64>(out, x, e),
        other => Err(not_implemented("ldexp_cpu_exp", other)),
    }
}
