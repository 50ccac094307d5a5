//! Storage fill recipes, identical to `python/bcast_suite/fill.py`: both are checked against
//! the golden vectors of `tests/data/fill_vectors.json` (`tests/it/fill_vectors.rs`, `python/tests`).

use super::{Fill, FillKind, Num};
use crate::dtype::{HalfFormat, ValueKind};
use crate::DType;

/// One step of splitmix64: the next state and the output.
///
/// ```
/// # use bcast_case::splitmix64;
/// let (state, out) = splitmix64(0);
/// assert_eq!(state, 0x9E3779B97F4A7C15);
/// assert_eq!(out, 0xE220A8397B1DCDAF);
/// ```
pub fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// The values a fill recipe describes (see `fixtures/README.md`). Every value is exactly a
/// value of the dtype.
///
/// - `arange`: element `i` is `torch.arange(len).to(dtype)[i]`: `i` for `int64`, `float32`
///   and `float64`; `i` wrapped to the range of a narrower integer dtype (two's complement:
///   `int8` goes `..., 127, -128, ...`, `uint8` `..., 255, 0, ...`); `i` rounded to the
///   nearest `float16` / `bfloat16` value, ties to even (exact up to 2048 / 256); `i + 0j`
///   for the complex dtypes (`i` rounded as for `float16` in `complex32`); and for `bool`,
///   `i % 2 == 1`.
/// - `random`: splitmix64 from `seed`, `r` the output's top 24 bits (`output >> 40`), one
///   draw per element, two for a complex one (real part first): `bool` `r & 1 == 1`; the
///   signed integers `r % 21 - 10`; `uint8` `r % 21`; the real floats `(r % 33 - 16) / 4`
///   (quarter steps in `[-4, 4]`, exact in every float dtype); each part of a complex value
///   as a float.
///
/// ```
/// use bcast_case::{fill_values, DType, Fill, FillKind, Num};
/// let fill = Fill { kind: FillKind::Arange, len: 300, seed: 0 };
/// assert_eq!(fill_values(DType::Int8, &fill)[128], Num::Int(-128));
/// assert_eq!(fill_values(DType::UInt8, &fill)[256], Num::Int(0));
/// let fill = Fill { kind: FillKind::Random, len: 2, seed: 0 };
/// assert_eq!(fill_values(DType::Complex64, &fill)[0], Num::Complex(1.25, -3.75));
/// ```
pub fn fill_values(dtype: DType, fill: &Fill) -> Vec<Num> {
    match fill.kind {
        FillKind::Arange => (0..fill.len as i64).map(|i| arange(dtype, i)).collect(),
        FillKind::Random => {
            let mut state = fill.seed;
            let mut draw = || {
                let (next, z) = splitmix64(state);
                state = next;
                z >> 40
            };
            let float = |r: u64| ((r % 33) as f64 - 16.0) / 4.0;
            (0..fill.len)
                .map(|_| match dtype.value_kind() {
                    ValueKind::Bool => Num::Bool(draw() & 1 == 1),
                    ValueKind::Int if dtype == DType::UInt8 => Num::Int((draw() % 21) as i64),
                    ValueKind::Int => Num::Int((draw() % 21) as i64 - 10),
                    ValueKind::Float => Num::Float(float(draw())),
                    ValueKind::Complex => {
                        let re = float(draw());
                        Num::Complex(re, float(draw()))
                    }
                })
                .collect()
        }
    }
}

/// Element `i` of an `arange` fill.
fn arange(dtype: DType, i: i64) -> Num {
    match dtype {
        DType::Bool => Num::Bool(i % 2 == 1),
        DType::UInt8 => Num::Int(i64::from(i as u8)),
        DType::Int8 => Num::Int(i64::from(i as i8)),
        DType::Int16 => Num::Int(i64::from(i as i16)),
        DType::Int32 => Num::Int(i64::from(i as i32)),
        DType::Int64 => Num::Int(i),
        DType::Float16 | DType::BFloat16 => {
            let format = dtype.half_format().expect("a half dtype has a format");
            Num::Float(format.round(i as f64))
        }
        DType::Float32 | DType::Float64 => Num::Float(i as f64),
        DType::Complex32 => Num::Complex(HalfFormat::FLOAT16.round(i as f64), 0.0),
        DType::Complex64 | DType::Complex128 => Num::Complex(i as f64, 0.0),
    }
}
