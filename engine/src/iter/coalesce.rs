//! Merging adjacent dims that every operand walks as one, TensorIterator's
//! `coalesce_dimensions`.

use crate::Dims;

/// Coalesces dims in place. `shape` and every operand's `strides` are in iteration order
/// (fastest first). Two neighbours merge when either has size 1 or, for every operand,
/// `shape[d] * stride[d] == stride[d + 1]`. Stride lists of another length than `shape` leave
/// everything as it is.
///
/// ```
/// # use bcast_engine::iter::coalesce;
/// # use bcast_engine::Dims;
/// let mut shape = Dims::from_slice(&[4, 3]);
/// let mut strides = [Dims::from_slice(&[1, 4]), Dims::from_slice(&[0, 0])];
/// coalesce(&mut shape, &mut strides);
/// assert_eq!((&shape[..], &strides[0][..], &strides[1][..]), (&[12][..], &[1][..], &[0][..]));
/// ```
pub fn coalesce(shape: &mut Dims, strides: &mut [Dims]) {
    let ndim = shape.len();
    if ndim <= 1 || strides.iter().any(|s| s.len() != ndim) {
        return;
    }
    let mut prev = 0;
    for dim in 1..ndim {
        let mergeable = shape[prev] == 1
            || shape[dim] == 1
            || strides
                .iter()
                .all(|s| shape[prev].wrapping_mul(s[prev]) == s[dim]);
        if mergeable {
            if shape[prev] == 1 {
                for s in strides.iter_mut() {
                    s[prev] = s[dim];
                }
            }
            shape[prev] = shape[prev].wrapping_mul(shape[dim]);
        } else {
            prev += 1;
            if prev != dim {
                for s in strides.iter_mut() {
                    s[prev] = s[dim];
                }
                shape[prev] = shape[dim];
            }
        }
    }
    shape.truncate(prev + 1);
    for s in strides.iter_mut() {
        s.truncate(prev + 1);
    }
}
