//! Allocation as torch's `empty` and `empty_strided` do it, with their checks. New memory is
//! zero-filled so results are deterministic (the zeros are written when the storage is first
//! locked, and not at all when a kernel writes every element first: [`Storage::zeros`]).
//!
//! The two report a storage size that overflows differently: `empty` (and everything torch
//! sizes as a contiguous tensor: new outputs in a memory format, `resize_`) names the sizes,
//! `empty_strided` the sizes and the strides.
//!
//! ```
//! use bcast_engine::{alloc, DType};
//! let t = alloc::empty(&[2, 0, 3], DType::Float32).unwrap();
//! assert_eq!(t.strides(), &[3, 3, 1]);
//! let err = alloc::empty(&[-2, 3], DType::Float32).unwrap_err();
//! assert_eq!(err.message(), "Trying to create tensor with negative dimension -2: [-2, 3]");
//! let err = alloc::empty_strided(&[1 << 61, 2], &[2, 1], DType::Float32).unwrap_err();
//! assert_eq!(err.message(), "Storage size calculation overflowed with sizes=[2305843009213693952, 2] and strides=[2, 1]");
//! ```

use crate::dims::SignedDims;
use crate::layout::compute_storage_nbytes;
use crate::shape::{format_sizes, nonnegative_sizes, signed_sizes};
use crate::{DType, Error, Layout, Result, Storage, Tensor};

/// The largest byte count torch accepts for a storage.
const STORAGE_MAX_BYTES: u64 = i64::MAX as u64;

/// torch's `computeStorageNbytesContiguous`: the bytes a contiguous tensor of `sizes` needs
/// when it starts `offset` elements into its storage. Sizes multiply as unsigned 64-bit
/// numbers and an overflow sticks (a later 0 size does not undo it), as in torch.
///
/// ```
/// # use bcast_engine::alloc::contiguous_nbytes;
/// assert_eq!(contiguous_nbytes(&[2, 3], 8, 1).unwrap(), 56);
/// let err = contiguous_nbytes(&[1 << 62, 4, 0], 1, 0).unwrap_err();
/// assert_eq!(err.message(), "Storage size calculation overflowed with sizes=[4611686018427387904, 4, 0]");
/// ```
///
/// # Errors
/// `Storage size calculation overflowed with sizes=[...]`.
pub fn contiguous_nbytes(sizes: &[i64], itemsize: usize, offset: usize) -> Result<u64> {
    let mut elements: u64 = 1;
    let mut overflow = false;
    for &s in sizes {
        let (p, o) = elements.overflowing_mul(s as u64);
        elements = p;
        overflow |= o;
    }
    let (total, o1) = elements.overflowing_add(offset as u64);
    let (bytes, o2) = total.overflowing_mul(itemsize as u64);
    if overflow || o1 || o2 || bytes > STORAGE_MAX_BYTES {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={}",
            format_sizes(sizes)
        )));
    }
    Ok(bytes)
}

/// torch's checks in `empty(sizes, dtype=dtype)`, without allocating: no negative size, and a
/// storage size that fits. For ops that compute their result before storing it.
///
/// # Errors
/// A negative size, or a storage size that overflows.
pub fn check_empty(sizes: &[i64], dtype: DType) -> Result<()> {
    nonnegative_sizes(sizes)?;
    contiguous_nbytes(sizes, dtype.itemsize(), 0)?;
    Ok(())
}

/// `torch.empty(sizes, dtype=dtype)`, zero-filled.
///
/// # Errors
/// A negative size, a storage size that overflows, or more memory than the engine allocates.
pub fn empty(sizes: &[i64], dtype: DType) -> Result<Tensor> {
    let shape = nonnegative_sizes(sizes)?;
    let bytes = contiguous_nbytes(sizes, dtype.itemsize(), 0)?;
    let storage = Storage::zeros(dtype, (bytes / dtype.itemsize() as u64) as usize)?;
    Tensor::from_storage(&storage, Layout::contiguous(&shape))
}

/// `torch.empty(shape, dtype=dtype, memory_format=...)`, zero-filled: sized and checked as a
/// contiguous tensor (as [`empty`]), then laid out with `strides`, the memory format's dense
/// strides (row-major or channels-last). TensorIterator allocates new outputs so when it
/// passes no strides.
///
/// ```
/// use bcast_engine::{alloc, DType};
/// let t = alloc::empty_in_format(&[2, 3, 4, 5], &[60, 1, 15, 3], DType::Float32).unwrap();
/// assert_eq!((t.strides(), t.storage().len()), (&[60, 1, 15, 3][..], 120));
/// // Strides that reach past the 6 elements of a (2, 3) tensor are not a memory format's.
/// assert!(alloc::empty_in_format(&[2, 3], &[4, 1], DType::Float32).is_err());
/// ```
///
/// # Errors
/// As [`empty`].
pub fn empty_in_format(shape: &[usize], strides: &[usize], dtype: DType) -> Result<Tensor> {
    let sizes = signed_sizes(shape);
    nonnegative_sizes(&sizes)?;
    let bytes = contiguous_nbytes(&sizes, dtype.itemsize(), 0)?;
    let len = (bytes / dtype.itemsize() as u64) as usize;
    let layout = Layout::fitting(shape, strides, len).ok_or_else(|| {
        Error::internal(format!(
            "strides {} are not those of a memory format for sizes {}",
            format_sizes(strides),
            format_sizes(shape)
        ))
    })?;
    Ok(Tensor::over(Storage::zeros(dtype, len)?, layout))
}

/// `torch.empty_strided(shape, strides, dtype=dtype)`, zero-filled, with torch's checks in
/// its order: no negative size, the storage size (with the item size), then the numel.
/// Strides hold torch's `int64` strides bit for bit (a stride TensorIterator computed with
/// wrapping arithmetic can be negative).
///
/// # Errors
/// A negative size (a shape can hold one, see [`crate::shape::numel_of`]), or overflow.
pub fn empty_strided(shape: &[usize], strides: &[usize], dtype: DType) -> Result<Tensor> {
    let sizes = signed_sizes(shape);
    nonnegative_sizes(&sizes)?;
    let signed_strides: SignedDims = strides.iter().map(|&s| s as i64).collect();
    let bytes = compute_storage_nbytes(&sizes, &signed_strides, dtype.itemsize(), 0)?;
    let layout = Layout::new(shape, strides, 0)?;
    let storage = Storage::zeros(dtype, (bytes / dtype.itemsize() as u64) as usize)?;
    Tensor::from_storage(&storage, layout)
}
