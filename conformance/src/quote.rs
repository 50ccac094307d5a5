//! Quoting backend text in reports: see [`bcast_case::quote`].

pub use bcast_case::quote::*;
