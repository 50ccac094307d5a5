//! Tests of the modules of `engine/src/ops/`.

mod expf;
#[cfg(target_arch = "x86_64")]
mod powf;
mod real;
mod unary;
