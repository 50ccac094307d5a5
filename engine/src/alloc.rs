//! Allocation as torch's `empty` and `empty_strided` do it, with their checks. New memory is
//! zero-filled so results are deterministic.
//!
//! ```
//! use bcast_engine::{alloc, DType};
//! let t = alloc::empty(&[2, 0, 3], DType::Float32).unwrap();
//! assert_eq!(t.strides(), &[3, 3, 1]);
//! let err = alloc::empty(&[-2, 3], DType::Float32).unwrap_err();
//! assert_eq!(err.message(), "Trying to create tensor with negative dimension -2: [-2, 3]");
//! ```

use crate::shape::{format_sizes, nonnegative_sizes, signed_sizes};
use crate::{DType, Error, Layout, Result, Storage, Tensor};

/// The largest byte count torch accepts for a storage.
const STORAGE_MAX_BYTES: u64 = i64::MAX as u64;

/// `torch.empty(sizes, dtype=dtype)`, zero-filled.
///
/// # Errors
/// A negative size, a storage size that overflows, or more memory than the engine allocates.
pub fn empty(sizes: &[i64], dtype: DType) -> Result<Tensor> {
    let shape = nonnegative_sizes(sizes)?;
    let mut elements: u64 = 1;
    let mut overflow = false;
    for &s in &shape {
        let (p, o) = elements.overflowing_mul(s as u64);
        elements = p;
        overflow |= o;
    }
    let (bytes, o) = elements.overflowing_mul(dtype.itemsize() as u64);
    if overflow || o || bytes > STORAGE_MAX_BYTES {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={}",
            format_sizes(sizes)
        )));
    }
    let storage = Storage::zeros(dtype, elements as usize)?;
    Tensor::from_storage(&storage, Layout::contiguous(&shape))
}

/// `torch.empty_strided(shape, strides, dtype=dtype)`, zero-filled.
///
/// # Errors
/// A negative size (a shape can hold one, see [`crate::shape::numel_of`]), or overflow.
pub fn empty_strided(shape: &[usize], strides: &[usize], dtype: DType) -> Result<Tensor> {
    nonnegative_sizes(&signed_sizes(shape))?;
    let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0)?;
    let len = layout.required_storage_len().unwrap_or(0);
    let storage = Storage::zeros(dtype, len)?;
    Tensor::from_storage(&storage, layout)
}
