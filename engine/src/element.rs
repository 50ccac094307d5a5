//! The Rust types behind the dtypes, and torch's CPU casts between them.
//!
//! ```
//! use bcast_engine::Element;
//! assert_eq!(<f32 as Element>::from_i64(16_777_217), 16_777_216.0);
//! assert_eq!(2.7f64.cast::<i64>(), 2);
//! assert_eq!(f32::INFINITY.cast::<i64>(), i64::MIN);
//! assert!(0.5f32.cast::<bool>());
//! // float → narrow int goes through int32, then keeps the low bits.
//! assert_eq!((-1.5f32).cast::<u8>(), 255);
//! assert_eq!(1e10f32.cast::<i8>(), 0);
//! ```

use crate::complex::Complex;
use crate::half::{BFloat16, Half};
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
#[inline]
pub fn float_to_i64(v: f64) -> i64 {
    // 2^63 is exactly representable; everything in [-2^63, 2^63) truncates into range.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if v.is_nan() || !(-LIMIT..LIMIT).contains(&v) {
        i64::MIN
    } else {
        v as i64
    }
}

/// A float to `int32` as x86-64's 32-bit `cvttsd2si` does it: toward zero, and NaN or any
/// value outside the `int32` range becomes `i32::MIN`. torch's casts to `int32`, `int16`,
/// `int8` and `uint8` go through it (the narrower ones keep its low bits).
///
/// ```
/// # use bcast_engine::element::float_to_i32;
/// assert_eq!(float_to_i32(3e9), i32::MIN);
/// assert_eq!(float_to_i32(-300.9), -300);
/// ```
#[inline]
pub fn float_to_i32(v: f64) -> i32 {
    if v.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        i32::MIN
    } else {
        v as i32
    }
}

/// A value in the widest form of its kind, the common ground of every cast: a cast reads the
/// source into one of these and the destination converts from it, as C++'s `static_cast`
/// from the source type would.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wide {
    /// A `bool`.
    Bool(bool),
    /// Any integer dtype's value.
    Int(i64),
    /// A `float32`, `float16` or `bfloat16` value (exact in `f32`).
    F32(f32),
    /// A `float64` value.
    F64(f64),
    /// A `complex64` or `complex32` value.
    C64(f32, f32),
    /// A `complex128` value.
    C128(f64, f64),
}

impl Wide {
    /// Whether the value is not zero (NaN is not zero), as a cast to `bool` asks.
    #[inline]
    pub fn nonzero(self) -> bool {
        match self {
            Wide::Bool(b) => b,
            Wide::Int(i) => i != 0,
            Wide::F32(f) => f != 0.0,
            Wide::F64(f) => f != 0.0,
            Wide::C64(r, i) => r != 0.0 || i != 0.0,
            Wide::C128(r, i) => r != 0.0 || i != 0.0,
        }
    }

    /// The real part as an `int64` (floats through `cvttsd2si`).
    #[inline]
    fn to_i64(self) -> i64 {
        match self {
            Wide::Bool(b) => b as i64,
            Wide::Int(i) => i,
            Wide::F32(f) | Wide::C64(f, _) => float_to_i64(f as f64),
            Wide::F64(f) | Wide::C128(f, _) => float_to_i64(f),
        }
    }

    /// The real part as an `int32`, as the casts to `int32` and narrower do: integers keep
    /// their low bits, floats go through 32-bit `cvttsd2si`.
    #[inline]
    fn to_i32(self) -> i32 {
        match self {
            Wide::Bool(b) => b as i32,
            Wide::Int(i) => i as i32,
            Wide::F32(f) | Wide::C64(f, _) => float_to_i32(f as f64),
            Wide::F64(f) | Wide::C128(f, _) => float_to_i32(f),
        }
    }

    /// The real part as an `f32`, rounded once.
    #[inline]
    fn to_f32(self) -> f32 {
        match self {
            Wide::Bool(b) => b as u8 as f32,
            Wide::Int(i) => i as f32,
            Wide::F32(f) | Wide::C64(f, _) => f,
            Wide::F64(f) | Wide::C128(f, _) => f as f32,
        }
    }

