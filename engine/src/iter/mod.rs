//! The iteration plan, after PyTorch's TensorIterator: compute the broadcast shape, order the
//! dims by stride, coalesce, then run inner loops.

mod perm;

pub use perm::sort_dims;
