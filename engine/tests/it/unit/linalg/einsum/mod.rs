//! Tests of the modules of `engine/src/linalg/einsum/`.

mod parse;