    /// The real part as an `f64`.
    #[inline]
    fn to_f64(self) -> f64 {
        match self {
            Wide::Bool(b) => b as u8 as f64,
            Wide::Int(i) => i as f64,
            Wide::F32(f) | Wide::C64(f, _) => f as f64,
            Wide::F64(f) | Wide::C128(f, _) => f,
        }
    }

    /// The imaginary part (0 for a real value).
    #[inline]
    fn imag_f64(self) -> f64 {
        match self {
            Wide::C64(_, i) => i as f64,
            Wide::C128(_, i) => i,
            _ => 0.0,
        }
    }
}

/// An element type: `bool`, `u8`, `i8`, `i16`, `i32`, `i64`, [`Half`], [`BFloat16`], `f32`,
/// `f64`, [`Complex<Half>`](Complex), [`Complex<f32>`](Complex), [`Complex<f64>`](Complex).
///
/// Casts follow torch's CPU `.to()`: ints wrap to the narrower type; int → float rounds once
/// (to `float16`/`bfloat16` through `float32`, so twice); float → int truncates toward zero
/// (see [`float_to_i64`] and [`float_to_i32`] for the values out of range); `float64` →
/// `float16`/`bfloat16` goes through `float32`; complex → real drops the imaginary part;
/// non-zero is `true`.
pub trait Element:
    crate::storage::BufferElement + Copy + Send + Sync + PartialEq + Debug + Default + 'static
{
    /// The dtype of this element type.
    const DTYPE: DType;
    /// The value in its widest form.
    fn to_wide(self) -> Wide;
    /// Converts from a widest form with torch's cast.
    fn from_wide(w: Wide) -> Self;
    /// Converts from `bool`.
    #[inline]
    fn from_bool(v: bool) -> Self {
        Self::from_wide(Wide::Bool(v))
    }
    /// Converts from `i64`.
    #[inline]
    fn from_i64(v: i64) -> Self {
        Self::from_wide(Wide::Int(v))
    }
    /// Converts from `f32`.
    #[inline]
    fn from_f32(v: f32) -> Self {
        Self::from_wide(Wide::F32(v))
    }
    /// Converts from `f64`.
    #[inline]
    fn from_f64(v: f64) -> Self {
        Self::from_wide(Wide::F64(v))
    }
    /// Converts to another element type with torch's cast.
    #[inline]
    fn cast<U: Element>(self) -> U {
        U::from_wide(self.to_wide())
    }
    /// The value as a [`Scalar`].
    fn to_scalar(self) -> Scalar;
    /// Converts a [`Scalar`] with the same casts (a Python float is a `float64`, a Python
    /// complex a `complex128`).
    #[inline]
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => Self::from_bool(b),
            Scalar::Int(i) => Self::from_i64(i),
            Scalar::Float(f) => Self::from_f64(f),
            Scalar::Complex(re, im) => Self::from_wide(Wide::C128(re, im)),
        }
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::Bool(self)
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        w.nonzero()
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
}

macro_rules! int_element {
    ($t:ty, $dtype:ident, $via:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            #[inline]
            fn to_wide(self) -> Wide {
                Wide::Int(self as i64)
            }
            #[inline]
            fn from_wide(w: Wide) -> Self {
                w.$via() as $t
            }
            fn to_scalar(self) -> Scalar {
                Scalar::Int(self as i64)
            }
        }
    };
}
int_element!(u8, UInt8, to_i32);
int_element!(i8, Int8, to_i32);
int_element!(i16, Int16, to_i32);
int_element!(i32, Int32, to_i32);
int_element!(i64, Int64, to_i64);

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::F32(self)
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        w.to_f32()
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self as f64)
    }
}

impl Element for f64 {
    const DTYPE: DType = DType::Float64;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::F64(self)
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        w.to_f64()
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self)
    }
}

impl Element for Half {
    const DTYPE: DType = DType::Float16;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::F32(self.to_f32())
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        Half::from_f32(w.to_f32())
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self.to_f32() as f64)
    }
}

