//! Views that share a storage, and the test that keeps generated cases deterministic: torch
//! only checks overlap it can prove, so a written tensor that really overlaps an input in a
//! way it calls "too hard" gives values that depend on its loop order. Such cases are not
//! generated.

use super::{random_view, CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::storage_dtype;
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
    let names = views_of_one_storage(u, b, dtype, &[first, second])?;
    Ok((names[0].clone(), names[1].clone()))
}

/// New views over one new storage of `dtype`, one per `(shape, allow_expanded)`, each after
/// the first shifted by a few elements, so they may coincide, overlap or not.
///
/// ```
/// # use bcast_fuzzing::generators::{views_of_one_storage, CaseBuilder};
/// let mut b = CaseBuilder::default();
/// let mut u = arbitrary::Unstructured::new(&[9; 64]);
/// let specs: [(&[usize], bool); 3] = [(&[2, 3], false), (&[3], true), (&[], true)];
/// let names = views_of_one_storage(&mut u, &mut b, bcast_engine::DType::Int64, &specs).unwrap();
/// let storage = &b.tensor_spec(&names[0]).unwrap().storage;
/// assert!(names.iter().all(|n| &b.tensor_spec(n).unwrap().storage == storage));
/// ```
pub fn views_of_one_storage(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    views: &[(&[usize], bool)],
) -> GenResult<Vec<String>> {
    let mut specs = Vec::with_capacity(views.len());
    for (k, &(shape, allow_expanded)) in views.iter().enumerate() {
        let mut spec = random_view(u, shape, allow_expanded)?;
        if k > 0 {
            let shift = u.int_in_range(0..=3)?;
            spec.offset += shift;
            spec.storage_len += shift;
        }
        specs.push(spec);
    }
    let len = specs.iter().map(|s| s.storage_len).max().unwrap_or(0);
    let storage = b.storage(u, dtype, len)?;
    b.tag("aliased");
    Ok(views
        .iter()
        .zip(&specs)
        .map(|(&(shape, _), spec)| b.tensor(&storage, shape, spec))
        .collect())
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
