//! Shapes and strides as the engine holds them: up to [`INLINE`] dims inline, more on the
//! heap, so that setting up and planning a call on small tensors allocates nothing for them
//! (a tiny `(2, 3) + (3,)` used to spend most of its time in `malloc` and `free`).
//!
//! ```
//! use bcast_engine::{dims::INLINE, Dims};
//! let shape: Dims = Dims::from_slice(&[2, 3]);
//! assert_eq!(&shape[..], &[2, 3]);
//! assert!(!shape.spilled());
//! assert!(Dims::from_slice(&[1; INLINE + 1]).spilled());
//! ```

use smallvec::SmallVec;

/// Dims held without a heap allocation: five, as torch's `DimVector`. Every tensor handle
/// holds two lists and a call moves and clones handles many times, so each inline dim costs
/// every call; with six, tiny calls on 4-d and smaller tensors were 5 to 10% slower.
pub const INLINE: usize = 5;

/// A shape, a list of strides or a dim order.
pub type Dims = SmallVec<[usize; INLINE]>;

/// A shape as torch's signed `int64` sizes.
pub type SignedDims = SmallVec<[i64; INLINE]>;
