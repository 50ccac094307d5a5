//! A case's storages as typed element vectors, and results back in the schema's terms.

use crate::backend::reference::sample_positions;
use crate::backend::BackendFailure;
use crate::case::{storage_dtype, storage_values, Case, ErrorOutcome, Num, Outcome, TensorResult};
use bcast_engine::DType;
use std::collections::BTreeMap;

/// One storage's elements, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    Bool(Vec<bool>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Typed {
    /// The elements of `values` as `dtype`; an error for a dtype the foreign backends do not
    /// hold (they have `bool`, `int64`, `float32` and `float64`).
    pub fn new(dtype: DType, values: &[Num]) -> Result<Typed, String> {
        Ok(match dtype {
            DType::Bool => Typed::Bool(values.iter().map(|v| v.to_f64() != 0.0).collect()),
            DType::Int64 => Typed::I64(
                values
                    .iter()
                    .map(|v| match v {
                        Num::Int(i) => *i,
                        other => other.to_f64() as i64,
                    })
                    .collect(),
            ),
            DType::Float32 => Typed::F32(values.iter().map(|v| v.to_f64() as f32).collect()),
            DType::Float64 => Typed::F64(values.iter().map(|v| v.to_f64()).collect()),
            other => return Err(format!("the foreign backends hold no {other}")),
        })
    }

    /// The elements as schema values.
    pub fn to_nums(&self) -> Vec<Num> {
        match self {
            Typed::Bool(v) => v.iter().map(|&b| Num::Bool(b)).collect(),
            Typed::I64(v) => v.iter().map(|&i| Num::Int(i)).collect(),
            Typed::F32(v) => v.iter().map(|&f| Num::Float(f as f64)).collect(),
            Typed::F64(v) => v.iter().map(|&f| Num::Float(f)).collect(),
        }
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Typed::Bool(_) => DType::Bool,
            Typed::I64(_) => DType::Int64,
            Typed::F32(_) => DType::Float32,
            Typed::F64(_) => DType::Float64,
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
            let typed = Typed::new(dtype, &values).map_err(BackendFailure::bad_input)?;
            Ok((name.clone(), typed))
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
    Outcome::Error(ErrorOutcome {
        kind: kind.to_string(),
        message: message.into(),
    })
}
