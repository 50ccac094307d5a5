//! View ops: new shapes and strides over the same storage, never a copy (except `reshape` when
//! no view exists, `contiguous`, `clone` and `repeat`, which copy as torch does).
//!
//! ```
//! use bcast_engine::Tensor;
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
//! let t = x.t().unwrap();
//! assert_eq!((t.shape(), t.strides()), (&[3, 2][..], &[1, 3][..]));
//! assert!(t.shares_storage(&x));
//! let r = x.repeat(&[2, 1]).unwrap();
//! assert!(!r.shares_storage(&x));
//! ```

mod as_strided;
mod copy;
mod dims;
mod expand;
mod index;
mod narrow;
mod reshape;

pub use copy::infer_dense_strides;
pub use expand::broadcast_tensors;
pub use index::TensorIndex;
pub use reshape::{compute_view_strides, infer_view_size};
