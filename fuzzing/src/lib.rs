//! The fuzzing and differential machinery of the broadcasting conformance suite, laid out as
//! wasmtime's `crates/fuzzing` is: generators of cases ([`generators`]), oracles that check one
//! fuzz input each ([`oracles`], called by the cargo-fuzz targets in `fuzz/`), the
//! differential against libtorch ([`diff`], with Python torch behind it for the calls only Python
//! has: [`fallback`]) and the shrinker of its findings ([`shrink`]).

pub mod diff;
pub mod fallback;
pub mod generators;
pub mod oracles;
pub mod shrink;

/// Items re-exported for the crate's own tests in `fuzzing/tests/it/`, which are compiled
/// apart from the library. Not API: hidden, and left out of the documentation build.
#[doc(hidden)]
#[cfg(not(doc))]
pub mod __internals;
