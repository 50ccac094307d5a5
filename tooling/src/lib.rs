//! Maintainer tooling of the broadcasting conformance suite, behind the `bcast-dev` binary:
//! the benchmark (`bench`), the document claims torch contradicts (`claims`), and the writer
//! of README's generated sections (`readme`). Users of the suite need none of it.

pub mod bench;
pub mod claims;
pub mod cli;
pub mod readme;
