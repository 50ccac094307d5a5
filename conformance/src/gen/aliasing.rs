//! Views that share a storage, and the test that keeps generated cases deterministic: torch
//! only checks overlap it can prove, so a written tensor that really overlaps an input in a
//! way it calls "too hard" gives values that depend on its loop order. Such cases are not
//! generated.

use super::{random_view, CaseBuilder, GenResult};
use crate::case::storage_dtype;
use arbitrary::Unstructured;
use bcast_engine::overlap::order_dependent;
use bcast_engine::{DType, Layout, Storage, Tensor};
use std::collections::BTreeMap;

/// Two new views over one new storage of `dtype`: the first of `first` shape, the second of
/// `second` shape shifted by a few elements, so they may coincide, overlap or not.
pub fn shared_views(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    first: (&[usize], bool),
    second: (&[usize], bool),
) -> GenResult<(String, String)> {
    let spec_a = random_view(u, first.0, first.1)?;
    let mut spec_b = random_view(u, second.0, second.1)?;
    let shift = u.int_in_range(0..=3)?;
    spec_b.offset += shift;
    spec_b.storage_len += shift;
    let storage = b.storage(u, dtype, spec_a.storage_len.max(spec_b.storage_len))?;
    b.tag("aliased");
    let a = b.tensor(&storage, first.0, &spec_a);
    let c = b.tensor(&storage, second.0, &spec_b);
    Ok((a, c))
}

fn engine_tensor(
    b: &CaseBuilder,
    name: &str,
    storages: &mut BTreeMap<String, Storage>,
) -> Option<Tensor> {
    let spec = b.tensor_spec(name)?;
    let storage_spec = b.storage_spec(&spec.storage)?;
    let dtype = storage_dtype(storage_spec).ok()?;
    let len = storage_spec
        .fill
        .as_ref()
        .map(|f| f.len)
        .or(storage_spec.values.as_ref().map(Vec::len))?;
    let storage = match storages.get(&spec.storage) {
        Some(s) => s.clone(),
        None => {
            let s = Storage::zeros(dtype, len).ok()?;
            storages.insert(spec.storage.clone(), s.clone());
            s
        }
    };
    let layout = Layout::new(spec.shape.clone(), spec.strides.clone(), spec.offset).ok()?;
    Tensor::from_storage(&storage, layout).ok()
}

/// Whether writing tensor `written` while reading tensor `input` would give order-dependent
/// values in torch ([`order_dependent`]).
pub fn is_racy(b: &CaseBuilder, written: &str, input: &str) -> bool {
    if written == input {
        return false;
    }
    let mut storages = BTreeMap::new();
    match (
        engine_tensor(b, written, &mut storages),
        engine_tensor(b, input, &mut storages),
    ) {
        (Some(w), Some(i)) => order_dependent(&w, &i),
        _ => false,
    }
}
