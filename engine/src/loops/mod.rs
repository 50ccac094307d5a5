//! The loops that execute an element-wise call, after PyTorch's `native/cpu/Loops.h` and its
//! parallel helpers: the typed loops ops call ([`map_unary`], [`map_binary`], [`map_ternary`],
//! and the converting copy [`copy_into`]), the inner row kernels, the walk orders, the helper
//! threads and non-temporal stores. What they walk, the plan, is set up in [`crate::iter`].
//!
//! The loops run on the plan by default; [`crate::config::with_strategy`] swaps in the naive index
//! map, the oracle the plan is tested against. On the plan, rows of contiguous and stride-0
//! operands run as vectorised slice loops (compiled for AVX2 too, chosen at run time); an input of
//! another dtype is converted a chunk of a row at a time as the loop loads it (the `cast` module).
//! When every output element is computed independently of the others (the output never repeats a
//! position and no input reads what it writes, bar an in-place input reading each element it then
//! writes), the walk may change order: a short inner dim beside a repeating input becomes long
//! rows, conflicting layouts go tile by tile, loops of at least 2^15 elements per thread split over
//! [`crate::config::num_threads`] threads, and large outputs may be written with non-temporal
//! stores (off unless `stream::STREAM_MIN_BYTES` is set). Every path yields the bits one thread in
//! plan order yields.
//!
//! This module also holds what was the `kernels` module (`copy_into`);
//! `bcast_engine::kernels::copy_into` still resolves to it.

mod access;
pub(crate) mod cast;
mod copy;
pub(crate) mod exec;
pub(crate) mod kernel;
mod map;
pub(crate) mod pool;
pub(crate) mod repeat;
pub(crate) mod stream;
pub(crate) mod tile;

pub use copy::copy_into;
pub use map::{map_binary, map_ternary, map_unary};
pub(crate) use map::{map_binary_guarded, map_binary_run, map_binary_widened, map_unary_run};

/// An element function over a contiguous run, explicitly vectorised: `run(x, o, len)` writes
/// `o[i] = f(x[i])` for every `i < len`, the same values as the element function `f` it
/// stands for, reading each input element before writing the output element at the same
/// position.
///
/// # Safety
/// `x` and `o` point to `len` readable (writable) elements, and `x` is `o` itself or shares
/// no byte with it. The processor has the instruction sets `run` was compiled for (whoever
/// hands out a run checks that first).
pub type UnaryRun<A, R> = unsafe fn(x: *const A, o: *mut R, len: usize);

/// As [`UnaryRun`] for two inputs: `run(x, y, o, len)` writes `o[i] = f(x[i], y[i])`.
///
/// # Safety
/// As for [`UnaryRun`], for each input.
pub type BinaryRun<A, B, R> = unsafe fn(x: *const A, y: *const B, o: *mut R, len: usize);
