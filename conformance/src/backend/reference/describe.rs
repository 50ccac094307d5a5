//! Describing engine results in the schema's terms (the twin of `describe` in
//! `python/bcast_suite/torch_exec.py`).

use super::{Inputs, Value};
use crate::case::{Num, NumScalar, ResultValue, TensorResult};
pub use bcast_case::{sample_positions, MAX_FULL_VALUES};
use bcast_engine::{Storage, Tensor};

/// Describes one tensor: geometry, which input storage it views, and its values.
pub fn describe_tensor(t: &Tensor, inputs: &Inputs) -> TensorResult {
    describe_tensor_over(t, t.storage(), inputs)
}

/// [`describe_tensor`] of a tensor whose values belong to `storage` (a gradient that is the
/// engine's copy of a real view of a complex storage names that storage).
pub fn describe_tensor_over(t: &Tensor, storage: &Storage, inputs: &Inputs) -> TensorResult {
    let storage = inputs
        .storages
        .iter()
        .filter(|(n, _)| inputs.lengths.get(*n).is_some_and(|&len| len > 0))
        .find(|(_, s)| s.same_as(storage))
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
        shape: bcast_engine::shape::signed_sizes(t.shape()).to_vec(),
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
        Value::NotImplemented => ResultValue::NotImplemented,
    }
}
