//! The strides TensorIterator gives an output it allocates or resizes: a fast setup when every
//! operand agrees on a layout, else strides that follow the dim order of the inputs.

use crate::layout::contiguous_strides;
use crate::{alloc, DType, Dims, Layout, Result, Tensor};

/// TensorIterator's fast setups (`compute_fast_setup_type`): the layouts every participating
/// operand shares, when they all have the same shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FastSetup {
    /// Every operand is contiguous (row-major): the output is too.
    Contiguous,
    /// Every operand is channels-last contiguous (4-d): so is the output.
    ChannelsLast,
    /// Every operand is non-overlapping and dense with the same strides: the output takes them.
    Dense(Dims),
}

/// The fast setup for operands that all have one shape (`same_shape`), or `None`.
/// `layouts` are the operands that take part (outputs that will be resized do not), outputs
/// first; the dense case copies the strides of the last one.
///
/// ```
/// # use bcast_engine::{iter::{fast_setup, FastSetup}, Dims, Layout};
/// let t = Layout::new(vec![2, 3], vec![1, 2], 0).unwrap();
/// assert_eq!(fast_setup(true, &[&t, &t]), Some(FastSetup::Dense(Dims::from_slice(&[1, 2]))));
/// let c = Layout::contiguous(&[2, 3]);
/// assert_eq!(fast_setup(true, &[&t, &c]), None);
/// assert_eq!(fast_setup(true, &[&c, &c]), Some(FastSetup::Contiguous));
/// ```
pub fn fast_setup(same_shape: bool, layouts: &[&Layout]) -> Option<FastSetup> {
    if !same_shape {
        return None;
    }
    if layouts.iter().all(|l| l.is_contiguous()) {
        return Some(FastSetup::Contiguous);
    }
    if layouts.iter().all(|l| l.is_channels_last_contiguous()) {
        return Some(FastSetup::ChannelsLast);
    }
    if !layouts.iter().all(|l| l.is_non_overlapping_and_dense()) {
        return None;
    }
    let last = layouts.last()?;
    if layouts.iter().any(|l| l.strides() != last.strides()) {
        return None;
    }
    Some(FastSetup::Dense(Dims::from_slice(last.strides())))
}

/// Channels-last strides of a 4-d shape, as `empty(..., memory_format=torch.channels_last)`
/// makes them (no size clamping: a 0 size gives 0 strides after it). Other ranks get
/// row-major strides.
///
/// ```
/// # use bcast_engine::iter::channels_last_strides;
/// assert_eq!(&channels_last_strides(&[2, 3, 4, 5])[..], &[60, 1, 15, 3]);
/// ```
pub fn channels_last_strides(shape: &[usize]) -> Dims {
    if shape.len() != 4 {
        return contiguous_strides(shape);
    }
    let mut s: Dims = smallvec::smallvec![0; 4];
    s[1] = 1;
    s[3] = shape[1];
    s[2] = s[3].wrapping_mul(shape[3]);
    s[0] = s[2].wrapping_mul(shape[2]);
    s
}

/// How TensorIterator allocates a new output (`set_output_raw_strided`): without strides, as
/// torch's `empty` in a memory format, or with explicit strides (`empty_strided`). The strides
/// are the same either way; which call it is decides how a storage overflow is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputAlloc {
    /// `empty` in a memory format (row-major, or channels-last for that fast setup), whose
    /// strides these are.
    Format(Dims),
    /// `empty_strided` with these strides (torch's `int64` strides bit for bit).
    Strided(Dims),
}

impl OutputAlloc {
    /// The output's strides.
    pub fn strides(&self) -> &[usize] {
        match self {
            OutputAlloc::Format(s) | OutputAlloc::Strided(s) => s,
        }
    }

    /// A new zero-filled output of `shape` and `dtype`, allocated the way this says.
    ///
    /// # Errors
    /// A storage size that overflows (with torch's message for the call), or more memory than
    /// the engine allocates.
    pub fn allocate(&self, shape: &[usize], dtype: DType) -> Result<Tensor> {
        match self {
            OutputAlloc::Format(s) => alloc::empty_in_format(shape, s, dtype),
            OutputAlloc::Strided(s) => alloc::empty_strided(shape, s, dtype),
        }
    }
}

