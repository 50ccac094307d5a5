//! A case's storages as typed element vectors, and results back in the schema's terms.

use crate::backend::reference::sample_positions;
use crate::backend::BackendFailure;
use crate::case::{storage_dtype, storage_values, Case, ErrorOutcome, Num, Outcome, TensorResult};
use bcast_engine::half::{BFloat16, Half};
use bcast_engine::DType;
use num_complex::Complex;
use std::collections::BTreeMap;

/// One storage's elements, typed: every dtype of the schema, each as the Rust element type
/// the foreign crates use (half-precision as the engine's bit-exact types, complex as
/// `num_complex`'s, which ndarray and most Rust crates take).
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F16(Vec<Half>),
    BF16(Vec<BFloat16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C32(Vec<Complex<Half>>),
    C64(Vec<Complex<f32>>),
    C128(Vec<Complex<f64>>),
}

/// An integer element as `T` (a loaded case's integers fit their dtype; a float is truncated
/// as a cast would).
fn int<T: TryFrom<i64>>(v: &Num, cast: impl Fn(f64) -> T) -> T {
    match v {
        Num::Int(i) => T::try_from(*i).unwrap_or_else(|_| cast(*i as f64)),
        other => cast(other.to_f64()),
    }
}

/// A complex element's parts (a real value has imaginary part 0).
fn parts(v: &Num) -> (f64, f64) {
    match v {
        Num::Complex(re, im) => (*re, *im),
        other => (other.to_f64(), 0.0),
    }
}

impl Typed {
    /// The elements of `values` as `dtype`.
    ///
    /// ```
    /// use bcast_conformance::backend::foreign::typed::Typed;
    /// use bcast_conformance::case::Num;
    /// use bcast_engine::DType;
    /// let t = Typed::new(DType::Float16, &[Num::Float(0.5), Num::Float(65504.0)]);
    /// assert_eq!(t.dtype(), DType::Float16);
    /// assert_eq!(t.to_nums(), [Num::Float(0.5), Num::Float(65504.0)]);
    /// let z = Typed::new(DType::Complex64, &[Num::Complex(1.0, -2.0)]);
    /// assert_eq!(z.to_nums(), [Num::Complex(1.0, -2.0)]);
    /// ```
    pub fn new(dtype: DType, values: &[Num]) -> Typed {
        fn all<T>(values: &[Num], f: impl Fn(&Num) -> T) -> Vec<T> {
            values.iter().map(f).collect()
        }
        match dtype {
            DType::Bool => Typed::Bool(all(values, |v| v.to_f64() != 0.0)),
            DType::UInt8 => Typed::U8(all(values, |v| int(v, |f| f as u8))),
            DType::Int8 => Typed::I8(all(values, |v| int(v, |f| f as i8))),
            DType::Int16 => Typed::I16(all(values, |v| int(v, |f| f as i16))),
            DType::Int32 => Typed::I32(all(values, |v| int(v, |f| f as i32))),
            DType::Int64 => Typed::I64(all(values, |v| int(v, |f| f as i64))),
            DType::Float16 => Typed::F16(all(values, |v| Half::from_f64(v.to_f64()))),
            DType::BFloat16 => Typed::BF16(all(values, |v| BFloat16::from_f64(v.to_f64()))),
            DType::Float32 => Typed::F32(all(values, |v| v.to_f64() as f32)),
            DType::Float64 => Typed::F64(all(values, |v| v.to_f64())),
            DType::Complex32 => Typed::C32(all(values, |v| {
                let (re, im) = parts(v);
                Complex::new(Half::from_f64(re), Half::from_f64(im))
            })),
            DType::Complex64 => Typed::C64(all(values, |v| {
                let (re, im) = parts(v);
                Complex::new(re as f32, im as f32)
            })),
            DType::Complex128 => Typed::C128(all(values, |v| {
                let (re, im) = parts(v);
                Complex::new(re, im)
            })),
        }
    }

