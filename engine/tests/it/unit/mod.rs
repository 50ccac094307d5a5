//! Tests of the engine's modules one at a time, each at its module's path under
//! `engine/src/`; where they need crate-private items, they reach them through
//! `bcast_engine::__internals`.

mod half;
mod iter;
mod linalg;
mod loops;
mod ops;
mod reduce;
