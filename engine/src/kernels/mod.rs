//! Kernels: the loops that read and write elements.

mod copy;

pub use copy::copy_into;
