//! Tests of the library's modules one at a time, each at its module's path under
//! `tooling/src/`.

mod bench;
mod claims;
