//! Resizing an `out=` tensor the way TensorIterator does: torch's `resize_output` (which
//! keeps the storage offset and grows the storage when it is too small), then `as_strided_`
//! to the strides the iteration chose.

use crate::layout::check_in_bounds;
use crate::shape::{numel, signed_sizes};
use crate::{alloc, Layout, Result, Tensor};

/// `out` resized to `shape` and restrided to `strides`, as the same tensor object; `out`
/// unchanged when it already has `shape`. The storage grows (new elements zero) when the new
/// view reaches past its end; it never shrinks.
///
/// torch's `resize_` checks the new sizes' numel, then the bytes a contiguous tensor of them
/// needs past the storage offset (an overflow names the sizes only), grows the storage, and
/// `as_strided_` then checks the strided view against it.
///
/// ```
/// use bcast_engine::{resize::resize_output, DType, Tensor};
/// let out = Tensor::zeros(&[2], DType::Float32).unwrap();
/// let r = resize_output(&out, &[2, 3], &[1, 2]).unwrap();
/// assert!(r.is_same(&out) && r.shares_storage(&out));
/// assert_eq!((r.strides(), r.storage().len()), (&[1, 2][..], 6));
/// let err = resize_output(&out, &[1 << 61, 2], &[2, 1]).unwrap_err();
/// assert_eq!(err.message(), "Storage size calculation overflowed with sizes=[2305843009213693952, 2]");
/// ```
///
/// # Errors
/// When the new layout overflows or needs more memory than the engine allocates.
pub fn resize_output(out: &Tensor, shape: &[usize], strides: &[usize]) -> Result<Tensor> {
    if out.shape() == shape {
        return Ok(out.clone());
    }
    let sizes = signed_sizes(shape);
    let itemsize = out.dtype().itemsize();
    let count = numel(&sizes)?;
    let bytes = alloc::contiguous_nbytes(&sizes, itemsize, out.offset())?;
    if count > 0 {
        let needed = (bytes / itemsize as u64) as usize;
        if needed > out.storage().len() {
            out.storage().grow_to(needed)?;
        }
    }
    let signed_strides: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
    check_in_bounds(
        &sizes,
        &signed_strides,
        out.offset() as i64,
        itemsize,
        out.storage().len(),
    )?;
    let layout = Layout::new(shape.to_vec(), strides.to_vec(), out.offset())?;
    Ok(out.relayout(layout))
}
