//! The subcommands of `bcast-dev`, one file each.

pub mod bench;
pub mod discrepancies;
pub mod matrix;
