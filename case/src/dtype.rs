//! The dtypes a case can name, as the schema spells them.

/// A dtype of the schema: every dtype torch broadcasts, and `complex32`, by torch's name.
///
/// ```
/// use bcast_case::DType;
/// assert_eq!(DType::from_name("float32"), Some(DType::Float32));
/// assert_eq!(DType::Int64.name(), "int64");
/// assert!(DType::from_name("f32").is_none());
/// assert_eq!(DType::from_name("bfloat16").map(DType::since_schema), Some(2));
/// assert_eq!(DType::from_name("complex32").map(DType::since_schema), Some(4));
/// assert_eq!(DType::UInt8.int_range(), Some((0, 255)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DType {
    /// `torch.bool`.
    Bool,
    /// `torch.uint8` (schema 2).
    UInt8,
    /// `torch.int8` (schema 2).
    Int8,
    /// `torch.int16` (schema 2).
    Int16,
    /// `torch.int32` (schema 2).
    Int32,
    /// `torch.int64`.
    Int64,
    /// `torch.float16`, IEEE half (schema 2).
    Float16,
    /// `torch.bfloat16`, brain float (schema 2).
    BFloat16,
    /// `torch.float32`.
    Float32,
    /// `torch.float64`.
    Float64,
    /// `torch.complex32` (`ComplexHalf`), two `float16` parts (schema 4): what torch computes
    /// a `float16` tensor with a complex 0-d tensor or number in.
    Complex32,
    /// `torch.complex64`, two `float32` parts (schema 2).
    Complex64,
    /// `torch.complex128`, two `float64` parts (schema 2).
    Complex128,
}

/// How a dtype's values are written and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// JSON `true` / `false`.
    Bool,
    /// A JSON integer within the dtype's range ([`DType::int_range`]).
    Int,
    /// A JSON number, or `"nan"`, `"inf"`, `"-inf"`.
    Float,
    /// A pair `[re, im]`, each part written as a float (exactly a `float16` for
    /// `complex32`).
    Complex,
}

impl DType {
    /// Every dtype, in the schema's order.
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex32,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The name fixtures use (torch's, without `torch.`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex32 => "complex32",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Parses [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The first schema version that has this dtype: 1 for `bool`, `int64`, `float32` and
    /// `float64`, 4 for `complex32`, 2 for the others.
    pub fn since_schema(self) -> u32 {
        match self {
            DType::Bool | DType::Int64 | DType::Float32 | DType::Float64 => 1,
            DType::Complex32 => crate::model::COMPLEX32_SCHEMA,
            _ => 2,
        }
    }

    /// How its values are written.
    pub fn value_kind(self) -> ValueKind {
        match self {
            DType::Bool => ValueKind::Bool,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => {
                ValueKind::Int
            }
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => ValueKind::Float,
            DType::Complex32 | DType::Complex64 | DType::Complex128 => ValueKind::Complex,
        }
    }

    /// Whether its values are real floating point (`float16` ... `float64`).
    pub fn is_floating(self) -> bool {
        self.value_kind() == ValueKind::Float
    }

    /// Whether its values are complex.
    pub fn is_complex(self) -> bool {
        self.value_kind() == ValueKind::Complex
    }

    /// The smallest and largest value of an integer dtype; `None` for the others.
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            DType::UInt8 => Some((0, u8::MAX.into())),
            DType::Int8 => Some((i8::MIN.into(), i8::MAX.into())),
            DType::Int16 => Some((i16::MIN.into(), i16::MAX.into())),
            DType::Int32 => Some((i32::MIN.into(), i32::MAX.into())),
            DType::Int64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }

    /// The binary format of a half-precision dtype (`float16`, `bfloat16`) or of each part of
    /// `complex32`, whose values a fixture must write exactly; `None` for the others.
    pub(crate) fn half_format(self) -> Option<HalfFormat> {
        match self {
            DType::Float16 | DType::Complex32 => Some(HalfFormat::FLOAT16),
            DType::BFloat16 => Some(HalfFormat::BFLOAT16),
            _ => None,
        }
    }
}

