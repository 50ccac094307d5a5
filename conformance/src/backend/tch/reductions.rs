//! Reductions: `sum`, `mean`, `amax`, `amin`, `var`, `std`, as functions, methods and with
//! `out=`, and `max`/`min` (of every element, over a dim with indices, or of two tensors,
//! which the element-wise module runs). Python's overloads map onto tch's: `var(x, unbiased)` and `var(x, dim, unbiased)`
//! become the `correction` form with `correction = 1` or `0`, as libtorch defines them.

use super::inputs::kind_of;
use super::raw::{call, ptr, RawScalar};
use super::{unsupported, CallResult, Number, Operand, TchArgs, TchCallError, TchValue};
use crate::case::Arg;
use std::ffi::c_int;
use tch::{Kind, Tensor};
use torch_sys::IntListOption;

/// Runs `name` if it is a reduction; `None` when it is not.
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    let (method, base) = match name.split_once('.')? {
        ("torch", base) => (false, base),
        ("Tensor", base) => (true, base),
        _ => return None,
    };
    let run = match base {
        "sum" | "mean" => sum_or_mean,
        "amax" | "amin" => amax_or_amin,
        "var" | "std" => var_or_std,
        "max" | "min" => return Some(max_or_min(base == "max", a, name)),
        _ => return None,
    };
    Some(run(base, a, method, name).map(TchValue::Tensor))
}

/// A `dim` argument: absent or `None` is `None`, an int or a list of ints is the list.
fn dims(a: &TchArgs, arg: Option<&Arg>) -> Result<Option<Vec<i64>>, TchCallError> {
    match arg {
        None | Some(Arg::None(())) => Ok(None),
        Some(arg) => Ok(Some(a.as_ints(arg)?)),
    }
}

fn flag(a: &TchArgs, arg: Option<&Arg>) -> Result<bool, TchCallError> {
    match arg {
        None => Ok(false),
        Some(arg) => Ok(a.as_bool(arg)?),
    }
}

fn dtype(a: &TchArgs) -> Result<Option<Kind>, TchCallError> {
    match a.kwarg("dtype") {
        None => Ok(None),
        Some(arg) => Ok(Some(kind_of(a.as_dtype(arg)?))),
    }
}

fn out(a: &TchArgs, method: bool, name: &str) -> Result<Option<Tensor>, TchCallError> {
    match a.kwarg("out") {
        None => Ok(None),
        Some(_) if method => unsupported(format!(
            "Python-only: {name} raises TypeError in Python's argument parser (a method takes no out=)"
        )),
        Some(arg) => Ok(Some(a.as_tensor(arg)?)),
    }
}

type R = Result<Tensor, TchCallError>;

fn sum_or_mean(base: &str, a: &TchArgs, method: bool, name: &str) -> R {
    a.only_kwargs(&["input", "dim", "keepdim", "dtype", "out"])?;
    let x = a.tensor(0)?;
    let dim_arg = a.param(1, "dim");
    let keepdim_arg = a.param(2, "keepdim");
    let dtype = dtype(a)?;
    let out = out(a, method, name)?;
    let sum = base == "sum";
    let result = if dim_arg.is_none() && keepdim_arg.is_none() {
        match (out, sum) {
            (None, true) => x.f_sum(dtype),
            (None, false) => x.f_mean(dtype),
            (Some(o), true) => x.f_sum_out(&o, dtype),
            (Some(o), false) => x.f_mean_dtype_out(&o, dtype),
        }
    } else {
        let dim = dims(a, dim_arg)?;
        let keepdim = flag(a, keepdim_arg)?;
        match (out, sum) {
            (None, true) => x.f_sum_dim_intlist(dim, keepdim, dtype),
            (None, false) => x.f_mean_dim(dim, keepdim, dtype),
            (Some(o), true) => x.f_sum_intlist_out(&o, dim, keepdim, dtype),
            (Some(o), false) => x.f_mean_out(&o, dim, keepdim, dtype),
        }
    };
    Ok(result?)
}

fn amax_or_amin(base: &str, a: &TchArgs, method: bool, name: &str) -> R {
    a.only_kwargs(&["input", "dim", "keepdim", "out"])?;
    let x = a.tensor(0)?;
    let dim = dims(a, a.param(1, "dim"))?.unwrap_or_default();
    let keepdim = flag(a, a.param(2, "keepdim"))?;
    let result = match (out(a, method, name)?, base == "amax") {
        (None, true) => x.f_amax(dim, keepdim),
        (None, false) => x.f_amin(dim, keepdim),
        (Some(o), true) => x.f_amax_out(&o, dim, keepdim),
        (Some(o), false) => x.f_amin_out(&o, dim, keepdim),
    };
    Ok(result?)
}

