//! The ops of a tensor and its bounds, weights, factors or mask (`clamp`, `clamp_min`,
//! `clamp_max`, `lerp`, `addcmul`, `addcdiv`, `masked_fill`) and the closeness tests
//! (`isclose`, `equal`), in their Python spellings, with the overload Python picks: number
//! bounds or tensor bounds for `clamp` (a mix is refused with a list of overloads, not
//! expressed here), a number or a tensor weight for `lerp` and value for `masked_fill`.

use super::bitwise::form_of;
use super::elementwise::{leading_operands, operands, tensor_of, unsupported, Form, Number, Param};
use super::{Args, CallError, Value};
use crate::case::Arg;
use bcast_engine::autograd::with_aten_name;
use bcast_engine::ops::{
    addc, addc_, clamp_numbers, clamp_numbers_, clamp_tensors, clamp_tensors_, equal, isclose,
    lerp, lerp_, masked_fill, masked_fill_, AddcOp, Operand,
};
use bcast_engine::Scalar;

/// The ops of this module.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Clamp,
    ClampMin,
    ClampMax,
    Lerp,
    Addc(AddcOp),
    MaskedFill,
    IsClose,
    Equal,
}

impl Op {
    fn from_name(name: &str) -> Option<Op> {
        Some(match name {
            "clamp" => Op::Clamp,
            "clamp_min" => Op::ClampMin,
            "clamp_max" => Op::ClampMax,
            "lerp" => Op::Lerp,
            "masked_fill" => Op::MaskedFill,
            "isclose" => Op::IsClose,
            "equal" => Op::Equal,
            other => Op::Addc(AddcOp::from_name(other)?),
        })
    }
}

/// Runs `name` if it is one of this module's ops; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    let (form, base) = form_of(name)?;
    let op = Op::from_name(base)?;
    if form == Form::InPlace && matches!(op, Op::IsClose | Op::Equal) {
        return None;
    }
    Some(run(name, form, op, a))
}

fn param(name: &'static str, number: Number) -> Param {
    Param { name, number }
}

/// A bound of `clamp`: absent (`None`), a number or a tensor.
fn bound(a: &Args, i: usize, name: &str) -> Result<Option<Operand>, CallError> {
    match a.get(i).or_else(|| a.kwarg(name)) {
        None | Some(Arg::None(())) => Ok(None),
        Some(arg @ Arg::Tensor(_)) => Ok(Some(Operand::Tensor(a.as_tensor(arg)?))),
        Some(arg) => Ok(Some(Operand::Number(a.as_scalar(arg)?))),
    }
}

