//! Tests of the modules of `engine/src/iter/`.

mod plan;
