//! Copying elements between layouts, with dtype conversion, on the iteration plan.

use super::map_unary;
use crate::{dispatch_dtype, Element, Result, Tensor};

/// Copies `src` into `dst`, converting the dtype with torch's casts; `src` broadcasts to
/// `dst`'s shape. No overlap checks: callers copy into memory they own (`clone`, `repeat`,
/// output temporaries) or check first (`Tensor::copy_`).
///
/// ```
/// use bcast_engine::{loops::copy_into, DType, Tensor};
/// let src = Tensor::from_vec(vec![1.5f64, -2.5], &[2]).unwrap();
/// let dst = Tensor::zeros(&[3, 2], DType::Int64).unwrap();
/// copy_into(&dst, &src).unwrap();
/// assert_eq!(dst.to_vec::<i64>().unwrap(), vec![1, -2, 1, -2, 1, -2]);
/// ```
///
/// # Errors
/// When `src` does not broadcast to `dst`'s shape.
pub fn copy_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    dispatch_dtype!(src.dtype(), S => dispatch_dtype!(dst.dtype(), D => {
        map_unary(dst, src, |v: S| v.cast::<D>())
    }))
}
