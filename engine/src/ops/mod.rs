//! Element-wise ops, each in functional form, with `out=`, and in place, with torch's
//! type promotion, broadcasting, overlap rules and messages. An op defines its per-element
//! function; the iteration plan ([`crate::iter`]) sets up the call and drives the loops.
//!
//! ```
//! use bcast_engine::ops::{binary_, BinaryOp};
//! use bcast_engine::Tensor;
//! let x = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
//! let err = binary_(BinaryOp::Add(1.into()), &x, 0.5).unwrap_err();
//! assert_eq!(err.message(), "result type Float can't be cast to the desired output type Long");
//! ```

mod addc;
mod binary;
mod binary_math;
pub mod bitwise;
mod clamp;
mod compare;
pub mod complex_half;
mod complex_math;
mod copy;
pub mod expf;
pub mod integer;
pub mod isclose;
mod ldexp;
mod lerp;
mod masked_fill;
mod operand;
mod pow;
#[cfg(target_arch = "x86_64")]
pub mod powf;
pub mod real;
pub(crate) mod unary;
mod where_op;

pub use addc::{addc, addc_, AddcOp};
pub use binary::{binary, binary_, BinaryOp};
pub use binary_math::{div_floor_int, ldexp_f64};
pub use bitwise::{bitwise, bitwise_, BitwiseOp};
pub use clamp::{clamp_numbers, clamp_numbers_, clamp_tensors, clamp_tensors_};
pub use compare::{compare, compare_, CompareOp};
pub use copy::copy_;
pub use isclose::{equal, isclose};
pub use lerp::{lerp, lerp_};
pub use masked_fill::{masked_fill, masked_fill_};
pub use operand::Operand;
pub use pow::{float_power, pow_number_tensor, pow_tensor_number};
pub use unary::{round_decimals, round_decimals_, unary, unary_, UnaryOp};
pub use where_op::r#where;

use crate::{DType, Error};

/// [`not_implemented`] for the other modules of the crate.
pub(crate) fn not_implemented_error(kernel: &str, dtype: DType) -> Error {
    not_implemented(kernel, dtype)
}

/// torch's error for a kernel without an implementation for a dtype:
/// `"abs_cpu" not implemented for 'Bool'`.
pub(crate) fn not_implemented(kernel: &str, dtype: DType) -> Error {
    Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}
