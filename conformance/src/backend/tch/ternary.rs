//! The ops of a tensor and its bounds, weights, factors or mask (`clamp`, `clamp_min`,
//! `clamp_max`, `lerp`, `addcmul`, `addcdiv`, `masked_fill`) and the closeness tests
//! (`isclose`, `equal`), in the spelling `bcast_case::pyargs` made canonical (by position up
//! to the first parameter left out, by keyword after it), with the overload Python binds: a
//! tensor argument takes the Tensor overload, a number the Scalar one.

use super::elementwise::{split_name, Form};
use super::raw::{call, ptr, RawScalar};
use super::shim::{self, Destination};
use super::{unsupported, CallResult, Operand, TchArgs, TchCallError, TchValue};
use crate::case::Arg;
use tch::Tensor;

/// Runs `name` if it is one of this module's ops; `None` when it is not.
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    let (form, base) = split_name(name)?;
    const OPS: [&str; 9] = [
        "clamp",
        "clamp_min",
        "clamp_max",
        "lerp",
        "addcmul",
        "addcdiv",
        "masked_fill",
        "isclose",
        "equal",
    ];
    let op = *OPS.iter().find(|op| **op == base)?;
    Some(run(name, form, op, a))
}

/// A parameter that may be left out or passed as `None`.
fn optional<'a>(a: &TchArgs<'a>, i: usize, key: &str) -> Option<&'a Arg> {
    a.param(i, key).filter(|arg| !matches!(arg, Arg::None(())))
}

fn required<'a>(a: &TchArgs<'a>, i: usize, key: &str, name: &str) -> Result<&'a Arg, TchCallError> {
    optional(a, i, key).ok_or_else(|| TchCallError::Unsupported(format!("{name}: missing {key}")))
}

/// The Scalar Python binds for a number, or for a 0-d tensor passed where only a Scalar is
/// taken (`t.item()`).
fn scalar(operand: Operand) -> Result<RawScalar, TchCallError> {
    match operand {
        Operand::Number(n) => Ok(n.scalar()),
        Operand::Tensor(t) => Ok(RawScalar::item_of(&t)?),
    }
}

fn tensor(a: &TchArgs, arg: &Arg, name: &str) -> Result<Tensor, TchCallError> {
    match a.as_operand(arg)? {
        Operand::Tensor(t) => Ok(t),
        Operand::Number(_) => unsupported(format!("{name}: a number where a tensor is taken")),
    }
}

fn run(name: &str, form: Form, op: &str, a: &TchArgs) -> CallResult {
    let x = tensor(a, required(a, 0, "input", name)?, name)?;
    let out = match a.kwarg("out") {
        Some(arg) if form == Form::Function => Some(tensor(a, arg, name)?),
        Some(_) => return unsupported(format!("{name}: out= on a method")),
        None => None,
    };
    let dest = match (&out, form) {
        (_, Form::InPlace) => Destination::InPlace,
        (Some(o), _) => Destination::Out(o),
        (None, _) => Destination::Plain,
    };
    let mut target = x.shallow_clone();
    let result = match op {
        "clamp" | "clamp_min" | "clamp_max" => clamp(a, op, &x, &mut target, dest, name)?,
        "lerp" => {
            let end = tensor(a, required(a, 1, "end", name)?, name)?;
            match a.as_operand(required(a, 2, "weight", name)?)? {
                Operand::Tensor(w) => match dest {
                    Destination::InPlace => target.f_lerp_tensor_(&end, &w)?,
                    Destination::Out(o) => x.f_lerp_tensor_out(o, &end, &w)?,
                    Destination::Plain => x.f_lerp_tensor(&end, &w)?,
                },
                Operand::Number(n) => {
                    let w = n.scalar();
                    // SAFETY: live tensors and Scalar; libtch writes one new tensor handle.
                    call(|r| unsafe {
                        use torch_sys::c_generated::*;
                        match dest {
                            Destination::InPlace => atg_lerp_(r, ptr(&x), ptr(&end), w.as_ptr()),
                            Destination::Out(o) => {
                                atg_lerp_scalar_out(r, ptr(o), ptr(&x), ptr(&end), w.as_ptr())
                            }
                            Destination::Plain => atg_lerp(r, ptr(&x), ptr(&end), w.as_ptr()),
                        }
                    })?
                }
            }
        }
        "addcmul" | "addcdiv" => {
            let t1 = tensor(a, required(a, 1, "tensor1", name)?, name)?;
            let t2 = tensor(a, required(a, 2, "tensor2", name)?, name)?;
            let value = match optional(a, 3, "value") {
                Some(arg) => scalar(a.as_operand(arg)?)?,
                None => super::Number::Int(1).scalar(),
            };
            shim::addc(op == "addcdiv", &x, &t1, &t2, &value, dest)?
        }
        "masked_fill" => {
            let mask = tensor(a, required(a, 1, "mask", name)?, name)?;
            match a.as_operand(required(a, 2, "value", name)?)? {
                Operand::Tensor(v) if form == Form::InPlace => {
                    target.f_masked_fill_tensor_(&mask, &v)?
                }
                Operand::Tensor(v) => x.f_masked_fill_tensor(&mask, &v)?,
                Operand::Number(n) => {
                    let v = n.scalar();
                    // SAFETY: as for `lerp`.
                    call(|r| unsafe {
                        use torch_sys::c_generated::*;
                        if form == Form::InPlace {
                            atg_masked_fill_(r, ptr(&x), ptr(&mask), v.as_ptr())
                        } else {
                            atg_masked_fill(r, ptr(&x), ptr(&mask), v.as_ptr())
                        }
                    })?
                }
            }
        }
        "isclose" => {
            let other = tensor(a, required(a, 1, "other", name)?, name)?;
            let float = |i: usize, key: &str, default: f64| match optional(a, i, key) {
                Some(arg) => Ok(a.as_scalar(arg)?.to_f64()),
                None => Ok::<f64, TchCallError>(default),
            };
            let equal_nan = match optional(a, 4, "equal_nan") {
                Some(arg) => a.as_bool(arg)?,
                None => false,
            };
            x.f_isclose(
                &other,
                float(2, "rtol", 1e-5)?,
                float(3, "atol", 1e-8)?,
                equal_nan,
            )?
        }
        _ => {
            let other = tensor(a, required(a, 1, "other", name)?, name)?;
            return Ok(TchValue::Bool(x.f_equal(&other)?));
        }
    };
    Ok(TchValue::Tensor(result))
}

