//! Tests of the modules of `engine/src/loops/`.

mod access;
mod cast;
mod exec;
mod kernel;
mod pool;
mod repeat;
mod stream;
mod tile;
