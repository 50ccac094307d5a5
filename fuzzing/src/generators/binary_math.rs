//! The `binary_math` family: the binary math ops ([`BinaryOp::MATH`]: `div` with a rounding
//! mode, `floor_divide`, `fmod`, `atan2`, `hypot`, `copysign`, `nextafter`, `ldexp`,
//! `logaddexp`, `logaddexp2`, `xlogy`, `float_power`, `heaviside`, `fmax`, `fmin`, `rsub`,
//! `torch.special.xlogy`, `xlog1py` and `zeta`) over the `binary` family's layouts, dtypes and
//! Python numbers, in every form Python has for each: function, method, in place (with the
//! `inplace` family's aliased and lower-dtype targets) and `out=` (with the `out` family's
//! outputs).

use super::elementwise::{random_alpha, shape_pair};
use super::inplace::target_and_operand;
use super::operands::{consistent_remainder, is_number, python_number, random_dtype};
use super::out::finish_with_out;
use super::{CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num, Tolerance};
use bcast_engine::ops::BinaryOp;
use bcast_engine::DType;

/// What Python's binding does with a number for one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Number {
    /// Taken (wrapped as a 0-d tensor, or a Scalar overload).
    Taken,
    /// Refused with `argument 'other' (position 2) must be Tensor, not int` (drawn rarely).
    Refused,
    /// Refused with the list of overloads, which the suite does not express (never drawn).
    Never,
}

/// One op as Python spells it.
struct Spec {
    op: BinaryOp,
    /// Its Python names, aliases included (`torch.special` ones with their namespace).
    names: &'static [&'static str],
    /// `Tensor.NAME` exists.
    method: bool,
    /// `Tensor.NAME_` exists.
    in_place: bool,
    /// `out=` is taken.
    out: bool,
    /// Numbers for the first and second operand, and whether both may be numbers at once.
    numbers: (Number, Number, bool),
    /// torch computes it with vectorised approximations (or libm functions the engine does not
    /// reproduce bit for bit).
    approximate: bool,
}

const fn spec(
    op: BinaryOp,
    names: &'static [&'static str],
    forms: (bool, bool, bool),
    numbers: (Number, Number, bool),
    approximate: bool,
) -> Spec {
    Spec {
        op,
        names,
        method: forms.0,
        in_place: forms.1,
        out: forms.2,
        numbers,
        approximate,
    }
}

use Number::{Never, Refused, Taken};

/// Every op of the family, as torch 2.13.0's Python binding takes it.
const SPECS: [Spec; 18] = [
    spec(
        BinaryOp::DivTrunc,
        &["div", "divide"],
        (true, true, true),
        (Taken, Taken, true),
        false,
    ),
    spec(
        BinaryOp::DivFloor,
        &["div", "divide", "floor_divide"],
        (true, true, true),
        (Taken, Taken, true),
        false,
    ),
    spec(
        BinaryOp::Fmod,
        &["fmod"],
        (true, true, true),
        (Never, Taken, false),
        false,
    ),
    spec(
        BinaryOp::Atan2,
        &["atan2", "arctan2"],
        (true, true, true),
        (Refused, Refused, false),
        true,
    ),
    spec(
        BinaryOp::Hypot,
        &["hypot"],
        (true, true, true),
        (Refused, Refused, false),
        true,
    ),
    spec(
        BinaryOp::Copysign,
        &["copysign"],
        (true, true, true),
        (Never, Taken, false),
        false,
    ),
    spec(
        BinaryOp::Nextafter,
        &["nextafter"],
        (true, true, true),
        (Refused, Refused, false),
        false,
    ),
    spec(
        BinaryOp::Ldexp,
        &["ldexp"],
        (true, true, true),
        (Refused, Refused, false),
        true,
    ),
    spec(
        BinaryOp::Logaddexp,
        &["logaddexp"],
        (true, false, true),
        (Refused, Refused, false),
        true,
    ),
    spec(
        BinaryOp::Logaddexp2,
        &["logaddexp2"],
        (true, false, true),
        (Refused, Refused, false),
        true,
    ),
    spec(
        BinaryOp::Xlogy,
        &["xlogy", "special.xlogy"],
        (true, true, true),
        (Taken, Taken, false),
        false,
    ),
    spec(
        BinaryOp::Xlog1py,
        &["special.xlog1py"],
        (false, false, true),
        (Taken, Taken, false),
        false,
    ),
    spec(
        BinaryOp::Zeta,
        &["special.zeta"],
        (false, false, true),
        (Taken, Taken, false),
        false,
    ),
    spec(
        BinaryOp::FloatPower,
        &["float_power"],
        (true, true, true),
        (Taken, Taken, false),
        true,
    ),
    spec(
        BinaryOp::Heaviside,
        &["heaviside"],
        (true, true, true),
        (Refused, Refused, false),
        false,
    ),
    spec(
        BinaryOp::Fmax,
        &["fmax"],
        (true, false, true),
        (Refused, Refused, false),
        false,
    ),
    spec(
        BinaryOp::Fmin,
        &["fmin"],
        (true, false, true),
        (Refused, Refused, false),
        false,
    ),
    spec(
        BinaryOp::Rsub(bcast_engine::Scalar::Int(1)),
        &["rsub"],
        (false, false, false),
        (Never, Taken, false),
        false,
    ),
];

