//! `as_strided`, bounds-checked against the storage with torch's `setStrided` checks.

use crate::layout::check_in_bounds;
use crate::shape::{format_sizes, numel};
use crate::symint::{check_concrete, Wrapper};
use crate::{Dims, Error, Layout, Result, Tensor};

impl Tensor {
    /// `x.as_strided(size, stride, storage_offset)`: any view of this tensor's storage.
    /// The offset defaults to this tensor's.
    ///
    /// ```
    /// # use bcast_engine::Tensor;
    /// let x = Tensor::from_vec(vec![0i64, 1, 2], &[3]).unwrap();
    /// let err = x.as_strided(&[3], &[2], None).unwrap_err();
    /// assert!(err.message().starts_with("setStorage: sizes [3], strides [2]"));
    /// ```
    ///
    /// # Errors
    /// A size or stride below the `SymInt` range (checked first, by torch's wrapper),
    /// mismatched lengths, negative strides or offset, overflow, or a view reaching past the
    /// end of the storage, each with torch's message.
    pub fn as_strided(
        &self,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
        if crate::autograd::recording() {
            return crate::autograd::views::as_strided(self, size, stride, storage_offset);
        }
        check_concrete(Wrapper::AsStrided, &[size, stride])?;
        let offset = storage_offset.unwrap_or(self.offset() as i64);
        if size.len() != stride.len() {
            return Err(Error::runtime("mismatch in length of strides and shape"));
        }
        if stride.iter().any(|&s| s < 0) {
            return Err(Error::runtime(format!(
                "as_strided: Negative strides are not supported at the moment, got strides: {}",
                format_sizes(stride)
            )));
        }
        if offset < 0 {
            return Err(Error::runtime(format!(
                "Tensor: invalid storage offset {offset}"
            )));
        }
        check_in_bounds(
            size,
            stride,
            offset,
            self.dtype().itemsize(),
            self.storage().len(),
        )?;
        numel(size)?;
        // Strides are non-negative and the extent fits; a negative size survives only beside a
        // 0 (numel 0), kept bit for bit as torch keeps it.
        let layout = Layout::new(
            size.iter().map(|&s| s as usize).collect::<Dims>(),
            stride.iter().map(|&s| s as usize).collect::<Dims>(),
            offset as usize,
        )?;
        Ok(self.with_layout(layout))
    }

    /// A view with a layout the engine computed itself from this tensor's (always in bounds).
    pub(crate) fn restrided(
        &self,
        shape: impl Into<Dims>,
        strides: impl Into<Dims>,
        offset: usize,
    ) -> Result<Tensor> {
        Ok(self.with_layout(Layout::new(shape, strides, offset)?))
    }
}
