//! Describing engine results in the schema's terms (the twin of `describe` in
//! `scripts/lib/torch_exec.py`).

use super::{Inputs, Value};
use crate::case::{Num, ResultValue, TensorResult};
use bcast_engine::Tensor;

/// Results with more elements than this keep sampled values.
pub const MAX_FULL_VALUES: usize = 4096;
const SAMPLE_COUNT: usize = 64;

/// The flat positions kept for a large result: 64 evenly spread, first and last included,
/// rounded half-to-even as Python's `round` does (and kept below `numel` where a huge
/// `numel - 1` rounds up as a float). `None` when all values are kept.
///
/// ```
/// # use bcast_conformance::backend::reference::sample_positions;
/// assert_eq!(sample_positions(10), None);
/// let p = sample_positions(10_000).unwrap();
/// assert_eq!((p[0], p[p.len() - 1], p.len()), (0, 9_999, 64));
/// ```
pub fn sample_positions(numel: usize) -> Option<Vec<usize>> {
    if numel <= MAX_FULL_VALUES {
        return None;
    }
    let step = (numel - 1) as f64 / (SAMPLE_COUNT - 1) as f64;
    let mut p: Vec<usize> = (0..SAMPLE_COUNT)
        .map(|i| ((i as f64 * step).round_ties_even() as usize).min(numel - 1))
        .collect();
    p.dedup();
    Some(p)
}

/// Describes one tensor: geometry, which input storage it views, and its values.
pub fn describe_tensor(t: &Tensor, inputs: &Inputs) -> TensorResult {
    let storage = inputs
        .storages
        .iter()
        .filter(|(n, _)| inputs.lengths.get(*n).is_some_and(|&len| len > 0))
        .find(|(_, s)| s.same_as(t.storage()))
        .map(|(n, _)| n.clone());
    let (values, samples) = match sample_positions(t.numel()) {
        None => (
            Some(t.to_scalars().into_iter().map(Num::from_scalar).collect()),
            None,
        ),
        Some(pos) => {
            let at = |i: usize| t.get_flat(i).map_or(Num::Float(f64::NAN), Num::from_scalar);
            (None, Some(pos.into_iter().map(|i| (i, at(i))).collect()))
        }
    };
    TensorResult {
        shape: bcast_engine::shape::signed_sizes(t.shape()),
        dtype: t.dtype().name().to_string(),
        strides: t.strides().to_vec(),
        offset: t.offset(),
        storage,
        values,
        samples,
    }
}

/// Describes any result value.
pub fn describe_value(value: &Value, inputs: &Inputs) -> ResultValue {
    match value {
        Value::Tensor(t) => ResultValue::Tensor(describe_tensor(t, inputs)),
        Value::Tensors(ts) => {
            ResultValue::Tensors(ts.iter().map(|t| describe_tensor(t, inputs)).collect())
        }
        Value::Size(s) => ResultValue::Size(s.iter().map(|&d| d as i64).collect()),
        Value::Int(i) => ResultValue::Int(*i),
        Value::Bool(b) => ResultValue::Bool(*b),
    }
}