fn run(name: &str, form: Form, op: Op, a: &Args) -> Result<Value, CallError> {
    let out = match a.kwarg("out") {
        Some(arg) if form == Form::Function => Some(a.as_tensor(arg)?),
        Some(_) => return unsupported(format!("{name}: out= on a method")),
        None => None,
    };
    let py_name = name
        .trim_start_matches("torch.")
        .trim_start_matches("Tensor.");
    let x = match a.get(0) {
        Some(arg @ Arg::Tensor(_)) => a.as_tensor(arg)?,
        _ => return unsupported(format!("{name}: the first argument is not a tensor")),
    };
    // The tensor written: the in-place target, or out=.
    let target = if form == Form::InPlace {
        Some(x.clone())
    } else {
        out
    };
    let target = target.as_ref();
    let result = match op {
        Op::Clamp | Op::ClampMin | Op::ClampMax => {
            let (min, max) = match op {
                Op::Clamp => {
                    a.only_kwargs(&["min", "max", "out"])?;
                    if a.len() > 3 {
                        return unsupported(format!("{name}: too many arguments"));
                    }
                    (bound(a, 1, "min")?, bound(a, 2, "max")?)
                }
                _ => {
                    a.only_kwargs(&["out"])?;
                    let b = match (a.len(), bound(a, 1, "")?) {
                        (2, Some(b)) => b,
                        _ => return unsupported(format!("{name}: expected one bound")),
                    };
                    if op == Op::ClampMin {
                        (Some(b), None)
                    } else {
                        (None, Some(b))
                    }
                }
            };
            let number = |b: &Option<Operand>| matches!(b, Some(Operand::Number(_)));
            let tensor = |b: &Option<Operand>| matches!(b, Some(Operand::Tensor(_)));
            if (number(&min) && tensor(&max)) || (tensor(&min) && number(&max)) {
                return unsupported(format!("{name}: a number and a tensor bound"));
            }
            if tensor(&min) || tensor(&max) {
                let t = |b: &Option<Operand>| b.as_ref().and_then(Operand::as_tensor).cloned();
                let (lo, hi) = (t(&min), t(&max));
                match form {
                    Form::InPlace => clamp_tensors_(&x, lo.as_ref(), hi.as_ref(), op == Op::Clamp),
                    _ => clamp_tensors(&x, lo.as_ref(), hi.as_ref(), target, op == Op::Clamp),
                }
            } else {
                let n = |b: Option<Operand>| match b {
                    Some(Operand::Number(v)) => Some(v),
                    _ => None,
                };
                let (lo, hi) = (n(min), n(max));
                let aten = match op {
                    Op::ClampMin => "clamp_min",
                    Op::ClampMax => "clamp_max",
                    _ => "clamp",
                };
                with_aten_name(aten, || match form {
                    Form::InPlace => clamp_numbers_(&x, lo, hi),
                    _ => clamp_numbers(&x, lo, hi, target),
                })
            }
        }
        Op::Lerp => {
            a.only_kwargs(&["out"])?;
            let params = [
                param("input", Number::Unexpressed),
                param("end", Number::Unexpressed),
                param("weight", Number::Ok),
            ];
            let ops = operands(a, py_name, form, &params)?;
            match form {
                Form::InPlace => lerp_(&x, tensor_of(&ops[1])?, ops[2].clone()),
                _ => lerp(&x, tensor_of(&ops[1])?, ops[2].clone(), target),
            }
        }
        Op::Addc(addc_op) => {
            a.only_kwargs(&["value", "out"])?;
            let params = [
                param("input", Number::Unexpressed),
                param("tensor1", Number::Refused),
                param("tensor2", Number::Refused),
            ];
            let ops = operands(a, py_name, form, &params)?;
            let value = match a.kwarg("value") {
                Some(arg) => a.as_scalar(arg)?,
                None => Scalar::Int(1),
            };
            let (t1, t2) = (tensor_of(&ops[1])?, tensor_of(&ops[2])?);
            match form {
                Form::InPlace => addc_(addc_op, &x, t1, t2, value),
                _ => addc(addc_op, &x, t1, t2, value, target),
            }
        }
        Op::MaskedFill => {
            a.only_kwargs(&[])?;
            let params = [
                param("input", Number::Unexpressed),
                param("mask", Number::Unexpressed),
                param("value", Number::Ok),
            ];
            let ops = operands(a, py_name, form, &params)?;
            let mask = tensor_of(&ops[1])?;
            match form {
                Form::InPlace => masked_fill_(&x, mask, ops[2].clone()),
                _ => masked_fill(&x, mask, ops[2].clone()),
            }
        }
        Op::IsClose => {
            a.only_kwargs(&["rtol", "atol", "equal_nan"])?;
            // rtol, atol and equal_nan by position (the parser's spelling) or by keyword.
            let positional = a.len().min(2);
            let params = [
                param("input", Number::Unexpressed),
                param("other", Number::Refused),
            ];
            let ops = leading_operands(a, py_name, form, &params[..positional])?;
            let tol = |i: usize, key: &str, default: f64| -> Result<f64, CallError> {
                a.param(i, key)
                    .map_or(Ok(default), |arg| Ok(a.as_scalar(arg)?.to_f64()))
            };
            let equal_nan = match a.param(4, "equal_nan") {
                Some(arg) => a.as_bool(arg)?,
                None => false,
            };
            let other = tensor_of(
                ops.get(1)
                    .ok_or_else(|| CallError::Unsupported(format!("{name}: missing other")))?,
            )?;
            isclose(
                &x,
                other,
                tol(2, "rtol", 1e-5)?,
                tol(3, "atol", 1e-8)?,
                equal_nan,
            )
        }
        Op::Equal => {
            a.only_kwargs(&[])?;
            let params = [
                param("input", Number::Unexpressed),
                param("other", Number::Refused),
            ];
            let ops = operands(a, py_name, form, &params)?;
            return Ok(Value::Bool(equal(&x, tensor_of(&ops[1])?)?));
        }
    };
    Ok(Value::Tensor(result?))
}
