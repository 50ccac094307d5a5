//! The two views einsum takes of an operand with a repeated subscript: `diagonal` and `movedim`.

use crate::shape::wrap_dim;
use crate::{Error, Layout, Result, Tensor};

/// `x.diagonal(0, dim1, dim2)`: a view without `dim1` and `dim2` and with a new last dim that
/// walks their main diagonal (stride = the sum of their strides).
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let x = Tensor::from_vec((0..9i64).collect(), &[3, 3]).unwrap();
/// let d = linalg::diagonal(&x, 0, 1).unwrap();
/// assert_eq!((d.shape(), d.strides()), (&[3][..], &[4][..]));
/// assert_eq!(d.to_vec::<i64>().unwrap(), vec![0, 4, 8]);
/// ```
///
/// # Errors
/// A dim out of range, or `dim1 == dim2`.
pub fn diagonal(x: &Tensor, dim1: i64, dim2: i64) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::views::diagonal(x, dim1, dim2);
    }
    let d1 = wrap_dim(dim1, x.ndim())?;
    let d2 = wrap_dim(dim2, x.ndim())?;
    if d1 == d2 {
        return Err(Error::internal(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let keep = (0..x.ndim()).filter(|&d| d != d1 && d != d2);
    let mut shape: Vec<usize> = keep.clone().map(|d| x.shape()[d]).collect();
    let mut strides: Vec<usize> = keep.map(|d| x.strides()[d]).collect();
    shape.push(x.shape()[d1].min(x.shape()[d2]));
    strides.push(x.strides()[d1] + x.strides()[d2]);
    let layout = Layout::new(shape, strides, x.offset())?;
    Tensor::from_storage(x.storage(), layout)
}

/// `x.movedim(source, destination)` for one dim: the dim moves, the others keep their order.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let x = Tensor::from_vec(vec![0.0f32; 24], &[2, 3, 4]).unwrap();
/// let m = linalg::movedim(&x, -1, 0).unwrap();
/// assert_eq!((m.shape(), m.strides()), (&[4, 2, 3][..], &[1, 12, 4][..]));
/// ```
///
/// # Errors
/// A dim out of range.
pub fn movedim(x: &Tensor, source: i64, destination: i64) -> Result<Tensor> {
    let src = wrap_dim(source, x.ndim())?;
    let dst = wrap_dim(destination, x.ndim())?;
    let mut order: Vec<i64> = (0..x.ndim() as i64).filter(|&d| d != src as i64).collect();
    if x.ndim() > 0 {
        order.insert(dst, src as i64);
    }
    x.permute(&order)
}
