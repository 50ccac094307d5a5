//! Dim bookkeeping views: `unsqueeze`, `squeeze`, `permute`, `transpose` and `t`.

use crate::shape::wrap_dim;
use crate::{Dims, Error, Result, Tensor};

impl Tensor {
    /// `x.unsqueeze(dim)`: a new size-1 dim at `dim` (in `-ndim-1..=ndim`).
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap();
    /// let u = x.unsqueeze(-1).unwrap();
    /// assert_eq!((u.shape(), u.strides()), (&[2, 3, 1][..], &[3, 1, 1][..]));
    /// ```
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::unsqueeze(self, dim);
        }
        let dim = wrap_dim(dim, self.ndim() + 1)?;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        let stride = if dim >= self.ndim() {
            1
        } else {
            shape[dim] * strides[dim]
        };
        shape.insert(dim, 1);
        strides.insert(dim, stride);
        self.restrided(shape, strides, self.offset())
    }

    /// `x.squeeze()`: every size-1 dim removed.
    pub fn squeeze(&self) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::squeeze(self);
        }
        let keep: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape()[d] != 1).collect();
        self.keep_dims(&keep)
    }

    /// `x.squeeze(dims)`: the listed dims removed where their size is 1; others are kept.
    ///
    /// # Errors
    /// A dim out of range, or a dim listed twice.
    pub fn squeeze_dims(&self, dims: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::squeeze_dims(self, dims);
        }
        let mut drop = vec![false; self.ndim().max(1)];
        for &d in dims {
            let w = wrap_dim(d, self.ndim())?;
            if drop[w] {
                return Err(crate::shape::duplicate_dim(w));
            }
            drop[w] = true;
        }
        let keep: Vec<usize> = (0..self.ndim())
            .filter(|&d| !(drop[d] && self.shape()[d] == 1))
            .collect();
        self.keep_dims(&keep)
    }

    fn keep_dims(&self, keep: &[usize]) -> Result<Tensor> {
        let shape: Dims = keep.iter().map(|&d| self.shape()[d]).collect();
        let strides: Dims = keep.iter().map(|&d| self.strides()[d]).collect();
        self.restrided(shape, strides, self.offset())
    }

    /// `x.permute(*dims)`: dim `i` of the result is dim `dims[i]` of `x`.
    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::permute(self, dims);
        }
        if dims.len() != self.ndim() {
            return Err(Error::runtime(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.ndim(),
                dims.len()
            )));
        }
        let wrapped = dims
            .iter()
            .map(|&d| wrap_dim(d, self.ndim()))
            .collect::<Result<Vec<usize>>>()?;
        let mut seen = vec![false; self.ndim()];
        for &d in &wrapped {
            if std::mem::replace(&mut seen[d], true) {
                return Err(Error::runtime("permute(): duplicate dims are not allowed."));
            }
        }
        self.keep_dims(&wrapped)
    }

    /// `x.transpose(dim0, dim1)`: the two dims swapped.
    pub fn transpose(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::transpose(self, dim0, dim1);
        }
        let a = wrap_dim(dim0, self.ndim())?;
        let b = wrap_dim(dim1, self.ndim())?;
        if self.ndim() == 0 {
            return Ok(self.clone());
        }
        let mut order: Vec<usize> = (0..self.ndim()).collect();
        order.swap(a, b);
        self.keep_dims(&order)
    }

    /// `x.t()`: transpose of a tensor with at most 2 dims.
    pub fn t(&self) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::t(self);
        }
        if self.ndim() > 2 {
            return Err(Error::runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                self.ndim()
            )));
        }
        if self.ndim() < 2 {
            return Ok(self.clone());
        }
        self.transpose(0, 1)
    }

    /// `x.select(dim, index)`, i.e. `x[..., index]`: the dim removed at one index.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::select(self, dim, index);
        }
        if self.ndim() == 0 {
            return Err(Error::index(
                "select() cannot be applied to a 0-dim tensor.",
            ));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if index < -size || index >= size {
            return Err(Error::index(format!(
                "select(): index {index} out of range for tensor of size {} at dimension {d}",
                crate::shape::format_shape(self.shape())
            )));
        }
        let i = if index < 0 { index + size } else { index } as usize;
        let offset = self.offset() + i * self.strides()[d];
        let keep: Vec<usize> = (0..self.ndim()).filter(|&k| k != d).collect();
        let shape: Dims = keep.iter().map(|&k| self.shape()[k]).collect();
        let strides: Dims = keep.iter().map(|&k| self.strides()[k]).collect();
        self.restrided(shape, strides, offset)
    }
}
