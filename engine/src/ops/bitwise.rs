//! The integer ops of two operands: `bitwise_and`, `bitwise_or`, `bitwise_xor`,
//! `bitwise_left_shift`, `bitwise_right_shift`, `gcd` and `lcm`, with torch's type promotion
//! (a Python number is cast to the result dtype with C++'s wrap-around: `uint8 | 256` is
//! `uint8 | 0`), its shift semantics and its dtype errors.
//!
//! ```
//! use bcast_engine::ops::{bitwise, BitwiseOp};
//! use bcast_engine::{DType, Tensor};
//! let a = Tensor::from_vec(vec![1i8, -1, 1], &[3]).unwrap();
//! let s = Tensor::from_vec(vec![7i8, 100, -1], &[3]).unwrap();
//! let r = bitwise(BitwiseOp::LeftShift, &a, &s, None).unwrap();
//! assert_eq!(r.to_vec::<i8>().unwrap(), vec![-128, 0, 0]);
//! let f = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
//! let e = bitwise(BitwiseOp::And, &f, 1i64, None).unwrap_err();
//! assert_eq!(e.message(), "\"bitwise_and_cpu\" not implemented for 'Float'");
//! ```

use super::integer::Int;
use super::{not_implemented, Operand};
use crate::iter::{Iter, IterConfig, IterSetup};
use crate::loops::map_binary;
use crate::{DType, Element, Result, Tensor};

/// An integer op of two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitwiseOp {
    /// `torch.bitwise_and` (`&`).
    And,
    /// `torch.bitwise_or` (`|`).
    Or,
    /// `torch.bitwise_xor` (`^`).
    Xor,
    /// `torch.bitwise_left_shift` (`<<`): 0 for a shift below 0 or at least the bit width.
    LeftShift,
    /// `torch.bitwise_right_shift` (`>>`): arithmetic; a shift below 0 or at least the bit
    /// width (less the sign bit) shifts by the bit width less the sign bit.
    RightShift,
    /// `torch.gcd`: non-negative, except where `abs` wraps (`gcd(-128, 0)` is `-128` in `int8`).
    Gcd,
    /// `torch.lcm`: `abs(a / gcd * b)` computed in C++'s promoted `int` (`int64` for `int64`),
    /// then cast back.
    Lcm,
}

impl BitwiseOp {
    /// Every op.
    pub const ALL: [BitwiseOp; 7] = [
        BitwiseOp::And,
        BitwiseOp::Or,
        BitwiseOp::Xor,
        BitwiseOp::LeftShift,
        BitwiseOp::RightShift,
        BitwiseOp::Gcd,
        BitwiseOp::Lcm,
    ];

    /// torch's name, e.g. `"bitwise_left_shift"`.
    pub fn name(self) -> &'static str {
        match self {
            BitwiseOp::And => "bitwise_and",
            BitwiseOp::Or => "bitwise_or",
            BitwiseOp::Xor => "bitwise_xor",
            BitwiseOp::LeftShift => "bitwise_left_shift",
            BitwiseOp::RightShift => "bitwise_right_shift",
            BitwiseOp::Gcd => "gcd",
            BitwiseOp::Lcm => "lcm",
        }
    }

    /// Parses [`BitwiseOp::name`].
    pub fn from_name(name: &str) -> Option<BitwiseOp> {
        BitwiseOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The name of torch's CPU kernel, which its not-implemented errors print.
    pub fn kernel(self) -> &'static str {
        match self {
            BitwiseOp::And => "bitwise_and_cpu",
            BitwiseOp::Or => "bitwise_or_cpu",
            BitwiseOp::Xor => "bitwise_xor_cpu",
            BitwiseOp::LeftShift => "lshift_cpu",
            BitwiseOp::RightShift => "rshift_cpu",
            BitwiseOp::Gcd => "gcd_cpu",
            BitwiseOp::Lcm => "lcm_cpu",
        }
    }

    /// Whether Python takes a number for either operand (`gcd` and `lcm` take tensors only).
    pub fn takes_numbers(self) -> bool {
        !matches!(self, BitwiseOp::Gcd | BitwiseOp::Lcm)
    }
}

/// `torch.NAME(a, b, out=out)` (or `a.NAME(b)`). Returns the new tensor, or `out`.
///
/// # Errors
/// torch's, in its order: overlap of `out`; shapes that do not broadcast; the shape of `out`
/// where it cannot be resized; a result dtype `out` cannot hold; a result dtype the op has no
/// kernel for (`"lshift_cpu" not implemented for 'Bool'`).
pub fn bitwise(
    op: BitwiseOp,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    bitwise_operands(op, a.into(), b.into(), out)
}

/// [`bitwise`] with its operands converted (compiled once, not once per caller's types).
fn bitwise_operands(op: BitwiseOp, a: Operand, b: Operand, out: Option<&Tensor>) -> Result<Tensor> {
    let mut setup = IterSetup::new(
        IterConfig::default(),
        out,
        vec![a.into_input(), b.into_input()],
    )?;
    let common = setup.result_type();
    setup.check_safe_cast(common)?;
    setup.compute_output_in(common)?;
    setup.promote_inputs(common)?;
    let iter = setup.finish(common)?;
    run(op, &iter, common)?;
    iter.into_result()
}

