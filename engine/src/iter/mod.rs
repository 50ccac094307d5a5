//! The setup of an element-wise call, after PyTorch's TensorIterator (`TensorIterator.cpp`):
//! the broadcast shape ([`compute_shape`]), each operand's strides over it
//! ([`broadcast_strides`]), the dim order ([`reorder_dims`]), the layout of an output it
//! allocates ([`fast_setup`], [`output_strides`]), coalesced dims ([`coalesce`]), and the plan
//! the loops walk ([`Plan`]). [`IterSetup`] runs these steps in torch's order, checks included.
//!
//! The loops that execute a plan, their threads and their kernels live apart, in
//! [`crate::loops`] (as torch keeps them in `native/cpu/Loops.h` and its parallel helpers);
//! the settings they read (threads, strategy) in [`crate::config`].

mod broadcast;
mod coalesce;
mod output_layout;
mod perm;
mod plan;
mod reorder;
mod setup;

pub use broadcast::{broadcast_strides, compute_shape};
pub use coalesce::coalesce;
pub use output_layout::{
    channels_last_strides, fast_setup, output_alloc, output_strides, perm_alloc, strides_from_perm,
    FastSetup, OutputAlloc,
};
pub use perm::sort_dims;
pub(crate) use plan::Block;
pub use plan::Plan;
pub use reorder::reorder_dims;
pub(crate) use setup::cast_refused;
pub use setup::{Iter, IterConfig, IterInput, IterSetup};

/// The loops' settings, re-exported from their home [`crate::config`] so that the old paths
/// `bcast_engine::iter::{num_threads, set_num_threads, strategy, with_strategy, Strategy}`
/// (used by the conformance oracles, the benchmark and the engine's tests) keep working.
pub use crate::config::{num_threads, set_num_threads, strategy, with_strategy, Strategy};
