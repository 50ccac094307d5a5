//! `torch.isclose(a, b, rtol, atol, equal_nan)` and `torch.equal(a, b)`, composed of the
//! engine's element-wise ops exactly as torch composes them (so results, layouts and errors
//! follow from those ops): `isclose` is `a == b`, or'ed with both-NaN under `equal_nan`, then,
//! unless both tolerances are 0, with `isfinite(|a - b|) & (|a - b| <= atol + |rtol * b|)`
//! (integral and bool tensors converted to `float32` first, so `a - b` never wraps);
//! `equal` is "same shape and every element equal" after promotion (NaN is never equal).
//!
//! ```
//! use bcast_engine::ops::{equal, isclose};
//! use bcast_engine::Tensor;
//! let a = Tensor::from_vec(vec![1.0f32, f32::NAN], &[2]).unwrap();
//! let b = Tensor::from_vec(vec![1.0f32 + 1e-6, f32::NAN], &[2]).unwrap();
//! let r = isclose(&a, &b, 1e-5, 1e-8, true).unwrap();
//! assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, true]);
//! assert!(!equal(&a, &a).unwrap());
//! ```

use super::bitwise::{bitwise, bitwise_, BitwiseOp};
use super::{binary, compare, unary, BinaryOp, CompareOp, UnaryOp};
use crate::result_type::is_integral_or_bool;
use crate::{DType, Error, Result, Scalar, Tensor};

/// `torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)`.
///
/// # Errors
/// torch's, in its order: dtypes that differ (`Float did not match Double`); a negative (or
/// NaN) `rtol`, then `atol` (`rtol must be greater than or equal to zero, but got -1`); shapes
/// that do not broadcast.
pub fn isclose(a: &Tensor, b: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "{} did not match {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    for (name, tol) in [("rtol", rtol), ("atol", atol)] {
        // C++'s `rtol >= 0` check: NaN fails it too.
        if tol < 0.0 || tol.is_nan() {
            return Err(Error::runtime(format!(
                "{name} must be greater than or equal to zero, but got {}",
                cpp_double(tol)
            )));
        }
    }
    let close = compare(CompareOp::Eq, a, b, None)?;
    if equal_nan && !is_integral_or_bool(a.dtype()) {
        let nan_a = compare(CompareOp::Ne, a, a, None)?;
        let nan_b = compare(CompareOp::Ne, b, b, None)?;
        let both = bitwise(BitwiseOp::And, &nan_a, &nan_b, None)?;
        // In place (`close.__ior__`): the result keeps `a == b`'s layout.
        bitwise_(BitwiseOp::Or, &close, &both)?;
    }
    if rtol == 0.0 && atol == 0.0 {
        return Ok(close);
    }
    // Integral and bool tensors are compared in the default float dtype (no wrap-around in
    // `a - b`).
    let as_float = |t: &Tensor| {
        if is_integral_or_bool(t.dtype()) {
            t.to_dtype(DType::Float32)
        } else {
            Ok(t.clone())
        }
    };
    let (a, b) = (as_float(a)?, as_float(b)?);
    let scaled = binary(BinaryOp::Mul, &b, Scalar::Float(rtol), None)?;
    let allowed = binary(
        BinaryOp::Add(Scalar::Int(1)),
        &unary(UnaryOp::Abs, &scaled, None)?,
        Scalar::Float(atol),
        None,
    )?;
    let diff = binary(BinaryOp::Sub(Scalar::Int(1)), &a, &b, None)?;
    let actual = unary(UnaryOp::Abs, &diff, None)?;
    let finite = isfinite(&actual)?;
    let within = compare(CompareOp::Le, &actual, &allowed, None)?;
    bitwise_(BitwiseOp::And, &finite, &within)?;
    bitwise_(BitwiseOp::Or, &close, &finite)?;
    Ok(close)
}

/// torch's `isfinite` of a real floating tensor: `(x == x) * (|x| != inf)`.
fn isfinite(x: &Tensor) -> Result<Tensor> {
    let not_nan = compare(CompareOp::Eq, x, x, None)?;
    let abs = unary(UnaryOp::Abs, x, None)?;
    let not_inf = compare(CompareOp::Ne, &abs, Scalar::Float(f64::INFINITY), None)?;
    binary(BinaryOp::Mul, &not_nan, &not_inf, None)
}

/// `torch.equal(a, b)`: whether the shapes are equal and every element equal after promotion.
///
/// # Errors
/// Same-shape tensors whose promoted dtype is `complex32`: torch's `equal_cpu` kernel has no
/// `ComplexHalf` (empty or not), nor has `equal_notnan_cpu`, which its fast path for two views
/// of the same elements (same storage, offset, strides and dtype) runs instead.
pub fn equal(a: &Tensor, b: &Tensor) -> Result<bool> {
    if a.shape() != b.shape() {
        return Ok(false);
    }
    let common = crate::result_type::result_type(&[
        crate::result_type::Participant::tensor(a.dtype(), a.ndim()),
        crate::result_type::Participant::tensor(b.dtype(), b.ndim()),
    ]);
    if common == DType::Complex32 {
        let same_elements = a.dtype() == b.dtype()
            && a.shares_storage(b)
            && a.offset() == b.offset()
            && a.strides() == b.strides();
        let kernel = if same_elements {
            "equal_notnan_cpu"
        } else {
            "equal_cpu"
        };
        return Err(super::not_implemented(kernel, common));
    }
    let eq = compare(CompareOp::Eq, a, b, None)?;
    Ok(eq.to_vec::<bool>()?.into_iter().all(|e| e))
}

/// A double as C++'s `operator<<` prints it (`%g`, six significant digits): `-1`, `0.5`,
/// `1e-05`, `nan`.
///
/// ```
/// # use bcast_engine::ops::isclose::cpp_double;
/// assert_eq!((cpp_double(-1.0), cpp_double(-0.5), cpp_double(-1e-5)), ("-1".into(), "-0.5".into(), "-1e-05".into()));
/// assert_eq!((cpp_double(f64::NAN), cpp_double(-1234567.0)), ("nan".into(), "-1.23457e+06".into()));
/// ```
pub fn cpp_double(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}