/// `clamp` (both bounds optional, both numbers or both tensors), `clamp_min`, `clamp_max`.
fn clamp(
    a: &TchArgs,
    op: &str,
    x: &Tensor,
    target: &mut Tensor,
    dest: Destination,
    name: &str,
) -> Result<Tensor, TchCallError> {
    use torch_sys::c_generated::*;
    let bound = |i: usize, key: &str| -> Result<Option<Operand>, TchCallError> {
        optional(a, i, key).map(|arg| a.as_operand(arg)).transpose()
    };
    let one = |key: &str| a.as_operand(required(a, 1, key, name)?);
    Ok(match op {
        "clamp_min" => match (one("min")?, dest) {
            (Operand::Tensor(b), Destination::InPlace) => target.f_clamp_min_tensor_(&b)?,
            (Operand::Tensor(b), Destination::Out(o)) => x.f_clamp_min_tensor_out(o, &b)?,
            (Operand::Tensor(b), Destination::Plain) => x.f_clamp_min_tensor(&b)?,
            (Operand::Number(n), dest) => {
                let s = n.scalar();
                // SAFETY: live tensors and Scalar; libtch writes one new tensor handle.
                call(|r| unsafe {
                    match dest {
                        Destination::InPlace => atg_clamp_min_(r, ptr(x), s.as_ptr()),
                        Destination::Out(o) => atg_clamp_min_out(r, ptr(o), ptr(x), s.as_ptr()),
                        Destination::Plain => atg_clamp_min(r, ptr(x), s.as_ptr()),
                    }
                })?
            }
        },
        "clamp_max" => match (one("max")?, dest) {
            (Operand::Tensor(b), Destination::InPlace) => target.f_clamp_max_tensor_(&b)?,
            (Operand::Tensor(b), Destination::Out(o)) => x.f_clamp_max_tensor_out(o, &b)?,
            (Operand::Tensor(b), Destination::Plain) => x.f_clamp_max_tensor(&b)?,
            (Operand::Number(n), dest) => {
                let s = n.scalar();
                // SAFETY: as above.
                call(|r| unsafe {
                    match dest {
                        Destination::InPlace => atg_clamp_max_(r, ptr(x), s.as_ptr()),
                        Destination::Out(o) => atg_clamp_max_out(r, ptr(o), ptr(x), s.as_ptr()),
                        Destination::Plain => atg_clamp_max(r, ptr(x), s.as_ptr()),
                    }
                })?
            }
        },
        _ => match (bound(1, "min")?, bound(2, "max")?) {
            (Some(Operand::Tensor(_)), Some(Operand::Number(_)))
            | (Some(Operand::Number(_)), Some(Operand::Tensor(_))) => {
                return unsupported(format!("{name}: a number and a tensor bound"))
            }
            (lo @ Some(Operand::Tensor(_)), hi) | (lo, hi @ Some(Operand::Tensor(_))) => {
                let t = |b: Option<Operand>| match b {
                    Some(Operand::Tensor(t)) => Some(t),
                    _ => None,
                };
                let (lo, hi) = (t(lo), t(hi));
                match dest {
                    Destination::InPlace => target.f_clamp_tensor_(lo.as_ref(), hi.as_ref())?,
                    Destination::Out(o) => x.f_clamp_tensor_out(o, lo.as_ref(), hi.as_ref())?,
                    Destination::Plain => x.f_clamp_tensor(lo.as_ref(), hi.as_ref())?,
                }
            }
            (lo, hi) => {
                let (lo, hi) = (lo.map(scalar).transpose()?, hi.map(scalar).transpose()?);
                shim::clamp(x, lo.as_ref(), hi.as_ref(), dest)?
            }
        },
    })
}
