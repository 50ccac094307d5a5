//! A reference engine for PyTorch's broadcasting semantics.
//!
//! It reproduces what torch 2.13.0 does, to the byte and to the message: shape algebra
//! ([`shape`]), strided views over shared storage ([`Tensor`], [`views`]), element-wise ops
//! ([`ops`]) with torch's type promotion ([`result_type`]), overlap rules ([`overlap`]) and
//! `out=` resizing ([`resize`]) on an iteration plan after TensorIterator (set up in [`iter`],
//! run by [`loops`]), reductions ([`reduce`]) and products ([`linalg`]), and one error type
//! ([`Error`]) carrying torch's Python exception class and exact message. The global settings
//! (threads, loop strategy, allocation limit) are in [`config`]. `engine/README.md` describes
//! the crate as a library.
//!
//! ```
//! use bcast_engine::{shape, Tensor};
//! let x = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
//! let e = x.expand(&[4, 3]).unwrap();
//! assert_eq!(e.strides(), &[0, 1]);
//! assert!(e.shares_storage(&x));
//! assert_eq!(&shape::infer_size(&[3, 1], &[1, 4]).unwrap()[..], &[3, 4]);
//! let sum = bcast_engine::ops::binary(bcast_engine::ops::BinaryOp::Mul, &e, 2.5, None).unwrap();
//! assert_eq!((sum.shape(), sum.dtype()), (&[4, 3][..], bcast_engine::DType::Float32));
//! ```

#![warn(missing_docs)]
// The body of an `unsafe fn` is an unsafe context, as it was before the 2024 edition: each
// function's `# Safety` section states what its callers guarantee, and its unsafe calls rely
// on that.
#![allow(unsafe_op_in_unsafe_fn)]

pub mod alloc;
pub mod autograd;
pub mod complex;
pub mod config;
pub mod dims;
pub mod dtype;
pub mod element;
pub mod error;
pub mod half;
pub mod index_map;
pub mod iter;
pub mod layout;
pub mod linalg;
pub mod loops;
pub mod memory;
pub mod ops;
pub mod overlap;
pub mod reduce;
pub mod resize;
pub mod result_type;
pub mod scalar;
pub mod shape;
pub mod storage;
pub mod symint;
pub mod tensor;
pub mod views;

/// Crate-private items re-exported for the engine's own tests in `engine/tests/it/`, which
/// are compiled apart from the library. Not API: hidden, and left out of the documentation
/// build, where the items stay the crate-private items they are (so their docs may link
/// other private items).
#[doc(hidden)]
#[cfg(not(doc))]
pub mod __internals;

/// The old home of [`loops::copy_into`], which now lives with the other loops in [`loops`].
/// Kept as a re-export so that `bcast_engine::kernels::copy_into` (used by the conformance
/// oracles and the engine's tests) keeps working.
pub mod kernels {
    pub use crate::loops::copy_into;
}

/// The examples in `engine/README.md`, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

pub use dims::Dims;
pub use dtype::{Category, DType};
pub use element::Element;
pub use error::{Error, ErrorKind, Result};
pub use layout::Layout;
pub use scalar::Scalar;
pub use storage::{Buffer, Storage};
pub use tensor::Tensor;