impl Element for BFloat16 {
    const DTYPE: DType = DType::BFloat16;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::F32(self.to_f32())
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        BFloat16::from_f32(w.to_f32())
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self.to_f32() as f64)
    }
}

impl Element for Complex<f32> {
    const DTYPE: DType = DType::Complex64;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::C64(self.re, self.im)
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        match w {
            Wide::C64(re, im) => Complex::new(re, im),
            Wide::C128(re, im) => Complex::new(re as f32, im as f32),
            w => Complex::new(w.to_f32(), 0.0),
        }
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Complex(self.re as f64, self.im as f64)
    }
}

impl Element for Complex<Half> {
    const DTYPE: DType = DType::Complex32;
    /// Both parts exactly, as `complex64` (c10 computes `ComplexHalf` in `complex<float>`).
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::C64(self.re.to_f32(), self.im.to_f32())
    }
    /// Each part rounded to `float16` through `float32`, as `float16` is.
    #[inline]
    fn from_wide(w: Wide) -> Self {
        let (re, im) = match w {
            Wide::C64(re, im) => (re, im),
            Wide::C128(re, im) => (re as f32, im as f32),
            w => (w.to_f32(), 0.0),
        };
        Complex::new(Half::from_f32(re), Half::from_f32(im))
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Complex(self.re.to_f32() as f64, self.im.to_f32() as f64)
    }
}

impl Element for Complex<f64> {
    const DTYPE: DType = DType::Complex128;
    #[inline]
    fn to_wide(self) -> Wide {
        Wide::C128(self.re, self.im)
    }
    #[inline]
    fn from_wide(w: Wide) -> Self {
        Complex::new(w.to_f64(), w.imag_f64())
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Complex(self.re, self.im)
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
            $crate::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float16 => {
                type $T = $crate::half::Half;
                $body
            }
            $crate::DType::BFloat16 => {
                type $T = $crate::half::BFloat16;
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
            $crate::DType::Complex32 => {
                type $T = $crate::complex::Complex<$crate::half::Half>;
                $body
            }
            $crate::DType::Complex64 => {
                type $T = $crate::complex::Complex<f32>;
                $body
            }
            $crate::DType::Complex128 => {
                type $T = $crate::complex::Complex<f64>;
                $body
            }
        }
    };
}

/// Like [`dispatch_dtype!`] over the four dtypes with every kernel (`bool`, `int64`,
/// `float32`, `float64`); any other binds `$other` and evaluates `$fallback`.
macro_rules! dispatch_legacy {
    ($dtype:expr, $T:ident => $body:expr, $other:ident => $fallback:expr) => {
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
            $other => $fallback,
        }
    };
}
pub(crate) use dispatch_legacy;

/// Like [`dispatch_dtype!`] over the ten real dtypes (bool, the integers, the floats); a
/// complex dtype binds `$other` and evaluates `$fallback`.
macro_rules! dispatch_real {
    ($dtype:expr, $T:ident => $body:expr, $other:ident => $fallback:expr) => {
        match $dtype {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float16 => {
                type $T = $crate::half::Half;
                $body
            }
            $crate::DType::BFloat16 => {
                type $T = $crate::half::BFloat16;
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
            $other => $fallback,
        }
    };
}
pub(crate) use dispatch_real;

/// Like [`dispatch_dtype!`] over the twelve dtypes with products and reductions (all but
/// `complex32`, for which torch's CPU kernels have few of their loops); `complex32` binds
/// `$other` and evaluates `$fallback`.
macro_rules! dispatch_twelve {
    ($dtype:expr, $T:ident => $body:expr, $other:ident => $fallback:expr) => {
        match $dtype {
            $crate::DType::Complex32 => {
                let $other = $crate::DType::Complex32;
                $fallback
            }
            $crate::DType::Complex64 => {
                type $T = $crate::complex::Complex<f32>;
                $body
            }
            $crate::DType::Complex128 => {
                type $T = $crate::complex::Complex<f64>;
                $body
            }
            real => $crate::element::dispatch_real!(real, $T => $body, $other => $fallback),
        }
    };
}
pub(crate) use dispatch_twelve;
