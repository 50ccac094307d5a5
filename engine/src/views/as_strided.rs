//! `as_strided`, bounds-checked against the storage with torch's `setStrided` checks.

use crate::shape::{format_sizes, numel};
use crate::{Error, Layout, Result, Tensor};

/// torch's `computeStorageNbytes`: bytes needed to hold a view, with the same unsigned
/// 64-bit overflow rules (a negative size or stride overflows). 0 for an empty view.
///
/// ```
/// # use bcast_engine::views::compute_storage_nbytes;
/// assert_eq!(compute_storage_nbytes(&[3], &[2], 8, 0).unwrap(), 40);
/// assert!(compute_storage_nbytes(&[2, -1], &[1, 1], 8, 0).is_err());
/// ```
pub fn compute_storage_nbytes(
    sizes: &[i64],
    strides: &[i64],
    itemsize: usize,
    offset: i64,
) -> Result<u64> {
    let mut size = (offset as u64).wrapping_add(1);
    let mut overflowed = false;
    for (&s, &st) in sizes.iter().zip(strides) {
        if s == 0 {
            return Ok(0);
        }
        let (strided, o1) = (st as u64).overflowing_mul(s.wrapping_sub(1) as u64);
        let (sum, o2) = size.overflowing_add(strided);
        size = sum;
        overflowed |= o1 | o2;
    }
    let (bytes, o) = size.overflowing_mul(itemsize as u64);
    overflowed |= o || bytes > i64::MAX as u64;
    if overflowed {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            format_sizes(sizes),
            format_sizes(strides)
        )));
    }
    Ok(bytes)
}

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
    /// Mismatched lengths, negative strides or offset, overflow, or a view reaching past the
    /// end of the storage, each with torch's message.
    pub fn as_strided(
        &self,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
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
        let itemsize = self.dtype().itemsize();
        let plain = compute_storage_nbytes(size, stride, itemsize, 0)?;
        let needed = compute_storage_nbytes(size, stride, itemsize, offset)?;
        let available = (self.storage().len() * itemsize) as u64;
        if plain != 0 && needed > available {
            return Err(Error::runtime(format!(
                "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} requiring a storage size of {} are out of bounds for storage of size {}",
                format_sizes(size),
                format_sizes(stride),
                offset,
                itemsize,
                needed,
                available
            )));
        }
        if offset < 0 {
            return Err(Error::runtime(format!(
                "Tensor: invalid storage offset {offset}"
            )));
        }
        numel(size)?;
        // Strides are non-negative and the extent fits; a negative size survives only beside a
        // 0 (numel 0), kept bit for bit as torch keeps it.
        let layout = Layout::new(
            size.iter().map(|&s| s as usize).collect(),
            stride.iter().map(|&s| s as usize).collect(),
            offset as usize,
        )?;
        Ok(self.with_layout(layout))
    }

    /// A view with a layout the engine computed itself from this tensor's (always in bounds).
    pub(crate) fn restrided(
        &self,
        shape: Vec<usize>,
        strides: Vec<usize>,
        offset: usize,
    ) -> Result<Tensor> {
        Ok(self.with_layout(Layout::new(shape, strides, offset)?))
    }
}
