//! The `reflected` family: the reflected operators (`Tensor.__radd__`, `__rsub__`,
//! `__rtruediv__`, `__rpow__`, ... from [`REFLECTIONS`]), which is how `2 - t` reaches
//! torch: a tensor and, mostly, a Python number, sometimes a tensor that broadcasts; rarely an
//! argument the body refuses with a `TypeError` (a string, a list, an extra keyword), which
//! the operator answers with `NotImplemented`.

use super::bitwise::integral_dtype;
use super::elementwise::{random_alpha, shape_pair};
use super::operands::{approximate, python_number, random_dtype};
use super::{CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_conformance::ops::{Reflection, Reflects, REFLECTIONS};
use bcast_engine::DType;

/// The `reflected` family.
pub fn reflected_case(u: &mut Unstructured) -> GenResult<Case> {
    let reflection = u.choose(REFLECTIONS)?;
    let mut b = CaseBuilder::default();
    b.tag("reflected");
    let integral = reflection.op.starts_with("bitwise");
    let dtype = |u: &mut Unstructured| {
        if integral {
            integral_dtype(u)
        } else {
            random_dtype(u)
        }
    };
    let (sa, sb) = shape_pair(u)?;
    let this_dtype = dtype(u)?;
    let this = Arg::Tensor(b.view(u, this_dtype, &sa, true)?);
    let other = match u.int_in_range(0..=99u8)? {
        0..=64 => {
            b.tag("number");
            python_number(u)?
        }
        65..=69 => {
            b.tag("number");
            Arg::Complex(Num::Complex(
                *u.choose(&[0.5, -2.0])?,
                *u.choose(&[1.0, -0.5])?,
            ))
        }
        70..=94 => {
            let d = dtype(u)?;
            Arg::Tensor(b.view(u, d, &sb, true)?)
        }
        95..=97 => {
            b.tag("type-error");
            Arg::Str("2".into())
        }
        _ => {
            b.tag("type-error");
            Arg::List(vec![1, 2])
        }
    };
    let other = match reflection.op {
        "pow" => {
            b.tag("pow");
            approximate(&mut b);
            other
        }
        _ if b.has_dtype(DType::is_complex) || matches!(other, Arg::Complex(_)) => {
            approximate(&mut b);
            other
        }
        _ => other,
    };
    let mut args = vec![this, other];
    extra_argument(u, &mut b, reflection, &mut args)?;
    let mut case = b.finish(&format!("Tensor.{}", reflection.dunder), args);
    if matches!(reflection.op, "floor_divide" | "remainder") {
        super::binary_math::avoid_min_over_minus_one(&mut case);
    }
    Ok(case)
}

/// Rarely, an argument beyond `(self, other)`: `alpha=` (the C++ `__radd__` takes it as
/// `add` does; a Python body refuses it), or a third positional one.
fn extra_argument(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    reflection: &Reflection,
    args: &mut Vec<Arg>,
) -> GenResult<()> {
    if !u.ratio(1, 12)? {
        return Ok(());
    }
    let takes_alpha = reflection.calls == Reflects::Method("add");
    if u.ratio(3, 4)? {
        if let Some(alpha) = random_alpha(u)? {
            if !takes_alpha {
                b.tag("type-error");
            }
            b.kwarg("alpha", alpha);
        }
    } else {
        b.tag("type-error");
        args.push(Arg::Int(2));
    }
    Ok(())
}
