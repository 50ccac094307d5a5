//! Tests of the modules of `fuzzing/src/oracles/`.

mod elementwise;
mod inplace;
