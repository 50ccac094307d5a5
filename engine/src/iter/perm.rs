//! The dim-ordering sort shared by TensorIterator and `infer_dense_strides`.

use crate::Dims;

/// Orders dims fastest-moving first: starts from `ndim-1, ..., 1, 0` (row-major order
/// reversed) and insertion-sorts with `should_swap(d0, d1)`, which returns `1` when `d0` must
/// come after `d1`, `-1` when it must come before, and `0` when it cannot tell (then the sort
/// looks further back). The returned `perm[i]` is the dim that moves `i`-th fastest.
///
/// ```
/// # use bcast_engine::iter::sort_dims;
/// let strides = [1usize, 3];
/// assert_eq!(&sort_dims(2, |a, b| (strides[a] as i64 - strides[b] as i64).signum() as i32)[..], &[0, 1]);
/// ```
pub fn sort_dims(ndim: usize, mut should_swap: impl FnMut(usize, usize) -> i32) -> Dims {
    let mut perm: Dims = (0..ndim).rev().collect();
    for i in 1..ndim {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let comparison = should_swap(perm[dim0], perm[dim1]);
            if comparison > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if comparison < 0 {
                break;
            }
        }
    }
    perm
}
