//! One element value in JSON: a bool, an integer, a float, or `"nan"`, `"inf"`, `"-inf"`.

use crate::DType;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An element value as fixtures write it.
///
/// ```
/// use bcast_case::Num;
/// let v: Vec<Num> = serde_json::from_str(r#"[1, 2.5, "nan", true]"#).unwrap();
/// assert_eq!(v[0], Num::Int(1));
/// assert!(v[2].to_f64().is_nan());
/// assert_eq!(serde_json::to_string(&Num::Float(f64::INFINITY)).unwrap(), "\"inf\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// A bool element.
    Bool(bool),
    /// An integer element, exact (JSON integer).
    Int(i64),
    /// A floating element (JSON number, or `"nan"`, `"inf"`, `"-inf"`).
    Float(f64),
}

impl Num {
    /// The value as `f64` (an int64 beyond 2^53 rounds; compare integers as integers).
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Bool(b) => f64::from(u8::from(b)),
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Whether this value can be an element of `dtype` as written (an int for a float dtype
    /// is accepted; a float for an int dtype is not).
    pub fn fits(self, dtype: DType) -> bool {
        matches!(
            (self, dtype),
            (Num::Bool(_), DType::Bool)
                | (Num::Int(_), DType::Int64 | DType::Float32 | DType::Float64)
                | (Num::Float(_), DType::Float32 | DType::Float64)
        )
    }
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::Bool(b) => s.serialize_bool(b),
            Num::Int(i) => s.serialize_i64(i),
            Num::Float(f) if f.is_nan() => s.serialize_str("nan"),
            Num::Float(f) if f.is_infinite() => {
                s.serialize_str(if f > 0.0 { "inf" } else { "-inf" })
            }
            Num::Float(f) => s.serialize_f64(f),
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        crate::bounded::charge_element()?;
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Int(i64),
            Float(f64),
            Text(String),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Bool(b) => Num::Bool(b),
            Raw::Int(i) => Num::Int(i),
            Raw::Float(f) => Num::Float(f),
            Raw::Text(t) => Num::Float(match t.as_str() {
                "nan" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "expected a number, \"nan\", \"inf\" or \"-inf\", got {other:?}"
                    )))
                }
            }),
        })
    }
}
