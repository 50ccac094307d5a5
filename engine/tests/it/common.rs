//! Shared pieces of the engine's property tests: random strided tensors (permuted, stepped,
//! expanded, offset) and the naive index-map reading of their elements.

#![allow(dead_code)]

use bcast_engine::{index_map, Buffer, DType, Layout, Scalar, Storage, Tensor};
use proptest::prelude::*;

/// How a random view of a shape is laid out in memory.
#[derive(Debug, Clone)]
pub struct ViewRecipe {
    /// Memory order of the dims, outermost first.
    pub order: Vec<usize>,
    /// A step per dim (a sliced view).
    pub steps: Vec<usize>,
    /// Dims whose stride is 0 (an expanded view).
    pub expanded: Vec<bool>,
    pub offset: usize,
    /// Seed of the storage's values.
    pub seed: u64,
}

/// A recipe for a view of a tensor with `ndim` dims.
pub fn view_recipe(ndim: usize) -> impl Strategy<Value = ViewRecipe> {
    (
        Just((0..ndim).collect::<Vec<usize>>()).prop_shuffle(),
        prop::collection::vec(1usize..=2, ndim),
        prop::collection::vec(prop::bool::weighted(0.15), ndim),
        0usize..3,
        any::<u64>(),
    )
        .prop_map(|(order, steps, expanded, offset, seed)| ViewRecipe {
            order,
            steps,
            expanded,
            offset,
            seed,
        })
}

/// Small values: ints in -5..=5 (exact in every dtype), bools at random.
fn values(seed: u64, len: usize) -> Vec<Scalar> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Scalar::Int(((state >> 33) % 11) as i64 - 5)
        })
        .collect()
}

/// The tensor a recipe describes, of `shape` and `dtype`, over a fresh storage.
pub fn build(shape: &[usize], dtype: DType, r: &ViewRecipe) -> Tensor {
    let ndim = shape.len();
    let mem_shape: Vec<usize> = r.order.iter().map(|&d| shape[d] * r.steps[d]).collect();
    let mem_strides = bcast_engine::layout::contiguous_strides(&mem_shape);
    let mut strides = vec![0usize; ndim];
    for (k, &d) in r.order.iter().enumerate() {
        strides[d] = if r.expanded[d] {
            0
        } else {
            mem_strides[k] * r.steps[d]
        };
    }
    let layout = Layout::new(shape.to_vec(), strides, r.offset).unwrap();
    let len = layout.required_storage_len().unwrap().max(r.offset) + 1;
    let storage = Storage::new(Buffer::from_scalars(dtype, &values(r.seed, len)));
    Tensor::from_storage(&storage, layout).unwrap()
}

/// A dim size in `1..=max`, or now and then 0.
pub fn size(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![9 => 1..=max, 1 => Just(0)]
}

/// A random shape of `ndim` dims with sizes from [`size`].
pub fn shape(ndim: usize, max: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(size(max), ndim)
}

/// The element of `t` at multi-index `index`, read through the naive index map.
pub fn at(t: &Tensor, index: &[usize]) -> Scalar {
    let pos = t.layout().storage_index(index);
    t.storage().read().get(pos).unwrap()
}

/// Every element of `t` with its multi-index, in row-major order.
pub fn elements(t: &Tensor) -> Vec<(Vec<usize>, Scalar)> {
    (0..t.numel())
        .map(|i| {
            let idx = index_map::unravel(i, t.shape());
            let v = at(t, &idx);
            (idx, v)
        })
        .collect()
}

/// The row-major position of `index` in `shape`.
pub fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

/// Whether two floats agree within a relative tolerance (NaN equals NaN).
pub fn close(a: f64, b: f64, rtol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * (1.0 + b.abs())
}
