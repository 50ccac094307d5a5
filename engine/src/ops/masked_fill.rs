//! `masked_fill(x, mask, value)`: writes `value` where the bool `mask` (which broadcasts to
//! `x`) is true. The functional form fills a contiguous copy of `x` broadcast with the mask;
//! the in-place form cannot grow `x`, and writes only where the mask is true (so an expanded
//! `x`, which torch allows with a deprecation warning, gets the same value at every alias).
//!
//! ```
//! use bcast_engine::ops::masked_fill;
//! use bcast_engine::{Scalar, Tensor};
//! let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
//! let m = Tensor::from_vec(vec![true, false], &[2, 1]).unwrap();
//! let r = masked_fill(&x, &m, Scalar::Float(0.5)).unwrap();
//! assert_eq!((r.shape(), r.to_vec::<f32>().unwrap()), (&[2, 2][..], vec![0.5, 0.5, 1.0, 2.0]));
//! ```

use super::Operand;
use crate::index_map::{broadcast_storage_index, unravel};
use crate::iter::{compute_shape, IterConfig, IterInput, IterSetup};
use crate::overlap::assert_no_partial_overlap;
use crate::{alloc, dispatch_dtype, loops, DType, Element, Error, Result, Scalar, Tensor};

/// `torch.masked_fill(x, mask, value)` (and `x.masked_fill(mask, value)`): `value` a Python
/// number or a 0-d tensor.
///
/// # Errors
/// torch's, in its order: a mask and `x` that do not broadcast (the mask as tensor a); then
/// those of [`masked_fill_`] on the copy.
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: impl Into<Operand>) -> Result<Tensor> {
    masked_fill_operands(x, mask, value.into())
}

/// [`masked_fill`] with its operands converted (compiled once, not once per caller's types).
fn masked_fill_operands(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::masked_fill_op(x, mask, value);
    }
    let (shape, _) = compute_shape(&[mask.shape(), x.shape()])?;
    let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let result = alloc::empty(&sizes, x.dtype())?;
    loops::copy_into(&result, &x.expand(&sizes)?)?;
    masked_fill_in_place(&result, mask, value)
}

/// `x.masked_fill_(mask, value)`.
///
/// # Errors
/// torch's, in its order: a value tensor that is not 0-d; a mask that is not bool (`masked_fill_
/// only supports boolean masks, but got mask with dtype unsigned char`); a mask partially
/// overlapping `x`; shapes that do not broadcast, or whose broadcast is not `x`'s shape; a
/// value `x`'s dtype cannot hold (`value cannot be converted to type int without overflow`;
/// any value fits `bool`).
pub fn masked_fill_(x: &Tensor, mask: &Tensor, value: impl Into<Operand>) -> Result<Tensor> {
    masked_fill_in_place(x, mask, value.into())
}

/// [`masked_fill_`] with its operands converted (compiled once, not once per caller's types).
fn masked_fill_in_place(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::elementwise::masked_fill_op_(x, mask, value);
    }
    let value = match value {
        Operand::Number(v) => v,
        Operand::Tensor(t) => {
            if t.ndim() != 0 {
                return Err(Error::runtime(format!(
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    t.ndim()
                )));
            }
            t.get_flat(0)
                .ok_or_else(|| Error::internal("a 0-d tensor without its element"))?
        }
    };
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().type_meta_name()
        )));
    }
    assert_no_partial_overlap(x, mask)?;
    let config = IterConfig {
        check_mem_overlap: false,
        resize_outputs: false,
    };
    IterSetup::new(config, Some(x), vec![IterInput::tensor(mask)])?;
    if x.dtype() != DType::Bool {
        value.check_fits(x.dtype())?;
    }
    // Where the mask is true, read before any write (the mask may be `x` itself).
    let positions: Vec<usize> = {
        let buffer = mask.storage().read();
        let bits = buffer
            .as_slice::<bool>()
            .ok_or_else(|| Error::internal("a bool mask without bool storage"))?;
        (0..x.numel())
            .filter_map(|i| {
                let index = unravel(i, x.shape());
                let at = broadcast_storage_index(mask.layout(), &index);
                bits.get(at)
                    .copied()
                    .unwrap_or(false)
                    .then(|| x.layout().storage_index(&index))
            })
            .collect()
    };
    dispatch_dtype!(x.dtype(), T => write_at::<T>(x, &positions, value))?;
    Ok(x.clone())
}

fn write_at<T: Element>(x: &Tensor, positions: &[usize], value: Scalar) -> Result<()> {
    let v = T::from_scalar(value);
    let mut buffer = x.storage().write();
    let data = buffer
        .as_mut_slice::<T>()
        .ok_or_else(|| Error::internal("a storage of another dtype"))?;
    for &p in positions {
        let slot = data
            .get_mut(p)
            .ok_or_else(|| Error::internal("a position outside the storage"))?;
        *slot = v;
    }
    Ok(())
}
