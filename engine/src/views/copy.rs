//! The view-family ops that copy: `contiguous`, `clone` and `repeat`.

use crate::iter::sort_dims;
use crate::layout::contiguous_strides;
use crate::{alloc, loops, Result, Tensor};

/// torch's `infer_dense_strides`: dense strides that keep the memory order of a layout's dims
/// (stride-0 dims keep their place), as `clone()` uses for a non-dense tensor.
///
/// ```
/// # use bcast_engine::views::infer_dense_strides;
/// assert_eq!(infer_dense_strides(&[3, 5, 4], &[4, 0, 1]), vec![20, 4, 1]);
/// assert_eq!(infer_dense_strides(&[3, 2], &[2, 12]), vec![1, 3]);
/// ```
pub fn infer_dense_strides(shape: &[usize], strides: &[usize]) -> Vec<usize> {
    let ndim = shape.len();
    if ndim <= 1 {
        return vec![1; ndim];
    }
    let perm = sort_dims(ndim, |d0, d1| {
        let (s0, s1) = (strides[d0], strides[d1]);
        if s0 == 0 || s1 == 0 {
            0
        } else if s0 != s1 {
            if s0 < s1 {
                -1
            } else {
                1
            }
        } else if shape[d0] > shape[d1] {
            1
        } else {
            0
        }
    });
    let mut out = vec![0; ndim];
    let mut current = 1usize;
    for &d in &perm {
        out[d] = current;
        if shape[d] > 1 {
            current = current.wrapping_mul(shape[d]);
        }
    }
    out
}

impl Tensor {
    /// `x.contiguous()`: `x` itself when already contiguous, else a row-major copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::contiguous(self);
        }
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.contiguous_copy()
    }

    /// A row-major copy, always new storage (torch's `clone` in the contiguous format, which
    /// allocates with `empty`).
    pub(crate) fn contiguous_copy(&self) -> Result<Tensor> {
        let out = alloc::empty_in_format(
            self.shape(),
            &contiguous_strides(self.shape()),
            self.dtype(),
        )?;
        loops::copy_into(&out, self)?;
        Ok(out)
    }

    /// `x.clone()`: a copy in new storage, keeping the strides of a dense layout and the
    /// memory order of any other (torch's `preserve_format`).
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
    /// let c = x.t().unwrap().clone_tensor().unwrap();
    /// assert_eq!(c.strides(), &[1, 3]);
    /// assert!(!c.shares_storage(&x));
    /// ```
    pub fn clone_tensor(&self) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::clone(self);
        }
        self.copy_preserving_format(self.dtype())
    }

    /// `x.to(dtype)`: `x` itself for its own dtype, else a converted copy laid out as
    /// `clone()` lays it out (torch's `_to_copy` with `preserve_format`).
    ///
    /// ```
    /// # use bcast_engine::{DType, Tensor};
    /// let x = Tensor::from_vec(vec![1i64, -2, 3, 4], &[2, 2]).unwrap().t().unwrap();
    /// let f = x.to_dtype(DType::Float32).unwrap();
    /// assert_eq!((f.dtype(), f.strides()), (DType::Float32, &[1, 2][..]));
    /// assert_eq!(f.to_vec::<f32>().unwrap(), vec![1.0, 3.0, -2.0, 4.0]);
    /// ```
    pub fn to_dtype(&self, dtype: crate::DType) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::to_dtype(self, dtype);
        }
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        self.copy_preserving_format(dtype)
    }

    /// `torch.empty_like(x, dtype=dtype)` (`preserve_format`): new storage with the strides of
    /// a dense layout, or the memory order of any other; the values are zeros.
    ///
    /// ```
    /// # use bcast_engine::{DType, Tensor};
    /// let x = Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap().t().unwrap();
    /// let e = x.empty_like(DType::Float32).unwrap();
    /// assert_eq!((e.dtype(), e.strides()), (DType::Float32, &[1, 2][..]));
    /// ```
    pub fn empty_like(&self, dtype: crate::DType) -> Result<Tensor> {
        let strides = if self.layout().is_non_overlapping_and_dense() {
            self.strides().to_vec()
        } else {
            infer_dense_strides(self.shape(), self.strides())
        };
        alloc::empty_strided(self.shape(), &strides, dtype)
    }

    /// A copy in new storage of `dtype`, laid out as [`Tensor::empty_like`].
    fn copy_preserving_format(&self, dtype: crate::DType) -> Result<Tensor> {
        let out = self.empty_like(dtype)?;
        loops::copy_into(&out, self)?;
        Ok(out)
    }

    /// `x.repeat(*repeats)`: tiles the tensor, always a copy (contrast `expand`).
    ///
    /// # Errors
    /// A repeat below the `SymInt` range (checked first, by torch's wrapper), fewer repeats
    /// than dims, or a negative or overflowing result size.
    pub fn repeat(&self, repeats: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::repeat(self, repeats);
        }
        crate::symint::check_concrete(crate::symint::Wrapper::Repeat, &[repeats])?;
        if repeats.len() < self.ndim() {
            return Err(crate::Error::runtime(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
            ));
        }
        let new_dims = repeats.len() - self.ndim();
        let padded: Vec<i64> = std::iter::repeat_n(1, new_dims)
            .chain(self.shape().iter().map(|&s| s as i64))
            .collect();
        let target: Vec<i64> = padded
            .iter()
            .zip(repeats)
            .map(|(p, r)| p.wrapping_mul(*r))
            .collect();
        let result = alloc::empty(&target, self.dtype())?;
        if result.numel() == 0 {
            return Ok(result);
        }
        let source = self.expand(&padded)?;
        // View the result as (r0, p0, r1, p1, ...) and copy the source, expanded over the rNs.
        let mut tiled_shape = Vec::with_capacity(2 * padded.len());
        let mut tiled_strides = Vec::with_capacity(2 * padded.len());
        let mut source_strides = Vec::with_capacity(2 * padded.len());
        for (d, (&p, &r)) in padded.iter().zip(repeats).enumerate() {
            let stride = result.strides()[d];
            tiled_shape.extend([r as usize, p as usize]);
            tiled_strides.extend([stride * p as usize, stride]);
            source_strides.extend([0, source.strides()[d]]);
        }
        let dst = result.restrided(tiled_shape.clone(), tiled_strides, 0)?;
        let src = source.restrided(tiled_shape, source_strides, source.offset())?;
        loops::copy_into(&dst, &src)?;
        Ok(result)
    }
}
