//! A case's tensors read element by element and rewritten as storages of their own, as torch's
//! `t.expand(shape).contiguous()` makes them: what the gradient oracles
//! ([`gradcheck`](super::gradcheck), [`grad_broadcast`](super::grad_broadcast)) give a call in
//! place of a strided, expanded or shared view. Computed from the case's own description (its
//! storages' values and each view's sizes, strides and offset), not by the engine under test.
//!
//! ```
//! use bcast_conformance::case::{Case, Num};
//! use bcast_fuzzing::oracles::materialize::{broadcast_elements, elements, give_own_storage};
//! let mut case: Case = serde_json::from_str(r#"{"id": "m",
//!   "storages": {"s": {"dtype": "float32", "values": [1, 2, 3, 4]}},
//!   "tensors": {"t": {"storage": "s", "shape": [2, 1], "strides": [2, 0], "offset": 1}},
//!   "call": {"fn": "torch.neg", "args": [{"tensor": "t"}]}}"#).unwrap();
//! assert_eq!(elements(&case, "t"), Some(vec![Num::Int(2), Num::Int(4)]));
//! let wide = broadcast_elements(&case, "t", &[3, 2, 2]).unwrap();
//! assert_eq!(wide.len(), 12);
//! give_own_storage(&mut case, "t", &[3, 2, 2], wide);
//! assert_eq!(case.tensors["t"].strides, vec![4, 2, 1]);
//! assert_eq!(elements(&case, "t").unwrap()[..4], [Num::Int(2), Num::Int(2), Num::Int(4), Num::Int(4)]);
//! ```

use bcast_conformance::case::{storage_values, Case, Num, StorageSpec, TensorSpec};
use bcast_engine::index_map::unravel;
use bcast_engine::layout::contiguous_strides;

/// The elements of tensor `name` of `case`, in row-major order, read through its view; `None`
/// when the case does not describe them (an unknown tensor or storage, a view past its
/// storage).
pub fn elements(case: &Case, name: &str) -> Option<Vec<Num>> {
    let t = case.tensors.get(name)?;
    broadcast_elements(case, name, &t.shape)
}

/// The elements of tensor `name` as `expand(shape)` reads them, in row-major order of
/// `shape`; `None` when its shape does not broadcast to `shape` (or as for [`elements`]).
pub fn broadcast_elements(case: &Case, name: &str, shape: &[usize]) -> Option<Vec<Num>> {
    let t = case.tensors.get(name)?;
    let values = storage_values(case.storages.get(&t.storage)?).ok()?;
    let lead = shape.len().checked_sub(t.shape.len())?;
    for (&own, &to) in t.shape.iter().zip(&shape[lead..]) {
        if own != to && own != 1 {
            return None;
        }
    }
    let numel = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))?;
    let mut out = Vec::with_capacity(numel);
    for i in 0..numel {
        let index = unravel(i, shape);
        let mut address = t.offset;
        for (d, (&size, &stride)) in t.shape.iter().zip(&t.strides).enumerate() {
            let k = if size == 1 { 0 } else { index[lead + d] };
            address = address.checked_add(k.checked_mul(stride)?)?;
        }
        out.push(*values.get(address)?);
    }
    Some(out)
}

/// Makes tensor `name` a contiguous tensor of `shape` over a new storage of its own holding
/// `values` (its dtype the old storage's), named after the tensor so that no other view
/// shares it. The old storage stays for the tensors that still view it.
pub fn give_own_storage(case: &mut Case, name: &str, shape: &[usize], values: Vec<Num>) {
    let Some(t) = case.tensors.get(name) else {
        return;
    };
    let Some(dtype) = case.storages.get(&t.storage).map(|s| s.dtype.clone()) else {
        return;
    };
    let storage = own_storage_name(case, name);
    case.storages.insert(
        storage.clone(),
        StorageSpec {
            dtype,
            values: Some(values),
            fill: None,
        },
    );
    case.tensors.insert(
        name.to_string(),
        TensorSpec {
            storage,
            shape: shape.to_vec(),
            strides: contiguous_strides(shape).to_vec(),
            offset: 0,
        },
    );
}

/// A storage name no storage of `case` has, made from the tensor's.
fn own_storage_name(case: &Case, tensor: &str) -> String {
    let mut name = format!("{tensor}.own");
    while case.storages.contains_key(&name) {
        name.push('_');
    }
    name
}
