//! One element value in JSON: a bool, an integer, a float, or `"nan"`, `"inf"`, `"-inf"`;
//! a complex value is a pair `[re, im]` of floats.

use crate::dtype::ValueKind;
use crate::DType;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An element value as fixtures write it.
///
/// ```
/// use bcast_case::Num;
/// let v: Vec<Num> = serde_json::from_str(r#"[1, 2.5, "nan", true]"#).unwrap();
/// assert_eq!(v[0], Num::Int(1));
/// assert!(v[2].to_f64().is_nan());
/// assert_eq!(serde_json::to_string(&Num::Float(f64::INFINITY)).unwrap(), "\"inf\"");
/// let z: Num = serde_json::from_str(r#"[1.5, "-inf"]"#).unwrap();
/// assert_eq!(z, Num::Complex(1.5, f64::NEG_INFINITY));
/// assert_eq!(serde_json::to_string(&z).unwrap(), r#"[1.5,"-inf"]"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// A bool element.
    Bool(bool),
    /// An integer element, exact (JSON integer).
    Int(i64),
    /// A floating element (JSON number, or `"nan"`, `"inf"`, `"-inf"`).
    Float(f64),
    /// A complex element `[re, im]`, each part written as a float (schema 2).
    Complex(f64, f64),
}

impl Num {
    /// The value as `f64` (an int64 beyond 2^53 rounds; compare integers as integers; a
    /// complex value gives its real part, as torch casts complex to real).
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Bool(b) => f64::from(u8::from(b)),
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
            Num::Complex(re, _) => re,
        }
    }

    /// Whether this value can be an element of `dtype` as written (see [`Num::check`]).
    pub fn fits(self, dtype: DType) -> bool {
        self.check(dtype).is_ok()
    }

    /// Whether this value can be an element of `dtype` as written, and if not, why:
    /// - `bool` takes JSON bools only;
    /// - an integer dtype takes JSON integers within its range (a float is never an integer);
    /// - `float32` and `float64` take any number (torch rounds a `float32` value as
    ///   `torch.tensor` does), `float16` and `bfloat16` only numbers the dtype holds exactly
    ///   (NaN and the infinities included): a fixture writes a half value exactly, so no
    ///   reader has to agree with torch on rounding a double to a half;
    /// - `complex64` and `complex128` take `[re, im]` pairs only, `complex32` pairs whose parts
    ///   are exactly `float16` values.
    ///
    /// ```
    /// use bcast_case::{DType, Num};
    /// assert!(Num::Int(255).check(DType::UInt8).is_ok());
    /// assert_eq!(Num::Int(300).check(DType::UInt8).unwrap_err(), "300 is out of the range of uint8 (0 to 255)");
    /// assert!(Num::Float(0.1).check(DType::Float32).is_ok());
    /// assert!(Num::Float(0.1).check(DType::Float16).unwrap_err().contains("not exactly a float16"));
    /// assert!(Num::Float(65504.0).check(DType::Float16).is_ok());
    /// assert!(Num::Complex(1.0, 0.5).check(DType::Complex64).is_ok());
    /// assert!(Num::Float(1.0).check(DType::Complex64).is_err());
    /// assert!(Num::Complex(2048.0, -0.25).check(DType::Complex32).is_ok());
    /// assert!(Num::Complex(2049.0, 0.0).check(DType::Complex32).is_err());
    /// ```
    pub fn check(self, dtype: DType) -> Result<(), String> {
        let not_a = |what: &str| Err(format!("{} is {what}, not a {}", self.show(), dtype.name()));
        match (dtype.value_kind(), self) {
            (ValueKind::Bool, Num::Bool(_)) => Ok(()),
            (ValueKind::Int, Num::Int(i)) => {
                let (lo, hi) = dtype.int_range().unwrap_or((i64::MIN, i64::MAX));
                if (lo..=hi).contains(&i) {
                    Ok(())
                } else {
                    Err(format!(
                        "{i} is out of the range of {} ({lo} to {hi})",
                        dtype.name()
                    ))
                }
            }
            (ValueKind::Float, Num::Int(_) | Num::Float(_)) => match dtype.half_format() {
                Some(format) => {
                    let exact = match self {
                        Num::Int(i) => (i as f64) as i128 == i128::from(i),
                        _ => true,
                    };
                    if exact && format.holds(self.to_f64()) {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} is not exactly a {} (a fixture writes half values exactly)",
                            self.show(),
                            dtype.name()
                        ))
                    }
                }
                None => Ok(()),
            },
            (ValueKind::Complex, Num::Complex(re, im)) => match dtype.half_format() {
                Some(format) if !(format.holds(re) && format.holds(im)) => Err(format!(
                    "{} is not exactly a {} (a fixture writes half values exactly)",
                    self.show(),
                    dtype.name()
                )),
                _ => Ok(()),
            },
            (_, Num::Bool(_)) => not_a("a bool"),
            (_, Num::Int(_)) => not_a("an integer"),
            (_, Num::Float(_)) => not_a("a float"),
            (_, Num::Complex(..)) => not_a("a complex pair"),
        }
    }

    /// The value as fixtures write it, for messages.
    fn show(self) -> String {
        serde_json::to_string(&self).unwrap_or_else(|_| format!("{self:?}"))
    }
}

fn float_text(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("nan")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "inf" } else { "-inf" })
    } else {
        None
    }
}

/// One part of a complex pair, serialized as a float element is.
struct Part(f64);

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match float_text(self.0) {
            Some(t) => s.serialize_str(t),
            None => s.serialize_f64(self.0),
        }
    }
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::Bool(b) => s.serialize_bool(b),
            Num::Int(i) => s.serialize_i64(i),
            Num::Float(f) => Part(f).serialize(s),
            Num::Complex(re, im) => (Part(re), Part(im)).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        crate::bounded::charge_element()?;
        d.deserialize_any(NumVisitor)
    }
}

/// A [`Num`] read in one pass over its JSON. (serde's `untagged` buffers the value and tries
/// each form in turn, building a formatted error for every form that does not match: most of
/// the time a corpus took to load.)
struct NumVisitor;

impl<'de> Visitor<'de> for NumVisitor {
    type Value = Num;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, \"nan\", \"inf\", \"-inf\", a bool or a pair [re, im]")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Num, E> {
        Ok(Num::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
        Ok(Num::Int(v))
    }

    /// An integer above `i64::MAX` is read as a float, as JSON numbers are.
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
        Ok(i64::try_from(v).map_or(Num::Float(v as f64), Num::Int))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
        Ok(Num::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
        float_named(v).map(Num::Float)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Num, A::Error> {
        let mut part = |i| {
            seq.next_element::<Part>()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))
        };
        let (re, im) = (part(0)?, part(1)?);
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(Num::Complex(re.0, im.0))
    }
}

/// `"nan"`, `"inf"` or `"-inf"` as the float it names.
fn float_named<E: de::Error>(t: &str) -> Result<f64, E> {
    match t {
        "nan" => Ok(f64::NAN),
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        other => Err(E::custom(format!(
            "expected a number, \"nan\", \"inf\" or \"-inf\", got {other:?}"
        ))),
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Part, D::Error> {
        d.deserialize_any(PartVisitor)
    }
}

/// One part of a complex pair: any JSON number, or a float's name.
struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, \"nan\", \"inf\" or \"-inf\"")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Part, E> {
        Ok(Part(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Part, E> {
        Ok(Part(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Part, E> {
        Ok(Part(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Part, E> {
        float_named(v).map(Part)
    }
}