/// A binary floating-point format narrower than `f64`: its fraction bits and exponent range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HalfFormat {
    /// Stored fraction bits (the significand has one more).
    pub fraction_bits: u32,
    /// The exponent of the smallest normal value.
    pub min_exp: i32,
    /// The exponent of the largest finite value.
    pub max_exp: i32,
}

impl HalfFormat {
    pub const FLOAT16: HalfFormat = HalfFormat {
        fraction_bits: 10,
        min_exp: -14,
        max_exp: 15,
    };
    pub const BFLOAT16: HalfFormat = HalfFormat {
        fraction_bits: 7,
        min_exp: -126,
        max_exp: 127,
    };

    /// Whether `x` is exactly a value of the format (NaN and the infinities are).
    pub fn holds(self, x: f64) -> bool {
        if !x.is_finite() || x == 0.0 {
            return true;
        }
        let bits = x.to_bits();
        let exp_field = ((bits >> 52) & 0x7ff) as i32;
        if exp_field == 0 {
            return false; // an f64 subnormal, far below the smallest half value
        }
        let exp = exp_field - 1023;
        if exp > self.max_exp {
            return false;
        }
        let fraction = bits & ((1u64 << 52) - 1);
        let lowest_bit = exp - 52 + fraction.trailing_zeros().min(52) as i32;
        lowest_bit >= exp.max(self.min_exp) - self.fraction_bits as i32
    }

    /// `x` rounded to the format, ties to even, overflowing to an infinity (for integers below
    /// 2^24, the fill recipes' `arange`: the same as rounding through `float32`).
    pub fn round(self, x: f64) -> f64 {
        if !x.is_finite() || x == 0.0 {
            return x;
        }
        // x is a normal f64 wherever a half value is near (its exponent field is not 0).
        let exp = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let quantum = 2f64.powi(exp.max(self.min_exp) - self.fraction_bits as i32);
        let r = (x / quantum).round_ties_even() * quantum;
        let max = (2.0 - 2f64.powi(-(self.fraction_bits as i32))) * 2f64.powi(self.max_exp);
        if r.abs() > max {
            f64::INFINITY.copysign(x)
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_formats_hold_exactly_their_values() {
        let f16 = HalfFormat::FLOAT16;
        for x in [
            1.0,
            -2.5,
            65504.0,
            6.103515625e-05,
            5.960464477539063e-08,
            2048.0,
            2050.0,
        ] {
            assert!(f16.holds(x), "{x}");
        }
        for x in [
            0.1,
            65505.0,
            65536.0,
            2049.0,
            2.98e-08,
            1.0 + 2f64.powi(-11),
        ] {
            assert!(!f16.holds(x), "{x}");
        }
        let bf16 = HalfFormat::BFLOAT16;
        for x in [
            1.0,
            3.75,
            257.0 - 1.0,
            3.3895313892515355e38,
            9.183549615799121e-41,
        ] {
            assert!(bf16.holds(x), "{x}");
        }
        for x in [257.0, 0.1, 1.0 + 2f64.powi(-8), 3.4e38] {
            assert!(!bf16.holds(x), "{x}");
        }
    }

    #[test]
    fn rounding_is_to_nearest_even_and_overflows_to_inf() {
        let f16 = HalfFormat::FLOAT16;
        assert_eq!(f16.round(2049.0), 2048.0);
        assert_eq!(f16.round(2051.0), 2052.0);
        assert_eq!(f16.round(65519.0), 65504.0);
        assert_eq!(f16.round(65520.0), f64::INFINITY);
        assert_eq!(HalfFormat::BFLOAT16.round(257.0), 256.0);
        assert_eq!(HalfFormat::BFLOAT16.round(259.0), 260.0);
        for i in 0..70000 {
            let r = f16.round(i as f64);
            assert!(f16.holds(r), "{i} -> {r}");
        }
    }
}
