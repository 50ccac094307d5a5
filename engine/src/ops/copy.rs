//! `Tensor.copy_(src)`: a broadcasting copy into an existing tensor, any dtype to any dtype.
//!
//! ```
//! use bcast_engine::{ops::copy_, DType, Tensor};
//! let dst = Tensor::zeros(&[2, 3], DType::Int64).unwrap();
//! copy_(&dst, 2.9).unwrap();
//! assert_eq!(dst.to_vec::<i64>().unwrap(), vec![2; 6]);
//! ```

use super::Operand;
use crate::iter::{IterConfig, IterSetup};
use crate::{loops, Result, Tensor};

/// `dst.copy_(src)`: `src` broadcast to `dst`'s shape and converted to its dtype. Returns
/// `dst`.
///
/// # Errors
/// torch's, in its order: overlap of `dst` (internal, or partial with `src`); shapes that do
/// not broadcast; a `src` that broadcasts to a larger shape than `dst`'s. Copying a tensor
/// onto itself, or onto the same elements of the same storage, does nothing, checks included.
pub fn copy_(dst: &Tensor, src: impl Into<Operand>) -> Result<Tensor> {
    copy_in_place(dst, src.into())
}

/// [`copy_`] with its operands converted (compiled once, not once per caller's types).
fn copy_in_place(dst: &Tensor, src: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::copy_op_(dst, src);
    }
    let src = src.input();
    let s = src.as_tensor();
    let same_data = s.shares_storage(dst)
        && s.offset() == dst.offset()
        && s.strides() == dst.strides()
        && s.shape() == dst.shape()
        && s.dtype() == dst.dtype();
    if s.is_same(dst) || same_data {
        return Ok(dst.clone());
    }
    let config = IterConfig {
        check_mem_overlap: true,
        resize_outputs: false,
    };
    let iter = IterSetup::new(config, Some(dst), vec![src])?.finish(dst.dtype())?;
    if iter.numel() > 0 {
        loops::copy_into(iter.output(), iter.inputs()[0].as_tensor())?;
    }
    iter.into_result()
}

impl Tensor {
    /// `x.copy_(src)` as a method; see [`copy_`].
    ///
    /// ```
    /// # use bcast_engine::{DType, Tensor};
    /// let x = Tensor::zeros(&[2], DType::Float32).unwrap();
    /// let r = x.copy_(&Tensor::from_vec(vec![true, false], &[2]).unwrap()).unwrap();
    /// assert!(r.is_same(&x));
    /// assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 0.0]);
    /// ```
    ///
    /// # Errors
    /// As for [`copy_`].
    pub fn copy_(&self, src: impl Into<Operand>) -> Result<Tensor> {
        copy_(self, src)
    }
}
