//! The dim order of an iteration, TensorIterator's `reorder_dimensions`.

use super::sort_dims;
use crate::Dims;

/// Orders the dims fastest-moving first by the operands' broadcast strides, in operand order:
/// the first operand whose strides tell two dims apart decides (a stride of 0 tells nothing),
/// and equal strides put the larger dim later. `perm[i]` is the dim that moves `i`-th fastest;
/// a row-major operand gives `ndim-1, ..., 0`. A stride list shorter than `shape` counts as
/// 0 where it is missing.
///
/// ```
/// # use bcast_engine::iter::reorder_dims;
/// assert_eq!(&reorder_dims(&[2, 3], &[&[3, 1]])[..], &[1, 0]);
/// // The first operand cannot tell (a stride 0); the second is transposed.
/// assert_eq!(&reorder_dims(&[2, 3], &[&[0, 1], &[1, 2]])[..], &[0, 1]);
/// assert_eq!(&reorder_dims(&[2, 3], &[&[1, 2], &[3, 1]])[..], &[0, 1]);
/// ```
pub fn reorder_dims(shape: &[usize], strides: &[&[usize]]) -> Dims {
    let ndim = shape.len();
    if ndim <= 1 {
        return (0..ndim).collect();
    }
    sort_dims(ndim, |dim0, dim1| {
        for s in strides {
            let at = |d: usize| s.get(d).copied().unwrap_or(0);
            let (s0, s1) = (at(dim0), at(dim1));
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[dim0] > shape[dim1] {
                return 1;
            }
        }
        0
    })
}
