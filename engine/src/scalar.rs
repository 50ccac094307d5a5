//! Python numbers passed to ops (`x + 2`, `alpha=0.5`), and element values read out of tensors.
//!
//! ```
//! use bcast_engine::{DType, Scalar};
//! assert_eq!(Scalar::Float(2.5).wrapped_dtype(), DType::Float32);
//! assert_eq!(Scalar::Int(3).to_f64(), 3.0);
//! ```

use crate::DType;
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
