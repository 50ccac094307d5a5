//! Products as torch computes them: the primitives `dot`, `mv`, `mm` and `bmm` with their own
//! checks and messages, `matmul` composed from them exactly as torch composes it (so its errors
//! and result strides are torch's), and `einsum`, which reduces to diagonals, sums, a
//! broadcasting multiply and `bmm`.
//!
//! ```
//! use bcast_engine::{linalg, Tensor};
//! let a = Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap();
//! let b = Tensor::from_vec(vec![1.0f32; 12], &[3, 4]).unwrap();
//! assert_eq!(linalg::matmul(&a, &b).unwrap().shape(), &[2, 4]);
//! let err = linalg::matmul(&a, &a).unwrap_err();
//! assert_eq!(err.message(), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
//! let c = linalg::einsum("ij,jk->ki", &[a, b]).unwrap();
//! assert_eq!((c.shape(), c.strides()), (&[4, 2][..], &[2, 1][..]));
//! ```

mod diagonal;
pub(crate) mod einsum;
pub(crate) mod kernel;
mod matmul;
mod products;

pub use diagonal::{diagonal, movedim};
pub use einsum::{einsum, einsum_sublist_equation};
pub use matmul::matmul;
pub use products::{bmm, dot, mm, mv};
