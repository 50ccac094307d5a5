//! Resizing an `out=` tensor the way TensorIterator does: torch's `resize_output` (which
//! keeps the storage offset and grows the storage when it is too small), then `as_strided_`
//! to the strides the iteration chose.

use crate::{Layout, Result, Tensor};

/// `out` resized to `shape` and restrided to `strides`, as the same tensor object; `out`
/// unchanged when it already has `shape`. The storage grows (new elements zero) when the new
/// view reaches past its end; it never shrinks.
///
/// ```
/// use bcast_engine::{resize::resize_output, DType, Tensor};
/// let out = Tensor::zeros(&[2], DType::Float32).unwrap();
/// let r = resize_output(&out, &[2, 3], &[1, 2]).unwrap();
/// assert!(r.is_same(&out) && r.shares_storage(&out));
/// assert_eq!((r.strides(), r.storage().len()), (&[1, 2][..], 6));
/// ```
///
/// # Errors
/// When the new layout overflows or needs more memory than the engine allocates.
pub fn resize_output(out: &Tensor, shape: &[usize], strides: &[usize]) -> Result<Tensor> {
    if out.shape() == shape {
        return Ok(out.clone());
    }
    let layout = Layout::new(shape.to_vec(), strides.to_vec(), out.offset())?;
    if layout.numel() > 0 {
        let needed = layout.required_storage_len().unwrap_or(0);
        if needed > out.storage().len() {
            out.storage().write().grow_to(needed)?;
        }
    }
    Ok(out.relayout(layout))
}
