//! The Rust types behind the dtypes, and the C++-style casts between them.
//!
//! ```
//! use bcast_engine::Element;
//! assert_eq!(<f32 as Element>::from_i64(16_777_217), 16_777_216.0);
//! assert_eq!(2.7f64.cast::<i64>(), 2);
//! assert_eq!(f32::INFINITY.cast::<i64>(), i64::MIN);
//! assert!(0.5f32.cast::<bool>());
//! ```

use crate::{DType, Scalar};
use std::fmt::Debug;

/// A float to `int64` the way torch's CPU kernels convert it on x86-64 (`cvttsd2si`): toward
/// zero, and NaN or any value outside the `int64` range becomes `i64::MIN`.
///
/// ```
/// # use bcast_engine::element::float_to_i64;
/// assert_eq!(float_to_i64(-2.7), -2);
/// assert_eq!(float_to_i64(f64::NAN), i64::MIN);
/// assert_eq!(float_to_i64(1e30), i64::MIN);
/// ```
pub fn float_to_i64(v: f64) -> i64 {
    // 2^63 is exactly representable; everything in [-2^63, 2^63) truncates into range.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if v.is_nan() || !(-LIMIT..LIMIT).contains(&v) {
        i64::MIN
    } else {
        v as i64
    }
}

/// An element type: `bool`, `i64`, `f32` or `f64`.
///
/// Casts follow what torch's CPU kernels do: round to nearest for int to float, truncation
/// toward zero for float to int (see [`float_to_i64`] for values out of range), non-zero is
/// `true`.
pub trait Element:
    crate::storage::BufferElement + Copy + Send + Sync + PartialEq + Debug + Default + 'static
{
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Converts from `bool`.
    fn from_bool(v: bool) -> Self;
    /// Converts from `i64`.
    fn from_i64(v: i64) -> Self;
    /// Converts from `f32`.
    fn from_f32(v: f32) -> Self;
    /// Converts from `f64`.
    fn from_f64(v: f64) -> Self;
    /// Converts to another element type with one direct cast (no double rounding).
    fn cast<U: Element>(self) -> U;
    /// The value as a [`Scalar`].
    fn to_scalar(self) -> Scalar;
    /// Converts a [`Scalar`] with the same casts.
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => Self::from_bool(b),
            Scalar::Int(i) => Self::from_i64(i),
            Scalar::Float(f) => Self::from_f64(f),
        }
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn from_bool(v: bool) -> Self {
        v
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn from_f32(v: f32) -> Self {
        v != 0.0
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn cast<U: Element>(self) -> U {
        U::from_bool(self)
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
}

impl Element for i64 {
    const DTYPE: DType = DType::Int64;
    fn from_bool(v: bool) -> Self {
        v as i64
    }
    fn from_i64(v: i64) -> Self {
        v
    }
    fn from_f32(v: f32) -> Self {
        float_to_i64(v as f64)
    }
    fn from_f64(v: f64) -> Self {
        float_to_i64(v)
    }
    fn cast<U: Element>(self) -> U {
        U::from_i64(self)
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Int(self)
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    fn from_bool(v: bool) -> Self {
        v as u8 as f32
    }
    fn from_i64(v: i64) -> Self {
        v as f32
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn cast<U: Element>(self) -> U {
        U::from_f32(self)
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self as f64)
    }
}

impl Element for f64 {
    const DTYPE: DType = DType::Float64;
    fn from_bool(v: bool) -> Self {
        v as u8 as f64
    }
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    fn from_f32(v: f32) -> Self {
        v as f64
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn cast<U: Element>(self) -> U {
        U::from_f64(self)
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self)
    }
}

/// Runs `$body` with `$T` bound to the element type of `$dtype`.
///
/// ```
/// use bcast_engine::{dispatch_dtype, DType, Element};
/// let size = dispatch_dtype!(DType::Float64, T => std::mem::size_of::<T>());
/// assert_eq!(size, 8);
/// ```
#[macro_export]
macro_rules! dispatch_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
        }
    };
}
