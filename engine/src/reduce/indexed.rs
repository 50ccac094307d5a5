//! `torch.max`/`torch.min` as reductions: over one dim with the index of each result
//! (`max(x, dim, keepdim)` returns `(values, indices)`), and over every element (`max(x)`,
//! `amax` of all dims with its own messages). The index is the first position holding the
//! result: the first of equal elements, the first NaN where a NaN propagates.

use super::extrema::{empty_dim_error, unspecified_dim_error};
use super::{reduced_shape, ReducePlan};
use crate::shape::{signed_sizes, wrap_dim};
use crate::{alloc, Element, Error, Result, Tensor};

/// `torch.max(x, dim, keepdim)`: the largest element along `dim` and its index (the first
/// one on a tie; NaN is the largest, its first position wins).
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1.0f32, 3.0, 3.0, 2.0, 2.0, f32::NAN], &[2, 3]).unwrap();
/// let (values, indices) = reduce::max_dim(&x, 1, false).unwrap();
/// assert_eq!(indices.to_vec::<i64>().unwrap(), vec![1, 2]);
/// assert!(values.to_vec::<f32>().unwrap()[1].is_nan());
/// let empty = Tensor::from_vec(Vec::<f32>::new(), &[0, 3]).unwrap();
/// let err = reduce::max_dim(&empty, -2, false).unwrap_err();
/// assert_eq!(err.message(), "max(): Expected reduction dim 0 to have non-zero size.");
/// ```
///
/// # Errors
/// A dim out of range; a reduced dim of size 0 (named wrapped); a complex input.
pub fn max_dim(x: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::indexed_op(x, dim, keepdim, true);
    }
    indexed(x, dim, keepdim, true)
}

/// `torch.min(x, dim, keepdim)`, the twin of [`max_dim`].
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![2i64, 1, 1], &[3]).unwrap();
/// let (values, indices) = reduce::min_dim(&x, 0, true).unwrap();
/// assert_eq!((values.shape(), indices.to_vec::<i64>().unwrap()), (&[1][..], vec![1]));
/// ```
///
/// # Errors
/// As [`max_dim`].
pub fn min_dim(x: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::indexed_op(x, dim, keepdim, false);
    }
    indexed(x, dim, keepdim, false)
}

/// `torch.max(x)`: the largest of all elements (NaN propagating), a 0-d tensor.
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1i16, 7, 3], &[3]).unwrap();
/// assert_eq!(reduce::max_all(&x).unwrap().to_vec::<i16>().unwrap(), vec![7]);
/// let err = reduce::max_all(&Tensor::from_vec(Vec::<f32>::new(), &[0]).unwrap()).unwrap_err();
/// assert!(err.message().starts_with("max(): Expected reduction dim to be specified"));
/// ```
///
/// # Errors
/// An input without elements; a complex input (`"max_all" not implemented`).
pub fn max_all(x: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::all_op(x, true);
    }
    all(x, true)
}

/// `torch.min(x)`, the twin of [`max_all`].
///
/// # Errors
/// As [`max_all`].
pub fn min_all(x: &Tensor) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::all_op(x, false);
    }
    all(x, false)
}

/// `max()` or `min()`, as torch's messages name the op.
fn op_name(max: bool) -> &'static str {
    if max {
        "max()"
    } else {
        "min()"
    }
}

/// The reduction over every element: `amax`'s values, with `max()`'s checks.
fn all(x: &Tensor, max: bool) -> Result<Tensor> {
    if x.numel() == 0 {
        return Err(unspecified_dim_error(op_name(max)));
    }
    if x.dtype().is_complex() {
        let kernel = if max { "max_all" } else { "min_all" };
        return Err(crate::ops::not_implemented_error(kernel, x.dtype()));
    }
    if max {
        super::amax(x, &[], false)
    } else {
        super::amin(x, &[], false)
    }
}

/// The reduction over one dim with indices, checked in torch's order.
fn indexed(x: &Tensor, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.ndim())?;
    if x.numel() == 0 && x.shape().get(d) == Some(&0) {
        return Err(empty_dim_error(op_name(max), d));
    }
    if x.dtype().is_complex() {
        return Err(Error::runtime(format!(
            "{}: does not support complex input",
            op_name(max)
        )));
    }
    let mask: Vec<bool> = (0..x.ndim()).map(|i| i == d).collect();
    let shape = reduced_shape(x.shape(), &mask, keepdim);
    alloc::check_empty(&signed_sizes(&shape), x.dtype())?;
    alloc::check_empty(&signed_sizes(&shape), crate::DType::Int64)?;
    let plan = ReducePlan::new(x.layout(), &mask)?;
    crate::element::dispatch_real!(x.dtype(), T => {
        let (values, indices) = select::<T>(x, &plan, max)?;
        Ok((Tensor::from_vec(values, &shape)?, Tensor::from_vec(indices, &shape)?))
    }, complex => Err(Error::internal(format!("{complex:?} reached the real reduction"))))
}

/// The selected element of each group and its position in the group.
fn select<T: Element + PartialOrd>(
    x: &Tensor,
    plan: &ReducePlan,
    max: bool,
) -> Result<(Vec<T>, Vec<i64>)> {
    #[allow(clippy::eq_op)]
    let is_nan = |v: T| v != v;
    let picked = plan.map_groups::<T, (T, i64)>(x, |data, group| {
        let mut best: Option<(T, i64)> = None;
        for (k, p) in group.enumerate() {
            let v = data[p];
            best = match best {
                None => Some((v, k as i64)),
                Some((b, _)) if is_nan(b) => best,
                Some(_) if is_nan(v) => Some((v, k as i64)),
                Some((b, _)) if (max && v > b) || (!max && v < b) => Some((v, k as i64)),
                keep => keep,
            };
        }
        best.unwrap_or((T::default(), 0))
    })?;
    Ok(picked.into_iter().unzip())
}
