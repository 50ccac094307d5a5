//! Tests of the library's modules one at a time, each at its module's path under
//! `fuzzing/src/`; where they need crate-private items, they reach them through
//! `bcast_fuzzing::__internals`.

mod diff;
mod fallback;
mod oracles;
mod shrink;
