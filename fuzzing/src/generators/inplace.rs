//! The `inplace` and `copy` families: `x.op_(...)` and `x.copy_(src)` where the written
//! tensor may be expanded (overlapping itself), smaller than the broadcast shape, of a lower
//! dtype, the other operand itself, or a view sharing its storage (fully, partially, or in a
//! way torch cannot tell). Order-dependent cases are not generated (see [`is_racy`]).

use super::aliasing::{is_racy, shared_views};
use super::elementwise::{
    binary_tolerance, random_alpha, unary_args, unary_tolerance, FIRST_UNARY,
};
use super::operands::{consistent_divisor, consistent_exponent, python_number, random_dtype};
use super::{broadcast_partner, random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};
use bcast_engine::ops::{BinaryOp, CompareOp};
use bcast_engine::DType;

/// A written tensor and the operand combined with it: the same tensor, a view of the same
/// storage, a separate tensor, or a Python number.
pub(super) fn target_and_operand(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    number_ok: bool,
) -> GenResult<(String, Arg)> {
    target_and_operand_of(u, b, number_ok, random_dtype)
}

/// [`target_and_operand`] with the target's dtype (and a separate operand's) drawn by `dtype`.
pub(super) fn target_and_operand_of(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    number_ok: bool,
    dtype: fn(&mut Unstructured) -> GenResult<DType>,
) -> GenResult<(String, Arg)> {
    let random_dtype = dtype;
    let (target_shape, other_shape) = if u.ratio(1, 5)? {
        let other = random_shape(u, ShapeLimits::default())?;
        (broadcast_partner(u, &other, 5)?, other)
    } else {
        let target = random_shape(u, ShapeLimits::default())?;
        let other = broadcast_partner(u, &target, 5)?;
        (target, other)
    };
    let dtype = random_dtype(u)?;
    let expanded = u.ratio(1, 6)?;
    match u.int_in_range(0..=9)? {
        0 | 1 => {
            b.tag("self-input");
            let t = b.view(u, dtype, &target_shape, expanded)?;
            Ok((t.clone(), Arg::Tensor(t)))
        }
        2..=5 => {
            let other_shape = if u.ratio(1, 3)? {
                target_shape.clone()
            } else {
                other_shape
            };
            let (t, o) =
                shared_views(u, b, dtype, (&target_shape, expanded), (&other_shape, true))?;
            if is_racy(b, &t, &o) {
                let fresh = b.view(u, dtype, &other_shape, true)?;
                return Ok((t, Arg::Tensor(fresh)));
            }
            Ok((t, Arg::Tensor(o)))
        }
        9 if number_ok => {
            let t = b.view(u, dtype, &target_shape, expanded)?;
            b.tag("number");
            Ok((t, python_number(u)?))
        }
        _ => {
            let t = b.view(u, dtype, &target_shape, expanded)?;
            let other_dtype = random_dtype(u)?;
            let o = b.view(u, other_dtype, &other_shape, true)?;
            Ok((t, Arg::Tensor(o)))
        }
    }
}

/// The `inplace` family: `x.op_()` for unary ops, `x.op_(y)` for binary arithmetic,
/// comparisons and logical ops.
pub fn inplace_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    b.tag("inplace");
    match u.int_in_range(0..=3)? {
        0 => {
            let op = *u.choose(FIRST_UNARY)?;
            let shape = random_shape(u, ShapeLimits::default())?;
            let mut args = unary_args(u, &mut b, op, &shape)?;
            if !matches!(args[0], Arg::Tensor(_)) {
                let dtype = random_dtype(u)?;
                args = vec![Arg::Tensor(b.view(u, dtype, &shape, true)?)];
                unary_tolerance(&mut b, op, dtype);
            }
            Ok(b.finish(&format!("Tensor.{}_", op.name()), args))
        }
        1 | 2 => {
            let ops: Vec<BinaryOp> = BinaryOp::ALL
                .into_iter()
                .filter(|op| !matches!(op, BinaryOp::Maximum | BinaryOp::Minimum))
                .collect();
            let op = *u.choose(&ops)?;
            let (t, mut other) = target_and_operand(u, &mut b, true)?;
            binary_tolerance(&mut b, op);
            if op == BinaryOp::Pow {
                other = consistent_exponent(other);
            }
            if op == BinaryOp::Remainder {
                other = consistent_divisor(&b, &Arg::Tensor(t.clone()), other);
            }
            if matches!(op, BinaryOp::Add(_) | BinaryOp::Sub(_))
                && let Some(alpha) = random_alpha(u)?
            {
                b.kwarg("alpha", alpha);
            }
            Ok(b.finish(
                &format!("Tensor.{}_", op.name()),
                vec![Arg::Tensor(t), other],
            ))
        }
        _ => {
            let op = *u.choose(&CompareOp::ALL)?;
            let number_ok = !op.is_logical() || u.ratio(1, 10)?;
            let (t, other) = target_and_operand(u, &mut b, number_ok)?;
            Ok(b.finish(
                &format!("Tensor.{}_", op.name()),
                vec![Arg::Tensor(t), other],
            ))
        }
    }
}

/// The `copy` family: `dst.copy_(src)`, broadcasting, any dtype to any dtype.
pub fn copy_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    b.tag("copy");
    let (t, src) = target_and_operand(u, &mut b, true)?;
    Ok(b.finish("Tensor.copy_", vec![Arg::Tensor(t), src]))
}
