//! The integer ops (`bitwise_and`, `bitwise_or`, `bitwise_xor`, the shifts, `gcd`, `lcm`) in
//! their Python spellings: `torch.bitwise_and(a, b, out=o)`, `a.bitwise_and(b)`,
//! `a.bitwise_and_(b)`. The bitwise ops take a Python number for either operand (the first
//! only without `out=`); `gcd` and `lcm` refuse numbers with the binding's `TypeError`.

use super::elementwise::{operands, tensor_of, unsupported, Form, Number, Param};
use super::{Args, CallError, Value};
use bcast_engine::autograd::not_differentiable;
use bcast_engine::ops::{bitwise, BitwiseOp};
use bcast_engine::Tensor;

/// Splits `torch.NAME`, `Tensor.NAME` and `Tensor.NAME_` into their form and base name.
pub(super) fn form_of(name: &str) -> Option<(Form, &str)> {
    if let Some(n) = name.strip_prefix("torch.") {
        return Some((Form::Function, n));
    }
    let n = name.strip_prefix("Tensor.")?;
    Some(match n.strip_suffix('_') {
        Some(base) => (Form::InPlace, base),
        None => (Form::Method, n),
    })
}

/// Runs `name` if it is one of the integer ops; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    let (form, base) = form_of(name)?;
    let op = BitwiseOp::from_name(base)?;
    Some(run(name, form, op, a).map(Value::Tensor))
}

fn run(name: &str, form: Form, op: BitwiseOp, a: &Args) -> Result<bcast_engine::Tensor, CallError> {
    a.only_kwargs(&["out"])?;
    let out = match a.kwarg("out") {
        Some(arg) if form == Form::Function => Some(a.as_tensor(arg)?),
        Some(_) => return unsupported(format!("{name}: out= on a method")),
        None => None,
    };
    let (first, second) = if !op.takes_numbers() {
        (Number::Refused, Number::Refused)
    } else if out.is_some() {
        // bitwise_and(Number, Tensor) has no out= overload.
        (Number::Unexpressed, Number::Ok)
    } else {
        (Number::Ok, Number::Ok)
    };
    let params = [
        Param {
            name: "input",
            number: first,
        },
        Param {
            name: "other",
            number: second,
        },
    ];
    let ops = operands(a, op.name(), form, &params)?;
    if ops.iter().all(|o| o.as_tensor().is_none()) {
        return unsupported(format!("{name} of two numbers"));
    }
    let (x, y) = (ops[0].clone(), ops[1].clone());
    // Not differentiable, but torch's autograd wrapper still checks first: an `out=` that
    // requires grad, an in-place call on a leaf that does (before `"bitwise_xor_cpu" not
    // implemented for 'Float'`).
    let tensors: Vec<Tensor> = ops.iter().filter_map(|o| o.as_tensor().cloned()).collect();
    let target = (form == Form::InPlace)
        .then(|| tensor_of(&x))
        .transpose()?
        .cloned();
    let run = || bitwise(op, x.clone(), y.clone(), target.as_ref().or(out.as_ref()));
    Ok(not_differentiable(
        op.name(),
        &tensors,
        target.as_ref(),
        out.as_ref(),
        run,
    )?)
}
