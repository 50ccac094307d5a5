//! A strided layout: shape, strides in elements, and a storage offset, with torch's
//! contiguity predicates.
//!
//! ```
//! use bcast_engine::Layout;
//! let l = Layout::contiguous(&[2, 3]);
//! assert_eq!(l.strides(), &[3, 1]);
//! assert!(l.is_contiguous());
//! let t = Layout::new(vec![3, 2], vec![1, 3], 0).unwrap();
//! assert!(!t.is_contiguous() && t.is_non_overlapping_and_dense());
//! ```

use crate::dims::SignedDims;
use crate::shape::{format_shape, format_sizes, numel_of, signed_sizes};
use crate::{Dims, Error, Result};

/// Where the elements of a view live in its storage.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Dims,
    strides: Dims,
    offset: usize,
}

/// Copies the dims as slices (`SmallVec`'s own `clone` pushes them one by one), since every
/// tensor handle a call clones copies its layout.
impl Clone for Layout {
    fn clone(&self) -> Layout {
        Layout {
            shape: Dims::from_slice(&self.shape),
            strides: Dims::from_slice(&self.strides),
            offset: self.offset,
        }
    }
}

/// Row-major strides for `shape`, torch's way: a size-0 or size-1 dim counts as 1.
///
/// ```
/// # use bcast_engine::layout::contiguous_strides;
/// assert_eq!(&contiguous_strides(&[2, 0, 3])[..], &[3, 3, 1]);
/// ```
pub fn contiguous_strides(shape: &[usize]) -> Dims {
    let mut strides: Dims = smallvec::smallvec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    strides
}

/// torch's `computeStorageNbytes`: bytes needed to hold a view, with the same unsigned
/// 64-bit overflow rules (a negative size or stride overflows). 0 for an empty view.
///
/// ```
/// # use bcast_engine::layout::compute_storage_nbytes;
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

/// torch's `checkInBoundsForStorage`: a view of `sizes`, `strides` and `offset` must fit in a
/// storage of `storage_len` elements (an empty view fits anywhere).
///
/// ```
/// # use bcast_engine::layout::check_in_bounds;
/// let err = check_in_bounds(&[3], &[2], 0, 8, 3).unwrap_err();
/// assert!(err.message().ends_with("requiring a storage size of 40 are out of bounds for storage of size 24"));
/// ```
pub fn check_in_bounds(
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
    itemsize: usize,
    storage_len: usize,
) -> Result<()> {
    let plain = compute_storage_nbytes(sizes, strides, itemsize, 0)?;
    let needed = compute_storage_nbytes(sizes, strides, itemsize, offset)?;
    let available = (storage_len * itemsize) as u64;
    if plain != 0 && needed > available {
        return Err(Error::runtime(format!(
            "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size {available}",
            format_sizes(sizes),
            format_sizes(strides),
        )));
    }
    Ok(())
}

impl Layout {
    /// A row-major layout at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: Dims::from_slice(shape),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// A layout from its parts.
    ///
    /// # Errors
    /// When shape and strides differ in length, or the storage extent or the numel overflows
    /// (checked in that order, as torch's `as_strided` does).
    pub fn new(shape: impl Into<Dims>, strides: impl Into<Dims>, offset: usize) -> Result<Layout> {
        let (shape, strides) = (shape.into(), strides.into());
        if shape.len() != strides.len() {
            return Err(Error::internal(format!(
                "a layout needs one stride per dim, got shape {} and strides {}",
                format_shape(&shape),
                format_sizes(&strides)
            )));
        }
        let signed_strides: SignedDims = strides.iter().map(|&s| s as i64).collect();
        compute_storage_nbytes(&signed_sizes(&shape), &signed_strides, 1, offset as i64)?;
        numel_of(&shape)?;
        Ok(Layout {
            shape,
            strides,
            offset,
        })
    }

    /// A layout at offset 0 when it has one stride per dim and every element lies among the
    /// first `len` of a storage: [`Layout::new`]'s checks and the storage's in one pass, for
    /// a new tensor's storage of `len` elements (sized by the caller, so nothing overflows).
    pub(crate) fn fitting(shape: &[usize], strides: &[usize], len: usize) -> Option<Layout> {
        let layout = Layout {
            shape: Dims::from_slice(shape),
            strides: Dims::from_slice(strides),
            offset: 0,
        };
        (shape.len() == strides.len() && layout.required_storage_len()? <= len).then_some(layout)
    }

    /// The sizes.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The storage offset, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The number of dims.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements (checked at construction, so it cannot overflow).
    pub fn numel(&self) -> usize {
        self.shape.iter().fold(1usize, |n, &s| n.wrapping_mul(s))
    }

    /// How long a storage must be to hold every element: one past the furthest element,
    /// or 0 for an empty view. `None` when that overflows.
    pub fn required_storage_len(&self) -> Option<usize> {
        if self.numel() == 0 {
            return Some(0);
        }
        let mut last = self.offset;
        for (&size, &stride) in self.shape.iter().zip(&self.strides) {
            last = last.checked_add((size - 1).checked_mul(stride)?)?;
        }
        let len = last.checked_add(1)?;
        // torch also multiplies by the item size in bytes and checks that in int64.
        len.checked_mul(8).filter(|b| *b <= i64::MAX as usize)?;
        Some(len)
    }

    /// torch's `is_contiguous()`: row-major, ignoring size-1 dims; an empty view is contiguous.
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected = 1;
        for (&size, &stride) in self.shape.iter().zip(&self.strides).rev() {
            if size != 1 {
                if stride != expected {
                    return false;
                }
                expected = expected.wrapping_mul(size);
            }
        }
        true
    }

    /// torch's `is_contiguous(memory_format=torch.channels_last)`: only 4-d layouts qualify.
    pub fn is_channels_last_contiguous(&self) -> bool {
        if self.ndim() != 4 {
            return false;
        }
        let mut expected = 1;
        for d in [1, 3, 2, 0] {
            if self.shape[d] != 1 {
                if self.strides[d] != expected {
                    return false;
                }
                expected = expected.wrapping_mul(self.shape[d]);
            }
        }
        true
    }

    /// torch's `is_non_overlapping_and_dense()`: contiguous, channels-last contiguous, or some
    /// permutation of the dims is contiguous (so every empty view qualifies).
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.is_contiguous() || self.is_channels_last_contiguous() {
            return true;
        }
        let ndim = self.ndim();
        if ndim == 1 {
            return self.shape[0] < 2 || self.strides[0] == 1;
        }
        let mut perm: Dims = (0..ndim).collect();
        // Sort by stride, with size-0 and size-1 dims last.
        perm.sort_by_key(|&d| (self.shape[d] < 2, self.strides[d]));
        let mut required = 1usize;
        for &d in &perm {
            if self.shape[d] < 2 {
                return true;
            }
            if self.strides[d] != required {
                return false;
            }
            required = required.saturating_mul(self.shape[d]);
        }
        true
    }

    /// The storage position of the element at `index` (one entry per dim).
    pub fn storage_index(&self, index: &[usize]) -> usize {
        self.offset
            + index
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<usize>()
    }
}
