//! `narrow` and `slice`: sub-ranges of one dim, as views.

use crate::shape::{signed_sizes, wrap_dim};
use crate::symint::check_int_array;
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
        if crate::autograd::recording() {
            return crate::autograd::views::narrow(self, dim, start, length);
        }
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
        self.narrow_dim(d, start as usize, length as usize)
    }

    /// `torch.slice(x, dim, start, end, step)` (ATen's `slice`): `start` and `end` wrap once
    /// and are clamped; `None` means the ends. The result size is `(len + step - 1) / step` in
    /// torch's wrapping `int64` arithmetic, so a step near `i64::MAX` gives 0 or even -1 (which
    /// `as_strided` then refuses), and the stride is multiplied the same way.
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec((0..8i64).collect(), &[8]).unwrap();
    /// let s = x.slice(0, Some(1), None, 3).unwrap();
    /// assert_eq!((s.shape(), s.strides(), s.offset()), (&[3][..], &[3][..], 1));
    /// assert_eq!(s.to_vec::<i64>().unwrap(), vec![1, 4, 7]);
    /// let huge = x.slice(0, None, None, i64::MAX).unwrap();
    /// assert_eq!((huge.shape(), huge.strides()), (&[0][..], &[i64::MAX as usize][..]));
    /// let err = x.slice(0, Some(6), None, i64::MAX).unwrap_err();
    /// assert_eq!(err.message(), "Storage size calculation overflowed with sizes=[-1] and strides=[9223372036854775807]");
    /// ```
    ///
    /// # Errors
    /// A result size or stride outside the `SymInt` range, then `as_strided`'s checks (a size
    /// of -1 overflows the storage size calculation, a stride that wrapped negative is refused).
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::slice(self, dim, start, end, step);
        }
        if self.ndim() == 0 {
            return Err(Error::internal("slice() of a 0-dim tensor"));
        }
        let d = wrap_dim(dim, self.ndim())?;
        if step <= 0 {
            return Err(Error::internal(format!(
                "slice step must be positive, got {step}"
            )));
        }
        let mut sizes = signed_sizes(self.shape());
        let mut strides: Vec<i64> = self.strides().iter().map(|&s| s as i64).collect();
        let size = sizes[d];
        let mut start = start.unwrap_or(0);
        let mut end = end.unwrap_or(i64::MAX);
        // ATen's branches, kept as written in int64: a negative size (beside a 0) goes through
        // them unclamped, and torch's arithmetic wraps where it overflows.
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
        let offset = (self.offset() as i64).wrapping_add(start.wrapping_mul(strides[d]));
        let len = end.wrapping_sub(start);
        // Rounded up as torch writes it; `step` is positive, so the division cannot overflow.
        sizes[d] = len.wrapping_add(step).wrapping_sub(1) / step;
        strides[d] = strides[d].wrapping_mul(step);
        // `slice` hands plain int arrays to `as_strided`, converting them to `SymInt`s.
        check_int_array(&sizes)?;
        check_int_array(&strides)?;
        self.as_strided(&sizes, &strides, Some(offset))
    }

    /// `len` elements of `dim` from `start`, both already checked against its size.
    fn narrow_dim(&self, dim: usize, start: usize, len: usize) -> Result<Tensor> {
        let mut shape = self.shape().to_vec();
        let offset = self.offset() + start * self.strides()[dim];
        shape[dim] = len;
        self.restrided(shape, self.strides().to_vec(), offset)
    }
}
