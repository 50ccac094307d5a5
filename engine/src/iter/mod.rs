//! The iteration plan, after PyTorch's TensorIterator: the broadcast shape
//! ([`compute_shape`]), each operand's strides over it ([`broadcast_strides`]), the dim order
//! ([`reorder_dims`]), the layout of an output it allocates ([`fast_setup`],
//! [`output_strides`]), coalesced dims ([`coalesce`]), and the loops ([`Plan`],
//! [`map_binary`], ...). [`IterSetup`] runs these steps in torch's order, checks included.
//!
//! The loops run on the plan by default; [`with_strategy`] swaps in the naive index map, the
//! oracle the plan is tested against. On the plan, rows of contiguous and stride-0 operands
//! run as vectorised slice loops (compiled for AVX2 too, chosen at run time). When every
//! output element is computed independently of the others (the output never repeats a
//! position and no input reads what it writes, bar an in-place input reading each element
//! it then writes), the walk may change order: a short inner dim beside a repeating input
//! becomes long rows, conflicting layouts go tile by tile, loops of more than 2^18 elements
//! split over [`num_threads`] threads, and outputs of 32 MiB or more are written with
//! non-temporal stores. Every path yields the bits one thread in plan order yields.

mod access;
mod broadcast;
mod coalesce;
mod exec;
mod kernel;
mod loops;
mod output_layout;
mod perm;
mod plan;
mod pool;
mod reorder;
mod repeat;
mod setup;
mod strategy;
mod stream;
mod threads;
mod tile;

pub use broadcast::{broadcast_strides, compute_shape};
pub use coalesce::coalesce;
pub use loops::{map_binary, map_ternary, map_unary};
pub use output_layout::{
    channels_last_strides, fast_setup, output_alloc, output_strides, perm_alloc, strides_from_perm,
    FastSetup, OutputAlloc,
};
pub use perm::sort_dims;
pub use plan::{Block, Plan};
pub use reorder::reorder_dims;
pub use setup::{Iter, IterConfig, IterInput, IterSetup};
pub use strategy::{strategy, with_strategy, Strategy};
pub use threads::{num_threads, set_num_threads};