/// A new view of `shape` of `dtype` (or a random dtype), or a Python number: often where
/// Python takes one, rarely where it refuses one (a `TypeError` case), never where it answers
/// with its list of overloads.
fn operand(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    shape: &[usize],
    dtype: Option<DType>,
    number: Number,
) -> GenResult<Arg> {
    let percent = match number {
        Number::Taken => 20,
        Number::Refused => 2,
        Number::Never => 0,
    };
    if u.int_in_range(0..=99u8)? < percent {
        b.tag("number");
        if number == Number::Refused {
            b.tag("type-error");
        }
        return python_number(u);
    }
    let dtype = match dtype {
        Some(d) => d,
        None => random_dtype(u)?,
    };
    Ok(Arg::Tensor(b.view(u, dtype, shape, true)?))
}

/// The dtype of a tensor argument, from the builder.
fn dtype_of(b: &CaseBuilder, arg: &Arg) -> Option<DType> {
    let Arg::Tensor(name) = arg else {
        return None;
    };
    let storage = b.storage_spec(&b.tensor_spec(name)?.storage)?;
    DType::from_name(&storage.dtype)
}

/// How the call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Function,
    Method,
    InPlace,
    Out,
}

/// The `binary_math` family.
pub fn binary_math_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let spec = u.choose(&SPECS)?;
    let name = *u.choose(spec.names)?;
    let mut forms = vec![Form::Function, Form::Function];
    // `torch.special` has functions only.
    let namespaced = name.starts_with("special.");
    if spec.method && !namespaced {
        forms.push(Form::Method);
    }
    if spec.in_place && !namespaced {
        forms.push(Form::InPlace);
    }
    if spec.out {
        forms.push(Form::Out);
    }
    let form = *u.choose(&forms)?;
    // `floor_divide` is `div(rounding_mode='floor')` without the keyword.
    if let (Some(mode), false) = (spec.op.rounding_mode(), name == "floor_divide") {
        let mode = if u.ratio(1, 40)? { "round" } else { mode };
        b.kwarg("rounding_mode", Arg::Str(mode.to_string()));
    }
    if let BinaryOp::Rsub(_) = spec.op
        && let Some(alpha) = random_alpha(u)?
    {
        b.kwarg("alpha", alpha);
    }
    let (first, second, both) = spec.numbers;
    let args = if form == Form::InPlace {
        b.tag("inplace");
        let (t, other) = target_and_operand(u, &mut b, second == Number::Taken)?;
        vec![Arg::Tensor(t), other]
    } else {
        let (sa, sb) = shape_pair(u)?;
        let first = if form == Form::Function || form == Form::Out {
            first
        } else {
            Number::Never
        };
        let x = operand(u, &mut b, &sa, None, first)?;
        // heaviside wants one dtype: usually the first's.
        let hint = match spec.op {
            BinaryOp::Heaviside if u.ratio(5, 6)? => dtype_of(&b, &x),
            _ => None,
        };
        let mut y = operand(u, &mut b, &sb, hint, second)?;
        if !both && is_number(&x) && is_number(&y) {
            let dtype = random_dtype(u)?;
            y = Arg::Tensor(b.view(u, dtype, &sb, true)?);
        }
        vec![x, y]
    };
    let fn_name = match form {
        Form::Function | Form::Out => format!("torch.{name}"),
        Form::Method => format!("Tensor.{name}"),
        Form::InPlace => format!("Tensor.{name}_"),
    };
    let mut case = match form {
        Form::Out => with_out(u, b, spec.op, &fn_name, args)?,
        _ => b.finish(&fn_name, args),
    };
    if spec.op == BinaryOp::DivTrunc {
        avoid_min_over_minus_one(&mut case);
    }
    if spec.op == BinaryOp::Fmod {
        // As `remainder`: a quotient that overflows gives NaN or the exact result by position.
        consistent_remainder(&mut case, 0, 1);
    }
    if spec.approximate || has_complex(&case) {
        approximate_case(&mut case);
    }
    Ok(case)
}

