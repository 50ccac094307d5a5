//! `narrow` and `slice`: sub-ranges of one dim, as views.

use crate::shape::wrap_dim;
use crate::{Error, Result, Tensor};

impl Tensor {
    /// `x.narrow(dim, start, length)`: `length` elements of `dim` from `start` (which may be
    /// negative).
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
    /// let n = x.narrow(0, -1, 1).unwrap();
    /// assert_eq!((n.shape(), n.offset()), (&[1, 3][..], 3));
    /// ```
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::runtime(
                "narrow() cannot be applied to a 0-dim tensor.",
            ));
        }
        if length < 0 {
            return Err(Error::runtime("narrow(): length must be non-negative."));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if start < size.wrapping_neg() || start > size {
            return Err(Error::index(format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                size.wrapping_neg()
            )));
        }
        let start = if start < 0 {
            start.wrapping_add(size)
        } else {
            start
        };
        if start > size.wrapping_sub(length) {
            return Err(Error::runtime(format!(
                "start ({start}) + length ({length}) exceeds dimension size ({size})."
            )));
        }
        self.slice_dim(d, start as usize, length as usize, 1)
    }

    /// `torch.slice(x, dim, start, end, step)` (ATen's `slice`): `start` and `end` wrap once
    /// and are clamped; `None` means the ends.
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec((0..8i64).collect(), &[8]).unwrap();
    /// let s = x.slice(0, Some(1), None, 3).unwrap();
    /// assert_eq!((s.shape(), s.strides(), s.offset()), (&[3][..], &[3][..], 1));
    /// assert_eq!(s.to_vec::<i64>().unwrap(), vec![1, 4, 7]);
    /// ```
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::internal("slice() of a 0-dim tensor"));
        }
        let d = wrap_dim(dim, self.ndim())?;
        if step <= 0 {
            return Err(Error::internal(format!(
                "slice step must be positive, got {step}"
            )));
        }
        let size = self.shape()[d] as i64;
        let mut start = start.unwrap_or(0);
        let mut end = end.unwrap_or(i64::MAX);
        if start == i64::MAX {
            start = 0;
        }
        // ATen's branches, kept as written: a negative size (beside a 0) must not reach
        // `clamp`, and torch's arithmetic wraps where it overflows.
        if start < 0 {
            start = start.wrapping_add(size);
        }
        if end < 0 {
            end = end.wrapping_add(size);
        }
        if start < 0 {
            start = 0;
        } else if start >= size {
            start = size;
        }
        if end < start {
            end = start;
        } else if end >= size {
            end = size;
        }
        let len = end.wrapping_sub(start).max(0) as usize;
        let start = start.max(0);
        self.slice_dim(
            d,
            start as usize,
            len.div_ceil(step as usize),
            step as usize,
        )
    }

    fn slice_dim(&self, dim: usize, start: usize, len: usize, step: usize) -> Result<Tensor> {
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        let offset = self.offset() + start * strides[dim];
        shape[dim] = len;
        strides[dim] = strides[dim].saturating_mul(step);
        self.restrided(shape, strides, offset)
    }
}
