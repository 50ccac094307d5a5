//! Tests of the modules of `engine/src/reduce/`.

mod extrema;
mod indexed;
mod plan;
mod walk;
mod wide_row;