/// `fn_name(*args, out=...)`. An `ldexp` of a float tensor by an integer one into an `out=` of
/// another dtype fails an internal assert in torch 2.13.0 (its kernel does not cast), so such
/// an `out=` is drawn again, and the call made without `out=` if that keeps happening.
fn with_out(
    u: &mut Unstructured,
    b: CaseBuilder,
    op: BinaryOp,
    fn_name: &str,
    args: Vec<Arg>,
) -> GenResult<Case> {
    for _ in 0..4 {
        let case = finish_with_out(u, b.clone(), fn_name, args.clone())?;
        if op != BinaryOp::Ldexp || !ldexp_casts_out(&case) {
            return Ok(case);
        }
    }
    Ok(b.finish(fn_name, args))
}

/// The dtype of a tensor argument of a finished case.
fn case_dtype(case: &Case, arg: &Arg) -> Option<DType> {
    let Arg::Tensor(name) = arg else {
        return None;
    };
    let storage = case.storages.get(&case.tensors.get(name)?.storage)?;
    DType::from_name(&storage.dtype)
}

/// Whether an `ldexp` case takes torch's integer-exponent kernel into an `out=` of another
/// dtype than its input.
fn ldexp_casts_out(case: &Case) -> bool {
    let (Some(x), Some(e)) = (
        case_dtype(case, &case.call.args[0]),
        case_dtype(case, &case.call.args[1]),
    ) else {
        return false;
    };
    let out = case
        .call
        .kwargs
        .get("out")
        .and_then(|o| case_dtype(case, o));
    x.is_floating() && !e.is_floating() && !e.is_complex() && out.is_some_and(|o| o != x)
}

/// torch's integer `div(..., rounding_mode='trunc')` of `MIN` by `-1` in `int32` or `int64`
/// traps (SIGFPE) and kills the process, as does `lcm(MIN, 7)` (its `gcd` is -1, and `lcm`
/// divides `MIN` by it), so such values become `MIN + 1`.
pub(super) fn avoid_min_over_minus_one(case: &mut Case) {
    for storage in case.storages.values_mut() {
        let min = match DType::from_name(&storage.dtype) {
            Some(DType::Int32) => i64::from(i32::MIN),
            Some(DType::Int64) => i64::MIN,
            _ => continue,
        };
        for v in storage.values.iter_mut().flatten() {
            if *v == Num::Int(min) {
                *v = Num::Int(min + 1);
            }
        }
    }
    for arg in &mut case.call.args {
        if *arg == Arg::Int(i64::MIN) {
            *arg = Arg::Int(i64::MIN + 1);
        }
    }
}

fn has_complex(case: &Case) -> bool {
    case.storages
        .values()
        .any(|s| DType::from_name(&s.dtype).is_some_and(DType::is_complex))
}

/// [`approximate`](super::approximate)'s tolerance for a finished case (its `out=` included).
fn approximate_case(case: &mut Case) {
    let has = |d: DType| {
        case.storages
            .values()
            .any(|s| DType::from_name(&s.dtype).is_some_and(|t| t.to_real() == d))
    };
    let rtol = if has(DType::BFloat16) {
        2e-2
    } else if has(DType::Float16) {
        2e-3
    } else {
        1e-5
    };
    case.tolerance = Some(Tolerance {
        rtol,
        atol: rtol / 10.0,
    });
}