/// The allocation of a new output in the iteration's dim order (`allocate_or_resize_outputs`):
/// plain row-major (no strides) when `perm` is exactly the reversed dims (or is not a
/// permutation of the dims at all), else strides dense along `perm`. torch computes those in
/// bytes of `itemsize` with wrapping `int64` arithmetic and divides by the item size, so a
/// stride that overflows comes out as torch prints it (possibly negative).
///
/// ```
/// # use bcast_engine::{iter::{perm_alloc, OutputAlloc}, Dims};
/// assert_eq!(perm_alloc(&[3, 2], &[0, 1], 4), OutputAlloc::Strided(Dims::from_slice(&[1, 3])));
/// assert_eq!(perm_alloc(&[3, 2], &[1, 0], 4), OutputAlloc::Format(Dims::from_slice(&[2, 1])));
/// let wrapped = perm_alloc(&[2, 1 << 60, 2], &[0, 1, 2], 4);
/// assert_eq!(wrapped.strides()[2] as i64, -(1 << 61));
/// ```
pub fn perm_alloc(shape: &[usize], perm: &[usize], itemsize: usize) -> OutputAlloc {
    let ndim = shape.len();
    let mut seen: smallvec::SmallVec<[bool; crate::dims::INLINE]> =
        smallvec::smallvec![false; ndim];
    let is_permutation = perm.len() == ndim
        && perm
            .iter()
            .all(|&d| d < ndim && !std::mem::replace(&mut seen[d], true));
    if !is_permutation || perm.iter().enumerate().all(|(j, &d)| d + j + 1 == ndim) {
        return OutputAlloc::Format(contiguous_strides(shape));
    }
    let itemsize = itemsize.max(1) as i64;
    let mut strides: Dims = smallvec::smallvec![0; ndim];
    let mut next_bytes = itemsize;
    for &d in perm {
        strides[d] = (next_bytes / itemsize) as usize;
        next_bytes = next_bytes.wrapping_mul(shape[d] as i64);
    }
    OutputAlloc::Strided(strides)
}

/// The strides of a new output in the iteration's dim order, counted in elements: those of
/// [`perm_alloc`] for 1-byte items.
///
/// ```
/// # use bcast_engine::iter::strides_from_perm;
/// assert_eq!(&strides_from_perm(&[3, 2], &[0, 1])[..], &[1, 3]);
/// assert_eq!(&strides_from_perm(&[2, 0, 3], &[2, 1, 0])[..], &[3, 3, 1]);
/// ```
pub fn strides_from_perm(shape: &[usize], perm: &[usize]) -> Dims {
    Dims::from_slice(perm_alloc(shape, perm, 1).strides())
}

/// How an output of an iteration of `shape` with items of `itemsize` bytes is allocated: the
/// fast setup's way (`empty` in the row-major or channels-last format, or `empty_strided`
/// with the dense operands' strides), else [`perm_alloc`].
pub fn output_alloc(
    shape: &[usize],
    fast: Option<&FastSetup>,
    perm: &[usize],
    itemsize: usize,
) -> OutputAlloc {
    match fast {
        Some(FastSetup::Contiguous) => OutputAlloc::Format(contiguous_strides(shape)),
        Some(FastSetup::ChannelsLast) => OutputAlloc::Format(channels_last_strides(shape)),
        Some(FastSetup::Dense(strides)) => OutputAlloc::Strided(strides.clone()),
        None => perm_alloc(shape, perm, itemsize),
    }
}

/// The strides of an output allocated for an iteration of `shape`: the fast setup's, else
/// [`strides_from_perm`].
pub fn output_strides(shape: &[usize], fast: Option<&FastSetup>, perm: &[usize]) -> Dims {
    Dims::from_slice(output_alloc(shape, fast, perm, 1).strides())
}
