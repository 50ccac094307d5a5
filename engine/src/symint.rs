//! The range of torch's `c10::SymInt`, and the errors torch raises for integers outside it.
//!
//! A `SymInt` holds a plain integer only from `-2^62` up; a more negative Python int passed as
//! a size becomes a symbolic "large negative int". ATen's generated kernel wrappers turn a
//! `SymInt[]` argument into plain ints first and refuse such a value, with a message that
//! starts with the wrapper's `file:line` in torch's build tree; C++ code that passes plain
//! int arrays on (`slice` building its `as_strided` call) refuses it while converting them.
//!
//! ```
//! use bcast_engine::Tensor;
//! let x = Tensor::from_vec(vec![1.0f32], &[1, 1]).unwrap();
//! let err = x.expand(&[0, i64::MIN]).unwrap_err();
//! assert!(err.message().ends_with(": SymIntArrayRef expected to contain only concrete integers"));
//! assert!(x.expand(&[0, -(1 << 62)]).is_ok());
//! ```

use crate::{Error, Result};

/// The most negative integer a `SymInt` holds as a plain integer: `-2^62`
/// (`c10::SymInt::min_representable_int()`).
pub const MIN_REPRESENTABLE: i64 = -(1 << 62);

/// Whether `value` fits in a `SymInt` as a plain integer.
pub fn is_representable(value: i64) -> bool {
    value >= MIN_REPRESENTABLE
}

/// An op whose generated wrapper converts `SymInt[]` arguments (`C10_AS_INTARRAYREF_SLOW`),
/// each with the place torch 2.13.0's CPU build reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// `expand` (and `broadcast_to`, which calls it).
    Expand,
    /// `as_strided`: its sizes and strides.
    AsStrided,
    /// `view` (and `reshape` of a contiguous tensor, which calls it).
    View,
    /// `repeat`.
    Repeat,
}

impl Wrapper {
    /// The `file:line` torch's message starts with.
    pub fn site(self) -> &'static str {
        match self {
            Wrapper::Expand => {
                "/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCompositeExplicitAutograd_0.cpp:4963"
            }
            Wrapper::AsStrided => "/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_0.cpp:1754",
            Wrapper::View => "/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_3.cpp:5710",
            Wrapper::Repeat => {
                "/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCompositeExplicitAutograd_0.cpp:9752"
            }
        }
    }
}

/// The check `wrapper` makes on its `SymInt[]` arguments before the op runs (so before any of
/// the op's own checks): every value must be a plain integer.
///
/// # Errors
/// `RuntimeError: <file>:<line>: SymIntArrayRef expected to contain only concrete integers`.
pub fn check_concrete(wrapper: Wrapper, lists: &[&[i64]]) -> Result<()> {
    if lists
        .iter()
        .any(|l| l.iter().any(|&v| !is_representable(v)))
    {
        return Err(Error::runtime(format!(
            "{}: SymIntArrayRef expected to contain only concrete integers",
            wrapper.site()
        )));
    }
    Ok(())
}

/// `c10::fromIntArrayRefSlow`: plain ints that C++ code passes on as `SymInt`s.
///
/// # Errors
/// `RuntimeError: IntArrayRef contains an int that cannot be represented as a SymInt: <v>`
/// for the first value out of range.
pub fn check_int_array(values: &[i64]) -> Result<()> {
    if let Some(v) = values.iter().find(|&&v| !is_representable(v)) {
        return Err(Error::runtime(format!(
            "IntArrayRef contains an int that cannot be represented as a SymInt: {v}"
        )));
    }
    Ok(())
}