/// `a.NAME_(b)`: the op written into `a`.
///
/// # Errors
/// As for [`bitwise`], with `a` as the output.
pub fn bitwise_(op: BitwiseOp, a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    bitwise_operands(op, a.into(), b.into(), Some(a))
}

fn run(op: BitwiseOp, iter: &Iter, dtype: DType) -> Result<()> {
    let (out, a, b) = (
        iter.output(),
        iter.inputs()[0].as_tensor(),
        iter.inputs()[1].as_tensor(),
    );
    match dtype {
        DType::Bool => match op {
            BitwiseOp::And => map_binary(out, a, b, |x: bool, y: bool| x & y),
            BitwiseOp::Or => map_binary(out, a, b, |x: bool, y: bool| x | y),
            BitwiseOp::Xor => map_binary(out, a, b, |x: bool, y: bool| x ^ y),
            _ => Err(not_implemented(op.kernel(), dtype)),
        },
        DType::UInt8 => map_binary(out, a, b, move |x: u8, y| apply(op, x, y)),
        DType::Int8 => map_binary(out, a, b, move |x: i8, y| apply(op, x, y)),
        DType::Int16 => map_binary(out, a, b, move |x: i16, y| apply(op, x, y)),
        DType::Int32 => map_binary(out, a, b, move |x: i32, y| apply(op, x, y)),
        DType::Int64 => map_binary(out, a, b, move |x: i64, y| apply(op, x, y)),
        _ => Err(not_implemented(op.kernel(), dtype)),
    }
}

/// One element of `op` on an integer type.
#[inline]
fn apply<T: Int>(op: BitwiseOp, a: T, b: T) -> T {
    let (x, y) = (a.cast::<i64>(), b.cast::<i64>());
    match op {
        BitwiseOp::And => T::from_i64(x & y),
        BitwiseOp::Or => T::from_i64(x | y),
        BitwiseOp::Xor => T::from_i64(x ^ y),
        BitwiseOp::LeftShift => T::from_i64(left_shift(x, y, bits::<T>())),
        BitwiseOp::RightShift => T::from_i64(right_shift(x, y, bits::<T>(), is_signed::<T>())),
        BitwiseOp::Gcd => gcd(a, b),
        BitwiseOp::Lcm => lcm(a, b),
    }
}

fn bits<T: Element>() -> i64 {
    (T::DTYPE.itemsize() * 8) as i64
}

fn is_signed<T: Int>() -> bool {
    T::ONE.wneg().is_negative()
}

/// torch's `lshift`: `0` when `shift` is negative or at least `bits`, else the low bits of
/// `a << shift`.
///
/// ```
/// # use bcast_engine::ops::bitwise::left_shift;
/// assert_eq!((left_shift(1, 63, 64), left_shift(1, 64, 64), left_shift(3, -1, 32)), (i64::MIN, 0, 0));
/// ```
pub fn left_shift(a: i64, shift: i64, bits: i64) -> i64 {
    if !(0..bits).contains(&shift) {
        0
    } else {
        ((a as u64) << shift) as i64
    }
}

/// torch's `rshift`: an arithmetic shift (`a` sign-extended, or zero-extended when unsigned);
/// a shift below 0 or at least `bits` less the sign bit shifts by that many.
///
/// ```
/// # use bcast_engine::ops::bitwise::right_shift;
/// assert_eq!((right_shift(-128, 100, 8, true), right_shift(255, 9, 8, false)), (-1, 0));
/// ```
pub fn right_shift(a: i64, shift: i64, bits: i64, signed: bool) -> i64 {
    let max_shift = bits - i64::from(signed);
    if !(0..max_shift).contains(&shift) {
        // `a >> max_shift` in C++'s promoted int: 0 or -1 for signed, 0 for unsigned.
        if max_shift >= 64 {
            0
        } else {
            a >> max_shift
        }
    } else {
        a >> shift
    }
}

/// torch's `calc_gcd`: Euclid on `abs` of each (which wraps at the type's minimum).
fn gcd<T: Int>(a: T, b: T) -> T {
    let (mut a, mut b) = (a.wabs(), b.wabs());
    while a != T::ZERO {
        let c = a;
        a = b.wrem(a);
        b = c;
    }
    b
}

/// torch's `calc_lcm`: `abs(a / g * b)` in C++'s promoted arithmetic (`int` for the types
/// narrower than 64 bits, which is 32-bit and wraps only for `int32`), cast back.
fn lcm<T: Int>(a: T, b: T) -> T {
    let g = gcd(a, b);
    if g == T::ZERO {
        return T::ZERO;
    }
    let (a, b, g) = (a.cast::<i64>(), b.cast::<i64>(), g.cast::<i64>());
    if T::DTYPE == DType::Int64 {
        T::from_i64(a.wrapping_div(g).wrapping_mul(b).wrapping_abs())
    } else {
        let (a, b, g) = (a as i32, b as i32, g as i32);
        T::from_i64(i64::from(a.wrapping_div(g).wrapping_mul(b).wrapping_abs()))
    }
}
