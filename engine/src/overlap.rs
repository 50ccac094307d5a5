//! Memory overlap checks, as torch's `MemoryOverlap.cpp` makes them before an op writes: a
//! written-to tensor may not have two elements at one address, and an input may not share
//! only some of its addresses with it.
//!
//! ```
//! use bcast_engine::overlap::{get_overlap_status, has_internal_overlap, MemOverlap, MemOverlapStatus};
//! use bcast_engine::Tensor;
//! let x = Tensor::from_vec((0..4i64).collect(), &[4]).unwrap();
//! assert_eq!(has_internal_overlap(&x.expand(&[2, 4]).unwrap()), MemOverlap::Yes);
//! let (head, tail) = (x.narrow(0, 0, 3).unwrap(), x.narrow(0, 1, 3).unwrap());
//! assert_eq!(get_overlap_status(&head, &tail), MemOverlapStatus::Partial);
//! ```

use crate::index_map::{broadcast_storage_index, unravel};
use crate::shape::is_expandable_to;
use crate::{Error, Result, Tensor};

/// Whether a tensor has two elements at one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemOverlap {
    /// Non-overlapping and dense: no two elements share an address.
    No,
    /// A dim of size above 1 has stride 0.
    Yes,
    /// Neither could be shown cheaply.
    TooHard,
}

/// How the addresses of two tensors relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemOverlapStatus {
    /// The same tensor, or the same addresses with the same strides.
    Full,
    /// Some addresses shared.
    Partial,
    /// One of them is not non-overlapping-and-dense; torch does not look further.
    TooHard,
    /// No address shared.
    No,
}

/// torch's `has_internal_overlap`.
pub fn has_internal_overlap(t: &Tensor) -> MemOverlap {
    let layout = t.layout();
    if layout.is_non_overlapping_and_dense() {
        return MemOverlap::No;
    }
    if layout
        .shape()
        .iter()
        .zip(layout.strides())
        .any(|(&size, &stride)| size > 1 && stride == 0)
    {
        return MemOverlap::Yes;
    }
    MemOverlap::TooHard
}

/// torch's `get_overlap_status`: `Full` for the same object; otherwise only two
/// non-overlapping-and-dense views of one storage are compared, by their address ranges.
pub fn get_overlap_status(a: &Tensor, b: &Tensor) -> MemOverlapStatus {
    if a.is_same(b) {
        return MemOverlapStatus::Full;
    }
    if a.numel() == 0 || b.numel() == 0 {
        return MemOverlapStatus::No;
    }
    if !a.layout().is_non_overlapping_and_dense() || !b.layout().is_non_overlapping_and_dense() {
        return MemOverlapStatus::TooHard;
    }
    if a.shares_storage(b) {
        // One storage holds one dtype, so element offsets compare like byte addresses.
        let (a_begin, b_begin) = (a.offset(), b.offset());
        let (a_end, b_end) = (a_begin + a.numel(), b_begin + b.numel());
        if a_begin == b_begin && a_end == b_end {
            return if a.strides() == b.strides() {
                MemOverlapStatus::Full
            } else {
                MemOverlapStatus::Partial
            };
        }
        if a_begin < b_end && b_begin < a_end {
            return MemOverlapStatus::Partial;
        }
    }
    MemOverlapStatus::No
}

/// torch's `assert_no_internal_overlap`: fails only on a certain overlap.
pub fn assert_no_internal_overlap(t: &Tensor) -> Result<()> {
    if has_internal_overlap(t) == MemOverlap::Yes {
        return Err(Error::runtime(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}

/// torch's `assert_no_partial_overlap`: fails only on a certain partial overlap.
pub fn assert_no_partial_overlap(written: &Tensor, input: &Tensor) -> Result<()> {
    if get_overlap_status(written, input) == MemOverlapStatus::Partial {
        return Err(Error::runtime(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}

/// Whether an element-wise op writing `written` while reading `input` (at the same broadcast
/// positions) would give values that depend on its loop order, though torch lets it run:
/// their overlap is [`MemOverlapStatus::TooHard`] for torch's check, yet `written` repeats an
/// address, or some address of `input` is read at a position other than the one where
/// `written` writes it. Calls torch refuses (certain overlap, a shape `input` cannot broadcast
/// to) are not order-dependent. For an `out=` that the op resizes, ask about the resized
/// tensor: resizing happens after torch's checks.
///
/// ```
/// use bcast_engine::overlap::order_dependent;
/// use bcast_engine::Tensor;
/// let x = Tensor::from_vec((0..6i64).collect(), &[6]).unwrap();
/// let evens = x.slice(0, Some(0), None, 2).unwrap(); // [0, 2, 4]
/// let odds_and_more = x.slice(0, Some(2), None, 1).unwrap().narrow(0, 0, 3).unwrap(); // [2, 3, 4]
/// assert!(order_dependent(&evens, &odds_and_more));
/// assert!(!order_dependent(&evens, &x.slice(0, Some(0), None, 2).unwrap()));
/// ```
pub fn order_dependent(written: &Tensor, input: &Tensor) -> bool {
    if written.is_same(input)
        || !written.shares_storage(input)
        || has_internal_overlap(written) == MemOverlap::Yes
        || get_overlap_status(written, input) != MemOverlapStatus::TooHard
    {
        return false;
    }
    let shape = written.shape();
    // (address, position) of every element written, sorted by address: a repeated address is
    // a pair of neighbours, and an input's address is found by a binary search.
    let mut writer_of: Vec<(usize, usize)> = (0..written.numel())
        .map(|p| (written.layout().storage_index(&unravel(p, shape)), p))
        .collect();
    writer_of.sort_unstable();
    if writer_of.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return true;
    }
    if !is_expandable_to(input.shape(), shape) {
        return false;
    }
    (0..written.numel()).any(|p| {
        let address = broadcast_storage_index(input.layout(), &unravel(p, shape));
        writer_of
            .binary_search_by_key(&address, |&(a, _)| a)
            .is_ok_and(|i| writer_of[i].1 != p)
    })
}
