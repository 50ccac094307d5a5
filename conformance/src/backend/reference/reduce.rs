//! Reductions: `sum`, `mean`, `amax`, `amin`, `var`, `std`, `max` and `min`, as functions and
//! methods, with Python's argument forms (`dim` as an int, list, tuple or `None`; `keepdim`
//! positional or by keyword; `dtype=`; `var`/`std`'s `unbiased` and `correction`). `max` and
//! `min` of one tensor reduce every element, with a dim they return `(values, indices)`, and of
//! two tensors they are the element-wise `maximum` and `minimum`.

use super::{Args, CallError, Value};
use crate::case::Arg;
use bcast_engine::{reduce, DType, Tensor};

/// Runs `name` if it is a reduction; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    let op = name
        .strip_prefix("torch.")
        .or_else(|| name.strip_prefix("Tensor."))?;
    let result = match op {
        "sum" | "mean" | "amax" | "amin" => plain(op, a),
        "var" | "std" => moment(op, a),
        "max" | "min" => return Some(extremum(name, op == "max", a)),
        _ => return None,
    };
    Some(result.map(Value::Tensor))
}

/// `max`/`min` in their three overloads, as the parser bound them (the call is canonical:
/// `dim` and `keepdim` by position).
fn extremum(name: &str, max: bool, a: &Args) -> Result<Value, CallError> {
    if matches!(a.get(1), Some(Arg::Tensor(_))) {
        return super::elementwise::dispatch(name, a)
            .unwrap_or_else(|| Err(CallError::Unsupported(format!("{name} of two tensors"))));
    }
    a.only_kwargs(&[])?;
    let x = a.tensor(0)?;
    let Some(dim) = a.get(1) else {
        let all = if max {
            reduce::max_all(&x)
        } else {
            reduce::min_all(&x)
        };
        return Ok(Value::Tensor(all?));
    };
    let dim = a.as_int(dim)?;
    let keepdim = flag(a, a.get(2))?;
    let (values, indices) = if max {
        reduce::max_dim(&x, dim, keepdim)
    } else {
        reduce::min_dim(&x, dim, keepdim)
    }?;
    Ok(Value::Tensors(vec![values, indices]))
}

/// A `dim` argument: an int, a list or tuple of ints, or `None` (every dim, like `[]`).
fn dims_of(a: &Args, arg: Option<&Arg>) -> Result<Vec<i64>, CallError> {
    match arg {
        None | Some(Arg::None(())) => Ok(Vec::new()),
        Some(arg) => a.as_ints(arg),
    }
}

/// Positional argument `i`, else keyword `name`.
fn arg<'a>(a: &Args<'a>, i: usize, name: &str) -> Option<&'a Arg> {
    a.get(i).or_else(|| a.kwarg(name))
}

fn flag(a: &Args, value: Option<&Arg>) -> Result<bool, CallError> {
    value.map_or(Ok(false), |v| a.as_bool(v))
}

fn plain(op: &str, a: &Args) -> Result<Tensor, CallError> {
    a.only_kwargs(&["dim", "keepdim", "dtype"])?;
    let x = a.tensor(0)?;
    let dims = dims_of(a, arg(a, 1, "dim"))?;
    let keepdim = flag(a, arg(a, 2, "keepdim"))?;
    let dtype = a.kwarg("dtype").map(|d| a.as_dtype(d)).transpose()?;
    Ok(match op {
        "sum" => reduce::sum(&x, &dims, keepdim, dtype),
        "mean" => reduce::mean(&x, &dims, keepdim, dtype),
        "amax" => reduce::amax(&x, &dims, keepdim),
        _ => reduce::amin(&x, &dims, keepdim),
    }?)
}

/// `var`/`std`: `(x, unbiased)`, `(x, dim, unbiased, keepdim)` or
/// `(x, dim, *, correction, keepdim)`.
fn moment(op: &str, a: &Args) -> Result<Tensor, CallError> {
    a.only_kwargs(&["dim", "unbiased", "correction", "keepdim"])?;
    let x = a.tensor(0)?;
    // `explicit`: a dim list was given (an empty one is not `dim=None` to the backward).
    let (dims, explicit, unbiased, keepdim) = match a.get(1) {
        Some(Arg::Bool(unbiased)) => (Vec::new(), false, Some(*unbiased), false),
        dim => {
            let dim = dim.or_else(|| a.kwarg("dim"));
            (
                dims_of(a, dim)?,
                !matches!(dim, None | Some(Arg::None(()))),
                arg(a, 2, "unbiased").map(|u| a.as_bool(u)).transpose()?,
                flag(a, arg(a, 3, "keepdim"))?,
            )
        }
    };
    let correction = match (a.kwarg("correction"), unbiased) {
        (Some(c), _) => {
            // torch reads it with `Scalar::toDouble` once the input's dtype is accepted: a
            // complex number with an imaginary part overflows a double.
            let c = a.as_scalar(c)?;
            if x.dtype().is_floating() || x.dtype().is_complex() {
                c.check_fits(DType::Float64)?;
            }
            c.to_f64()
        }
        (None, Some(false)) => 0.0,
        (None, _) => 1.0,
    };
    let dims = explicit.then_some(dims.as_slice());
    Ok(reduce::moment_over(
        &x,
        dims,
        correction,
        keepdim,
        op == "std",
    )?)
}
