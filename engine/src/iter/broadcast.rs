//! The broadcast shape of an iteration and each operand's strides over it, as TensorIterator's
//! `compute_shape` and `compute_strides` make them.

use crate::shape::infer_size;
use crate::{Dims, Layout, Result};

/// The common shape of `shapes`, folding [`infer_size`] from the left in operand order, so an
/// error names the accumulated shape as tensor a and the next operand as tensor b. Also
/// whether every shape was the same (TensorIterator's `all_ops_same_shape`, which is false as
/// soon as a 0-d shape meets a dimensioned one).
///
/// ```
/// # use bcast_engine::iter::compute_shape;
/// let (shape, same) = compute_shape(&[&[3, 1], &[4]]).unwrap();
/// assert_eq!((&shape[..], same), (&[3, 4][..], false));
/// assert!(compute_shape(&[&[2], &[2]]).unwrap().1);
/// let err = compute_shape(&[&[2], &[2], &[3]]).unwrap_err();
/// assert_eq!(err.message(), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
/// ```
pub fn compute_shape(shapes: &[&[usize]]) -> Result<(Dims, bool)> {
    let mut shape = Dims::new();
    let mut same = true;
    let (mut has_scalars, mut has_tensors) = (false, false);
    for (i, s) in shapes.iter().enumerate() {
        if s.is_empty() {
            has_scalars = true;
        } else {
            has_tensors = true;
        }
        if has_scalars && has_tensors {
            same = false;
        }
        if i == 0 || shape.is_empty() {
            shape = Dims::from_slice(s);
        } else if *s != shape.as_slice() {
            same = false;
            shape = infer_size(&shape, s)?;
        }
    }
    Ok((shape, same))
}

/// The strides of `layout` over the broadcast `shape`: new leading dims and size-1 dims that
/// are stretched get stride 0 (a size-1 dim that is not stretched keeps its stride, which the
/// dim ordering then sees). The layout must broadcast to `shape`.
///
/// ```
/// # use bcast_engine::{iter::broadcast_strides, Layout};
/// let col = Layout::new(vec![3, 1], vec![5, 7], 0).unwrap();
/// assert_eq!(&broadcast_strides(&[2, 3, 4], &col)[..], &[0, 5, 0]);
/// assert_eq!(&broadcast_strides(&[2, 3, 1], &col)[..], &[0, 5, 7]);
/// ```
pub fn broadcast_strides(shape: &[usize], layout: &Layout) -> Dims {
    if layout.shape() == shape {
        return Dims::from_slice(layout.strides());
    }
    let ndim = shape.len();
    let lead = ndim.saturating_sub(layout.ndim());
    let mut strides: Dims = smallvec::smallvec![0; ndim];
    let dims = strides[lead..].iter_mut().zip(&shape[lead..]);
    for ((s, &wanted), (&size, &stride)) in dims.zip(layout.shape().iter().zip(layout.strides())) {
        if !(size == 1 && wanted != 1) {
            *s = stride;
        }
    }
    strides
}
