//! `view` and `reshape`: a new shape over the same elements, as a view when strides allow.

use crate::shape::format_sizes;
use crate::symint::{check_concrete, Wrapper};
use crate::{Error, Result, Tensor};

/// Resolves one `-1` in a requested shape against `numel`, torch's `infer_size`.
///
/// ```
/// # use bcast_engine::views::infer_view_size;
/// assert_eq!(infer_view_size(&[3, -1], 6).unwrap(), vec![3, 2]);
/// assert_eq!(infer_view_size(&[4, -1], 6).unwrap_err().message(), "shape '[4, -1]' is invalid for input of size 6");
/// ```
pub fn infer_view_size(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
    let numel = numel as i64;
    let mut newsize: i64 = 1;
    let mut infer_dim = None;
    for (dim, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer_dim.is_some() {
                return Err(Error::runtime("only one dimension can be inferred"));
            }
            infer_dim = Some(dim);
        } else if s >= 0 {
            newsize = newsize.wrapping_mul(s);
        } else {
            return Err(Error::runtime(format!(
                "invalid shape dimension {s} at index {dim} of shape {}",
                format_sizes(shape)
            )));
        }
    }
    if numel == newsize || (infer_dim.is_some() && newsize > 0 && numel % newsize == 0) {
        let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
        if let Some(d) = infer_dim {
            if newsize == 0 {
                return Err(Error::runtime(format!(
                    "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                    format_sizes(shape)
                )));
            }
            out[d] = (numel / newsize) as usize;
        }
        return Ok(out);
    }
    Err(Error::runtime(format!(
        "shape '{}' is invalid for input of size {numel}",
        format_sizes(shape)
    )))
}

/// torch's `computeStride`: strides that let `new_shape` view the elements of a tensor with
/// `old_shape` and `old_strides`, or `None` when a view is impossible.
///
/// ```
/// # use bcast_engine::views::compute_view_strides;
/// assert_eq!(compute_view_strides(&[2, 3], &[3, 1], &[3, 2]), Some(vec![2, 1]));
/// assert_eq!(compute_view_strides(&[3, 2], &[1, 3], &[6]), None);
/// ```
pub fn compute_view_strides(
    old_shape: &[usize],
    old_strides: &[usize],
    new_shape: &[usize],
) -> Option<Vec<usize>> {
    if old_shape.is_empty() {
        return Some(vec![1; new_shape.len()]);
    }
    let numel: usize = old_shape.iter().product();
    if numel == 0 && old_shape == new_shape {
        return Some(old_strides.to_vec());
    }
    let mut new_strides = vec![0; new_shape.len()];
    if numel == 0 {
        for d in (0..new_shape.len()).rev() {
            new_strides[d] = if d == new_shape.len() - 1 {
                1
            } else {
                new_shape[d + 1].max(1) * new_strides[d + 1]
            };
        }
        return Some(new_strides);
    }
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel = 1;
    let mut view_numel = 1;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

impl Tensor {
    /// `x.view(*shape)`: the same elements in a new shape, always a view.
    ///
    /// # Errors
    /// A size below the `SymInt` range (checked first, by torch's wrapper), a shape with the
    /// wrong numel, or strides that no view can express (torch says to use `reshape`).
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::view(self, shape);
        }
        check_concrete(Wrapper::View, &[shape])?;
        let new_shape = infer_view_size(shape, self.numel())?;
        let strides = compute_view_strides(self.shape(), self.strides(), &new_shape).ok_or_else(|| {
            Error::runtime(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            )
        })?;
        self.restrided(new_shape, strides, self.offset())
    }

    /// `x.reshape(*shape)`: a view when one exists, else a contiguous copy. A contiguous
    /// tensor is simply viewed, as torch's `reshape` does (so `view`'s checks and messages
    /// apply to it).
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
    /// let t = x.t().unwrap();
    /// assert!(t.reshape(&[3, 2]).unwrap().shares_storage(&x));
    /// assert!(!t.reshape(&[6]).unwrap().shares_storage(&x));
    /// ```
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::reshape(self, shape);
        }
        if self.is_contiguous() {
            return self.view(shape);
        }
        let new_shape = infer_view_size(shape, self.numel())?;
        match compute_view_strides(self.shape(), self.strides(), &new_shape) {
            Some(strides) => self.restrided(new_shape, strides, self.offset()),
            None => {
                let copy = self.contiguous_copy()?;
                copy.restrided(
                    new_shape.clone(),
                    crate::layout::contiguous_strides(&new_shape),
                    0,
                )
            }
        }
    }
}