    /// The elements as schema values.
    pub fn to_nums(&self) -> Vec<Num> {
        fn all<T: Copy>(v: &[T], f: impl Fn(T) -> Num) -> Vec<Num> {
            v.iter().map(|&x| f(x)).collect()
        }
        match self {
            Typed::Bool(v) => all(v, Num::Bool),
            Typed::U8(v) => all(v, |x| Num::Int(x.into())),
            Typed::I8(v) => all(v, |x| Num::Int(x.into())),
            Typed::I16(v) => all(v, |x| Num::Int(x.into())),
            Typed::I32(v) => all(v, |x| Num::Int(x.into())),
            Typed::I64(v) => all(v, Num::Int),
            Typed::F16(v) => all(v, |x| Num::Float(x.to_f32().into())),
            Typed::BF16(v) => all(v, |x| Num::Float(x.to_f32().into())),
            Typed::F32(v) => all(v, |x| Num::Float(x.into())),
            Typed::F64(v) => all(v, Num::Float),
            Typed::C32(v) => all(v, |z| {
                Num::Complex(z.re.to_f32().into(), z.im.to_f32().into())
            }),
            Typed::C64(v) => all(v, |z| Num::Complex(z.re.into(), z.im.into())),
            Typed::C128(v) => all(v, |z| Num::Complex(z.re, z.im)),
        }
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Typed::Bool(_) => DType::Bool,
            Typed::U8(_) => DType::UInt8,
            Typed::I8(_) => DType::Int8,
            Typed::I16(_) => DType::Int16,
            Typed::I32(_) => DType::Int32,
            Typed::I64(_) => DType::Int64,
            Typed::F16(_) => DType::Float16,
            Typed::BF16(_) => DType::BFloat16,
            Typed::F32(_) => DType::Float32,
            Typed::F64(_) => DType::Float64,
            Typed::C32(_) => DType::Complex32,
            Typed::C64(_) => DType::Complex64,
            Typed::C128(_) => DType::Complex128,
        }
    }
}

/// Every storage of a case, typed.
pub fn typed_storages(case: &Case) -> Result<BTreeMap<String, Typed>, BackendFailure> {
    case.storages
        .iter()
        .map(|(name, spec)| {
            let dtype = storage_dtype(spec).map_err(BackendFailure::bad_input)?;
            let values = storage_values(spec).map_err(BackendFailure::bad_input)?;
            Ok((name.clone(), Typed::new(dtype, &values)))
        })
        .collect()
}

/// Describes a result tensor: its geometry, its values in row-major order, and the input
/// storage and offset it views (`None` for new memory).
pub fn tensor_result(
    shape: &[usize],
    strides: &[isize],
    dtype: DType,
    values: Vec<Num>,
    view_of: Option<(String, usize)>,
) -> Result<TensorResult, BackendFailure> {
    tensor_result_at(shape, strides, dtype, values.len(), |i| values[i], view_of)
}

/// The most elements an adapter materialises: a broadcast view may be far larger than memory,
/// and a foreign crate that runs out of memory aborts the process instead of failing a case.
pub const MAX_MATERIALISED: usize = 1 << 26;

/// Refuses to materialise `numel` elements beyond [`MAX_MATERIALISED`].
pub fn refuse_huge(numel: usize) -> Result<(), BackendFailure> {
    if numel > MAX_MATERIALISED {
        return Err(BackendFailure::unsupported(format!(
            "a result of {numel} elements is more than the adapter materialises"
        )));
    }
    Ok(())
}

/// [`tensor_result`] reading element `i` (row-major) through `at`, so that a huge view is
/// sampled in place.
pub fn tensor_result_at(
    shape: &[usize],
    strides: &[isize],
    dtype: DType,
    numel: usize,
    at: impl Fn(usize) -> Num,
    view_of: Option<(String, usize)>,
) -> Result<TensorResult, BackendFailure> {
    let strides = strides
        .iter()
        .map(|&s| usize::try_from(s))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|_| BackendFailure::bad_input(format!("a negative stride in {strides:?}")))?;
    let (values, samples) = match sample_positions(numel) {
        None => (Some((0..numel).map(&at).collect()), None),
        Some(pos) => (None, Some(pos.into_iter().map(|i| (i, at(i))).collect())),
    };
    let (storage, offset) = match view_of {
        Some((name, offset)) => (Some(name), offset),
        None => (None, 0),
    };
    Ok(TensorResult {
        shape: shape.iter().map(|&d| d as i64).collect(),
        dtype: dtype.name().to_string(),
        strides,
        offset,
        storage,
        values,
        samples,
    })
}

/// An error outcome raised by the crate under test (its own error kind and message).
pub fn error_outcome(kind: &str, message: impl Into<String>) -> Outcome {
    Outcome::Error(ErrorOutcome::new(kind.to_string(), message))
}
