//! The op catalogue: see [`bcast_case::ops`].

pub use bcast_case::ops::*;
