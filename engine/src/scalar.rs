//! Python numbers passed to ops (`x + 2`, `alpha=0.5`), and element values read out of tensors.
//!
//! ```
//! use bcast_engine::{DType, Scalar};
//! assert_eq!(Scalar::Float(2.5).wrapped_dtype(), DType::Float32);
//! assert_eq!(Scalar::Int(3).to_f64(), 3.0);
//! ```

use crate::{DType, Error, Result};
use std::fmt;

/// A Python `bool`, `int`, `float` or `complex`; also any element value of a tensor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A Python `bool`.
    Bool(bool),
    /// A Python `int` (within `int64`).
    Int(i64),
    /// A Python `float` (a double).
    Float(f64),
    /// A Python `complex` (two doubles: real, imaginary).
    Complex(f64, f64),
}

impl Scalar {
    /// The dtype torch gives this number when it wraps it as a tensor operand:
    /// `bool`, `int64`, the default float dtype `float32`, or its complex `complex64`.
    pub fn wrapped_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float32,
            Scalar::Complex(..) => DType::Complex64,
        }
    }

    /// The value as `f64` (`true` is 1; a complex number's real part).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) | Scalar::Complex(f, _) => f,
        }
    }

    /// The value as `i64`, truncating a float toward zero like a C++ cast (saturating).
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) | Scalar::Complex(f, _) => f as i64,
        }
    }

    /// The value as `bool`: non-zero is true.
    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }

    /// Whether this is a Python float.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// Whether this is a Python complex.
    pub fn is_complex(self) -> bool {
        matches!(self, Scalar::Complex(..))
    }

    /// The imaginary part (0 unless complex).
    pub fn imag(self) -> f64 {
        match self {
            Scalar::Complex(_, im) => im,
            _ => 0.0,
        }
    }

    /// Whether this is a Python bool.
    pub fn is_bool(self) -> bool {
        matches!(self, Scalar::Bool(_))
    }
}

impl Scalar {
    /// c10's checked conversion of a Python number to the C++ type of `dtype` (`Scalar::to<T>()`,
    /// which torch runs where it turns a number into one value of a tensor's dtype: `pow`'s
    /// exponent, `torch.where`'s number operand). An integer fits an integral type within its
    /// range, except that `uint8` also takes the negatives down to `-max`, which wrap (`-255`
    /// is `1` in `uint8`); anything fits `bool` (`checked_convert` skips the check for it: `1e30`,
    /// NaN and `1+2j` are all `True`); any integer fits `float32` and wider, and
    /// `float16` within its finite range (`±65504`). A float fits a floating type when it is
    /// infinite, NaN or within the finite range (`1e39` does not fit `float32`, though it
    /// would round to `inf`); a complex number when both parts do, and a real type only
    /// with a zero imaginary part. A bool fits anything.
    ///
    /// # Errors
    /// torch's `RuntimeError`: `value cannot be converted to type int8_t without overflow`,
    /// naming the C++ type (`uint8_t`, `int`, `c10::Half`, `float`, `c10::complex<float>`, ...).
    ///
    /// ```
    /// use bcast_engine::{DType, Scalar};
    /// assert!(Scalar::Int(-255).check_fits(DType::UInt8).is_ok());
    /// let e = Scalar::Int(-200).check_fits(DType::Int8).unwrap_err();
    /// assert_eq!(e.message(), "value cannot be converted to type int8_t without overflow");
    /// assert!(Scalar::Float(1e39).check_fits(DType::Float32).is_err());
    /// assert!(Scalar::Float(f64::INFINITY).check_fits(DType::Float32).is_ok());
    /// assert!(Scalar::Float(1e30).check_fits(DType::Bool).is_ok());
    /// ```
    pub fn check_fits(self, dtype: DType) -> Result<()> {
        if dtype == DType::Bool {
            return Ok(());
        }
        let (lowest, max) = limits(dtype.to_real());
        let integral = !dtype.is_floating() && !dtype.is_complex();
        // `overflows<To, double>`: an infinity fits a type that has one, a NaN one that has it.
        let float_overflows = |x: f64| {
            if x.is_nan() {
                integral
            } else if x.is_infinite() && !integral {
                false
            } else {
                x < lowest || x > max
            }
        };
        let overflows = match self {
            Scalar::Bool(_) => false,
            Scalar::Int(i) if integral && lowest == 0.0 => {
                // Unsigned: negatives wrap, down to `-max`.
                i as f64 > max || (i < 0 && (i as u64).wrapping_neg() as f64 > max)
            }
            Scalar::Int(i) => (i as f64) < lowest || i as f64 > max,
            Scalar::Float(x) => float_overflows(x),
            Scalar::Complex(re, im) => {
                (!dtype.is_complex() && im != 0.0) || float_overflows(re) || float_overflows(im)
            }
        };
        if overflows {
            return Err(Error::runtime(format!(
                "value cannot be converted to type {} without overflow",
                dtype.cpp_type_name()
            )));
        }
        Ok(())
    }
}

/// The lowest and the largest finite value of a real dtype, as doubles.
fn limits(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Bool => (0.0, 1.0),
        DType::UInt8 => (0.0, u8::MAX as f64),
        DType::Int8 => (i8::MIN as f64, i8::MAX as f64),
        DType::Int16 => (i16::MIN as f64, i16::MAX as f64),
        DType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        DType::Int64 => (i64::MIN as f64, i64::MAX as f64),
        DType::Float16 => (-65504.0, 65504.0),
        DType::BFloat16 => (-3.3895313892515355e38, 3.3895313892515355e38),
        DType::Float32 => (f32::MIN as f64, f32::MAX as f64),
        _ => (f64::MIN, f64::MAX),
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x:?}"),
            Scalar::Complex(re, im) => {
                // Python's repr: `(1+2j)`, `-3j` for a zero real part.
                let im_text = python_float(*im);
                if *re == 0.0 && re.is_sign_positive() {
                    write!(f, "{im_text}j")
                } else {
                    let sign = if im.is_sign_negative() || im.is_nan() && im_text.starts_with('-') {
                        ""
                    } else {
                        "+"
                    };
                    write!(f, "({}{sign}{im_text}j)", python_float(*re))
                }
            }
        }
    }
}

/// A float as Python prints it inside a complex repr (`1`, `2.5`, `inf`, `nan`).
fn python_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if x == x.trunc() && x.abs() < 1e16 {
        format!("{}", x as i64).replace(
            "0",
            if x == 0.0 && x.is_sign_negative() {
                "-0"
            } else {
                "0"
            },
        )
    } else {
        format!("{x:?}")
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Scalar {
        Scalar::Bool(v)
    }
}

impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::Int(v)
    }
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::Float(v)
    }
}
