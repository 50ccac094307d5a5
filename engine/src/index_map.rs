//! The naive index map, kept as the oracle for every view and kernel: element `i` of a view
//! (in row-major order) lives at `offset + sum(index_k * stride_k)`, where `index` is `i`
//! unravelled over the shape, computed the slow, obvious way.
//!
//! ```
//! use bcast_engine::{index_map, Layout};
//! let transposed = Layout::new(vec![3, 2], vec![1, 3], 0).unwrap();
//! assert_eq!(index_map::storage_indices(&transposed), vec![0, 3, 1, 4, 2, 5]);
//! ```

use crate::Layout;

/// The multi-index of row-major position `linear` in `shape`.
pub fn unravel(mut linear: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        index[d] = linear % shape[d];
        linear /= shape[d];
    }
    index
}

/// The storage position of every element of `layout`, in row-major order.
pub fn storage_indices(layout: &Layout) -> Vec<usize> {
    (0..layout.numel())
        .map(|i| layout.storage_index(&unravel(i, layout.shape())))
        .collect()
}

/// The storage position of the element that `layout` contributes at `index` of a broadcast
/// shape: dims line up from the right, missing and size-1 dims read index 0.
///
/// ```
/// use bcast_engine::{index_map, Layout};
/// let row = Layout::new(vec![3], vec![2], 1).unwrap();
/// assert_eq!(index_map::broadcast_storage_index(&row, &[5, 2]), 5);
/// ```
pub fn broadcast_storage_index(layout: &Layout, index: &[usize]) -> usize {
    let lead = index.len().saturating_sub(layout.ndim());
    layout
        .shape()
        .iter()
        .zip(layout.strides())
        .enumerate()
        .fold(layout.offset(), |at, (d, (&size, &stride))| {
            let i = index.get(lead + d).copied().unwrap_or(0);
            if size == 1 {
                at
            } else {
                at.wrapping_add(i.wrapping_mul(stride))
            }
        })
}