/// `max`/`min`: `max(x)`, `max(x, dim, keepdim)` (values and indices), or `max(x, other)`.
fn max_or_min(max: bool, a: &TchArgs, name: &str) -> CallResult {
    if matches!(a.get(1), Some(Arg::Tensor(_))) {
        return super::elementwise::dispatch(name, a)
            .unwrap_or_else(|| unsupported(format!("tch backend has no {name} of two tensors")));
    }
    a.only_kwargs(&[])?;
    let x = a.tensor(0)?;
    let Some(dim) = a.get(1) else {
        let all = if max { x.f_max() } else { x.f_min() };
        return Ok(TchValue::Tensor(all?));
    };
    let dim = a.as_int(dim)?;
    let keepdim = flag(a, a.get(2))?;
    let (values, indices) = if max {
        x.f_max_dim(dim, keepdim)
    } else {
        x.f_min_dim(dim, keepdim)
    }?;
    Ok(TchValue::Tensors(vec![values, indices]))
}

/// The arguments of `var`/`std` after Python's overload resolution.
struct Spread {
    dim: Option<Vec<i64>>,
    correction: RawScalar,
    keepdim: bool,
}

fn spread_args(a: &TchArgs, name: &str) -> Result<Spread, TchCallError> {
    a.only_kwargs(&["input", "dim", "unbiased", "correction", "keepdim", "out"])?;
    let mut unbiased = a.kwarg("unbiased").map(|arg| a.as_bool(arg)).transpose()?;
    let dim_arg = match a.get(1) {
        // var(input, unbiased)
        Some(Arg::Bool(b)) => {
            if a.len() > 2 || unbiased.is_some() {
                return unsupported(format!("{name}: unbiased given twice"));
            }
            unbiased = Some(*b);
            a.kwarg("dim")
        }
        Some(arg) => Some(arg),
        None => a.kwarg("dim"),
    };
    let mut keepdim_arg = a.kwarg("keepdim");
    match (a.get(2), a.get(3)) {
        (Some(Arg::Bool(b)), k) if unbiased.is_none() => {
            unbiased = Some(*b);
            keepdim_arg = k.or(keepdim_arg);
        }
        (None, None) => {}
        _ => return unsupported(format!("{name}: positional arguments Python rejects")),
    }
    let correction = match (unbiased, a.kwarg("correction")) {
        (Some(_), Some(_)) => {
            return unsupported(format!("{name}: both unbiased and correction"));
        }
        (Some(u), None) => Number::Int(u as i64).scalar(),
        (None, Some(Arg::Int(c))) => Number::Int(*c).scalar(),
        (None, Some(Arg::Float(c))) => Number::Float(c.to_f64()).scalar(),
        // A 0-d tensor that requires no grad (`pyargs` checked it first), as the parser takes
        // it for the Number: its `item()`.
        (None, Some(arg @ Arg::Tensor(_))) => match a.as_operand(arg)? {
            Operand::Tensor(t) => RawScalar::item_of(&t)?,
            Operand::Number(n) => n.scalar(),
        },
        (None, Some(other)) => {
            return unsupported(format!("{name}: correction {other:?}"));
        }
        (None, None) => Number::Int(1).scalar(),
    };
    Ok(Spread {
        dim: dims(a, dim_arg)?,
        correction,
        keepdim: flag(a, keepdim_arg)?,
    })
}

fn var_or_std(base: &str, a: &TchArgs, method: bool, name: &str) -> R {
    let x = a.tensor(0)?;
    let Spread {
        dim,
        correction,
        keepdim,
    } = spread_args(a, name)?;
    let (dim_data, dim_len) = (dim.as_ptr(), dim.len_i32());
    let (s, keep) = (correction.as_ptr(), keepdim as c_int);
    let var = base == "var";
    // The correction Scalar goes through torch-sys (see `raw.rs`).
    let result = match out(a, method, name)? {
        None => call(|o| unsafe {
            if var {
                torch_sys::c_generated::atg_var_correction(o, ptr(&x), dim_data, dim_len, s, keep)
            } else {
                torch_sys::c_generated::atg_std_correction(o, ptr(&x), dim_data, dim_len, s, keep)
            }
        }),
        Some(out) => call(|o| unsafe {
            if var {
                torch_sys::c_generated::atg_var_correction_out(
                    o,
                    ptr(&out),
                    ptr(&x),
                    dim_data,
                    dim_len,
                    s,
                    keep,
                )
            } else {
                torch_sys::c_generated::atg_std_correction_out(
                    o,
                    ptr(&out),
                    ptr(&x),
                    dim_data,
                    dim_len,
                    s,
                    keep,
                )
            }
        }),
    };
    Ok(result?)
}
