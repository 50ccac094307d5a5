//! The `out` family: `torch.op(..., out=o)` where `o` has the result's shape and dtype, another
//! dtype (cast or refused), another shape (resized, its storage grown if need be), an
//! expanded layout, a transposed layout (kept), or is one of the inputs.

use super::aliasing::is_racy;
use super::elementwise::{
    binary_args, compare_args, random_alpha, shape_pair, unary_args, where_args, FIRST_UNARY,
};
use super::operands::{consistent_divisor, random_dtype};
use super::{random_shape, random_view, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{Arg, Case, OkOutcome, Outcome, ResultValue};
use bcast_engine::ops::{BinaryOp, CompareOp};
use bcast_engine::DType;

/// The functional call an `out=` is added to: its name and arguments.
fn functional(u: &mut Unstructured, b: &mut CaseBuilder) -> GenResult<(String, Vec<Arg>)> {
    Ok(match u.int_in_range(0..=5)? {
        0 => {
            let op = *u.choose(FIRST_UNARY)?;
            let shape = random_shape(u, ShapeLimits::default())?;
            (op.name().to_string(), unary_args(u, b, op, &shape)?)
        }
        1 | 2 => {
            let op = *u.choose(&BinaryOp::ALL)?;
            let (sa, sb) = shape_pair(u)?;
            if matches!(op, BinaryOp::Add(_) | BinaryOp::Sub(_))
                && let Some(alpha) = random_alpha(u)?
            {
                b.kwarg("alpha", alpha);
            }
            (op.name().to_string(), binary_args(u, b, op, (&sa, &sb))?)
        }
        3 | 4 => {
            let op = *u.choose(&CompareOp::ALL)?;
            let (sa, sb) = shape_pair(u)?;
            (op.name().to_string(), compare_args(u, b, op, (&sa, &sb))?)
        }
        _ => ("where".to_string(), where_args(u, b, 4)?),
    })
}

/// The shape and dtype of the functional call's result, from the reference engine.
fn result_of(case: &Case) -> Option<(Vec<usize>, DType)> {
    match run_reference(case).ok()? {
        Outcome::Ok(OkOutcome {
            result: ResultValue::Tensor(t),
            ..
        }) => Some((
            t.shape.iter().map(|&s| s as usize).collect(),
            DType::from_name(&t.dtype)?,
        )),
        _ => None,
    }
}

/// The `out` family.
pub fn out_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    b.tag("out");
    let (name, mut args) = functional(u, &mut b)?;
    // remainder(number, tensor) has no out= overload in torch's Python binding.
    if name == "remainder" && !matches!(args[0], Arg::Tensor(_)) {
        args.swap(0, 1);
        if !matches!(args[0], Arg::Tensor(_)) {
            let dtype = random_dtype(u)?;
            args[0] = Arg::Tensor(b.view(u, dtype, &[], true)?);
        }
        args[1] = consistent_divisor(&b, &args[0], args[1].clone());
    }
    let fn_name = format!("torch.{name}");
    add_out(u, &mut b, &fn_name, &args)?;
    Ok(b.finish(&fn_name, args))
}

/// Finishes the call `fn_name(*args)` with an `out=` ([`add_out`]), tagged `out`.
pub(super) fn finish_with_out(
    u: &mut Unstructured,
    mut b: CaseBuilder,
    fn_name: &str,
    args: Vec<Arg>,
) -> GenResult<Case> {
    b.tag("out");
    add_out(u, &mut b, fn_name, &args)?;
    Ok(b.finish(fn_name, args))
}

/// Adds an `out=` to the functional call `fn_name(args)`: of the result's shape and dtype (from
/// the reference engine), another dtype, another shape (resized), an expanded layout, or one
/// of the inputs; never one whose writes would race with an input's reads.
pub(super) fn add_out(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    fn_name: &str,
    args: &[Arg],
) -> GenResult<()> {
    let probe = b.clone().finish(fn_name, args.to_vec());
    let (shape, dtype) = match result_of(&probe) {
        Some(r) => r,
        None => (random_shape(u, ShapeLimits::default())?, random_dtype(u)?),
    };
    let dtype = if u.ratio(1, 3)? {
        random_dtype(u)?
    } else {
        dtype
    };
    let out = match u.int_in_range(0..=9)? {
        0..=3 => b.view(u, dtype, &shape, false)?,
        4 | 5 => {
            b.tag("resize");
            let other = random_shape(u, ShapeLimits::default())?;
            let spec = random_view(u, &other, false)?;
            let storage = b.storage(u, dtype, spec.storage_len)?;
            b.tensor(&storage, &other, &spec)
        }
        6 => b.view(u, dtype, &shape, true)?,
        _ => {
            // The out tensor is one of the inputs, when one has the result's shape.
            let same = args.iter().find_map(|a| match a {
                Arg::Tensor(t) if b.tensor_spec(t).is_some_and(|s| s.shape == shape) => {
                    Some(t.clone())
                }
                _ => None,
            });
            match same {
                Some(t) => {
                    b.tag("self-input");
                    t
                }
                None => b.view(u, dtype, &shape, false)?,
            }
        }
    };
    let racy = args.iter().any(|a| match a {
        Arg::Tensor(t) => is_racy(b, &out, t),
        _ => false,
    });
    let out = if racy {
        b.view(u, dtype, &shape, false)?
    } else {
        out
    };
    b.kwarg("out", Arg::Tensor(out));
    Ok(())
}
