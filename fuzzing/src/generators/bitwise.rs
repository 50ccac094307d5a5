//! The `bitwise` family: `bitwise_and`/`or`/`xor`, the shifts, `gcd` and `lcm`, mostly on
//! integral and bool tensors (sometimes floating or complex, which torch refuses), with Python
//! numbers, in functional, method, in-place and `out=` forms over the element-wise families'
//! layouts and aliasing.

use super::elementwise::shape_pair;
use super::inplace::target_and_operand_of;
use super::operands::{drawn_dtypes, is_number, python_number, random_dtype, spelling};
use super::out::add_out;
use super::{CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};
use bcast_engine::ops::BitwiseOp;
use bcast_engine::DType;

/// A dtype, four times in five an integral or bool one among the drawn dtypes.
pub fn integral_dtype(u: &mut Unstructured) -> GenResult<DType> {
    let ints: Vec<DType> = drawn_dtypes()
        .into_iter()
        .filter(|d| !d.is_floating() && !d.is_complex())
        .collect();
    if ints.is_empty() || u.ratio(1, 5)? {
        random_dtype(u)
    } else {
        u.choose(&ints).copied()
    }
}

/// A new view of `shape` of an [`integral_dtype`], or with `number_percent` chance a number.
fn operand(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    shape: &[usize],
    number_percent: u8,
) -> GenResult<Arg> {
    if u.int_in_range(0..=99u8)? < number_percent {
        b.tag("number");
        return python_number(u);
    }
    let dtype = integral_dtype(u)?;
    Ok(Arg::Tensor(b.view(u, dtype, shape, true)?))
}

/// The `bitwise` family.
pub fn bitwise_case(u: &mut Unstructured) -> GenResult<Case> {
    let op = *u.choose(&BitwiseOp::ALL)?;
    let mut case = bitwise_op_case(u, op)?;
    if op == BitwiseOp::Lcm {
        super::binary_math::avoid_min_over_minus_one(&mut case);
    }
    Ok(case)
}

/// One case of `op`.
fn bitwise_op_case(u: &mut Unstructured, op: BitwiseOp) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let numbers = if op.takes_numbers() { 20 } else { 2 };
    match u.int_in_range(0..=9)? {
        0..=5 => {
            let (sa, sb) = shape_pair(u)?;
            let x = operand(u, &mut b, &sa, numbers / 2)?;
            let mut y = operand(u, &mut b, &sb, numbers)?;
            if is_number(&x) && is_number(&y) {
                let d = integral_dtype(u)?;
                y = Arg::Tensor(b.view(u, d, &sb, true)?);
            }
            let name = spelling(u, op.name(), &x)?;
            Ok(b.finish(&name, vec![x, y]))
        }
        6 | 7 => {
            b.tag("inplace");
            let number_ok = op.takes_numbers() || u.ratio(1, 10)?;
            let (t, other) = target_and_operand_of(u, &mut b, number_ok, integral_dtype)?;
            Ok(b.finish(
                &format!("Tensor.{}_", op.name()),
                vec![Arg::Tensor(t), other],
            ))
        }
        _ => {
            b.tag("out");
            let (sa, sb) = shape_pair(u)?;
            let d = integral_dtype(u)?;
            let x = Arg::Tensor(b.view(u, d, &sa, true)?);
            let y = operand(u, &mut b, &sb, numbers)?;
            let fn_name = format!("torch.{}", op.name());
            let args = vec![x, y];
            add_out(u, &mut b, &fn_name, &args)?;
            Ok(b.finish(&fn_name, args))
        }
    }
}
