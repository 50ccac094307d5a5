//! `expand`, `expand_as`, `broadcast_to` and `broadcast_tensors`: stride-0 views, no copy.

use crate::shape::{broadcast_all, format_shape, format_sizes};
use crate::symint::{check_concrete, Wrapper};
use crate::{Error, Result, Tensor};

impl Tensor {
    /// `x.expand(*sizes)`: size-1 dims stretch (stride 0), new leading dims are prepended,
    /// and `-1` keeps an existing size. Expanding to a huge shape allocates nothing.
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let v = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
    /// let e = v.expand(&[4, -1]).unwrap();
    /// assert_eq!((e.shape(), e.strides()), (&[4, 3][..], &[0, 1][..]));
    /// let huge = v.expand(&[1 << 40, 3]).unwrap();
    /// assert_eq!(huge.storage().len(), 3);
    /// ```
    ///
    /// # Errors
    /// A size below the `SymInt` range (checked first, by torch's wrapper), fewer sizes than
    /// dims, `-1` in a new leading dim, a size that differs from a non-singleton existing
    /// size, or a numel that overflows, each with torch's message.
    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::expand(self, sizes);
        }
        check_concrete(Wrapper::Expand, &[sizes])?;
        let tensor_dim = self.ndim();
        if sizes.len() < tensor_dim {
            return Err(Error::runtime(format!(
                "expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.dtype().tensor_type_name(),
                format_shape(self.shape()),
                format_sizes(sizes),
                sizes.len(),
                tensor_dim
            )));
        }
        let (shape, strides) = self.expand_geometry(sizes)?;
        self.as_strided(&shape, &strides, None)
    }

    /// torch's `inferExpandGeometry`, in signed sizes so that `as_strided` sees (and rejects)
    /// exactly what torch's does.
    fn expand_geometry(&self, sizes: &[i64]) -> Result<(Vec<i64>, Vec<i64>)> {
        let ndim = sizes.len();
        let tensor_dim = self.ndim();
        if tensor_dim == 0 {
            return Ok((sizes.to_vec(), vec![0; ndim]));
        }
        let mut out_sizes = vec![0i64; ndim];
        let mut out_strides = vec![0i64; ndim];
        for i in (0..ndim).rev() {
            let offset = ndim - 1 - i;
            let existing = tensor_dim.checked_sub(offset + 1);
            let mut size = existing.map_or(1, |d| self.shape()[d] as i64);
            let mut stride = match existing {
                Some(d) => self.strides()[d] as i64,
                None => out_sizes[i + 1].wrapping_mul(out_strides[i + 1]),
            };
            let mut target = sizes[i];
            if target == -1 {
                if existing.is_none() {
                    return Err(Error::runtime(format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    )));
                }
                target = size;
            }
            if size != target {
                if size != 1 {
                    return Err(Error::runtime(format!(
                        "The expanded size of the tensor ({target}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                        format_sizes(sizes),
                        format_shape(self.shape())
                    )));
                }
                size = target;
                stride = 0;
            }
            out_sizes[i] = size;
            out_strides[i] = stride;
        }
        Ok((out_sizes, out_strides))
    }

    /// `x.expand_as(other)`: `x.expand(other.size())`.
    pub fn expand_as(&self, other: &Tensor) -> Result<Tensor> {
        self.expand(&to_i64(other.shape()))
    }

    /// `torch.broadcast_to(x, shape)`: the same as `expand`.
    pub fn broadcast_to(&self, shape: &[i64]) -> Result<Tensor> {
        self.expand(shape)
    }
}

/// `torch.broadcast_tensors(*tensors)`: every tensor expanded to the common shape.
///
/// ```
/// # use bcast_engine::{views::broadcast_tensors, Tensor};
/// let a = Tensor::from_vec(vec![1.0f32; 3], &[3, 1]).unwrap();
/// let b = Tensor::from_vec(vec![1.0f32; 4], &[1, 4]).unwrap();
/// let out = broadcast_tensors(&[a, b]).unwrap();
/// assert_eq!(out[0].shape(), &[3, 4]);
/// assert_eq!(out[1].strides(), &[0, 1]);
/// ```
pub fn broadcast_tensors(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    let shapes: Vec<&[usize]> = tensors.iter().map(Tensor::shape).collect();
    let shape = to_i64(&broadcast_all(&shapes)?);
    // torch's `expand_outplace`: a tensor that already has the shape is returned itself.
    tensors
        .iter()
        .map(|t| {
            if t.shape()
                .iter()
                .map(|&s| s as i64)
                .eq(shape.iter().copied())
            {
                Ok(t.clone())
            } else {
                t.expand(&shape)
            }
        })
        .collect()
}

fn to_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&s| s as i64).collect()
}
