//! Tests of the modules of `engine/src/linalg/`.

mod einsum;
mod kernel;
