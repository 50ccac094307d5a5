//! Element-wise ops: unary, binary arithmetic, comparisons and logical ops, `where` and
//! `copy_`, in their Python spellings (`torch.add(a, b, alpha=2, out=o)`, `a.add(b)`,
//! `a.add_(b)`), including which arguments Python lets be numbers. Where torch's Python
//! binding refuses a number with `argument 'other' (position 2) must be Tensor, not int`,
//! so does this; calls refused with a list of overloads are not expressed.

use super::{Args, CallError, Value};
use crate::case::Arg;
use bcast_engine::autograd::{check_autograd_call, not_differentiable};
use bcast_engine::ops::{
    binary, binary_, compare, compare_, copy_, r#where, round_decimals, round_decimals_, unary,
    unary_, BinaryOp, CompareOp, Operand, UnaryOp,
};
use bcast_engine::{Error, Tensor};

/// How a call is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `torch.NAME(...)`.
    Function,
    /// `x.NAME(...)`.
    Method,
    /// `x.NAME_(...)`.
    InPlace,
}

/// The op families of this module.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare(CompareOp),
    Where,
    Copy,
}

fn parse(name: &str) -> Option<(Form, Op)> {
    let (form, base) = if let Some(n) = name.strip_prefix("torch.") {
        (Form::Function, n)
    } else if let Some(n) = name.strip_prefix("Tensor.") {
        match n.strip_suffix('_') {
            Some(b) => (Form::InPlace, b),
            None => (Form::Method, n),
        }
    } else {
        return None;
    };
    let op = if let Some(op) = UnaryOp::from_name(base) {
        Op::Unary(op)
    } else if let Some(op) = BinaryOp::from_name(base) {
        Op::Binary(op)
    } else if let Some(op) = CompareOp::from_name(base) {
        Op::Compare(op)
    } else if base == "where" && form != Form::InPlace {
        Op::Where
    } else if base == "copy" && form == Form::InPlace {
        Op::Copy
    } else {
        return None;
    };
    if let Op::Binary(b) = op
        && !binary_has_form(b, form)
    {
        return None;
    }
    Some((form, op))
}

/// Whether Python has this form of a binary op: no in-place `maximum`, `minimum`, `fmax`,
/// `fmin`, `logaddexp`, `logaddexp2`; `rsub` and the `torch.special` ops are functions only.
fn binary_has_form(op: BinaryOp, form: Form) -> bool {
    let no_in_place = matches!(
        op,
        BinaryOp::Maximum
            | BinaryOp::Minimum
            | BinaryOp::Fmax
            | BinaryOp::Fmin
            | BinaryOp::Logaddexp
            | BinaryOp::Logaddexp2
    );
    let function_only = matches!(op, BinaryOp::Rsub(_) | BinaryOp::Xlog1py | BinaryOp::Zeta);
    match form {
        Form::Function => true,
        Form::Method => !function_only,
        Form::InPlace => !function_only && !no_in_place,
    }
}

/// What Python's binding does with a number for each operand of a binary op: `(first,
/// second, both)`, `both` saying whether two numbers are taken (checked in torch 2.13.0).
fn binary_numbers(op: BinaryOp, with_out: bool) -> (Number, Number, bool) {
    use Number::*;
    match op {
        BinaryOp::Maximum
        | BinaryOp::Minimum
        | BinaryOp::Fmax
        | BinaryOp::Fmin
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::Nextafter
        | BinaryOp::Ldexp
        | BinaryOp::Logaddexp
        | BinaryOp::Logaddexp2
        | BinaryOp::Heaviside => (Refused, Refused, false),
        // Their Scalar overloads take the number second only.
        BinaryOp::Fmod | BinaryOp::Copysign | BinaryOp::Rsub(_) => (Unexpressed, Ok, false),
        // remainder(Number, Tensor) has no out= overload.
        BinaryOp::Remainder if with_out => (Unexpressed, Ok, false),
        BinaryOp::Pow
        | BinaryOp::Remainder
        | BinaryOp::Xlogy
        | BinaryOp::Xlog1py
        | BinaryOp::Zeta
        | BinaryOp::FloatPower => (Ok, Ok, false),
        _ => (Ok, Ok, true),
    }
}

/// `torch.max(a, b)` and `torch.min(a, b)` (and the methods): with two tensors they are
/// `maximum` and `minimum`. Their reduction forms (one tensor, or a dim) are not element-wise.
fn max_min_of_two(name: &str, a: &Args) -> Option<(Form, Op)> {
    let op = match name {
        "torch.max" | "Tensor.max" => BinaryOp::Maximum,
        "torch.min" | "Tensor.min" => BinaryOp::Minimum,
        _ => return None,
    };
    let both_tensors = a.len() == 2 && (0..2).all(|i| matches!(a.get(i), Some(Arg::Tensor(_))));
    let form = if name.starts_with("torch.") {
        Form::Function
    } else {
        Form::Method
    };
    both_tensors.then_some((form, Op::Binary(op)))
}

/// Runs `name` if it is an element-wise op; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    let (form, op) = parse(name).or_else(|| max_min_of_two(name, a))?;
    Some(run(name, form, op, a).map(Value::Tensor))
}

/// The Python type name of a number argument, as torch's binding prints it.
fn py_type(arg: &Arg) -> Option<&'static str> {
    match arg {
        Arg::Int(_) => Some("int"),
        Arg::Float(_) => Some("float"),
        Arg::Bool(_) => Some("bool"),
        Arg::Complex(_) => Some("complex"),
        _ => None,
    }
}

/// What torch's Python binding does with a number passed for a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Number {
    /// Wraps it as a 0-d tensor.
    Ok,
    /// `TypeError: NAME(): argument 'other' (position 2) must be Tensor, not int`.
    Refused,
    /// Refused with the list of overloads: not expressed here.
    Unexpressed,
}

/// One positional parameter of the Python signature.
pub(super) struct Param {
    pub(super) name: &'static str,
    pub(super) number: Number,
}

pub(super) fn unsupported<T>(msg: String) -> Result<T, CallError> {
    Err(CallError::Unsupported(msg))
}

/// Resolves positional arguments against the Python signature: tensors and (where allowed)
/// numbers; a refused number raises the binding's `TypeError`, naming the first bad one.
/// Methods do not count `self` among the positions.
pub(super) fn operands(
    a: &Args,
    fn_name: &str,
    form: Form,
    params: &[Param],
) -> Result<Vec<Operand>, CallError> {
    if a.len() != params.len() {
        return unsupported(format!("{fn_name}: expected {} arguments", params.len()));
    }
    leading_operands(a, fn_name, form, params)
}

/// [`operands`] for the first `params.len()` positional arguments, the rest left to the caller
/// (`isclose(a, b, rtol, atol)`).
pub(super) fn leading_operands(
    a: &Args,
    fn_name: &str,
    form: Form,
    params: &[Param],
) -> Result<Vec<Operand>, CallError> {
    if a.len() < params.len() {
        return unsupported(format!("{fn_name}: expected {} arguments", params.len()));
    }
    let mut out = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let arg = a
            .get(i)
            .ok_or_else(|| CallError::Unsupported(format!("{fn_name}: missing argument {i}")))?;
        if let Arg::Tensor(_) = arg {
            out.push(Operand::Tensor(a.as_tensor(arg)?));
            continue;
        }
        let Some(ty) = py_type(arg) else {
            return unsupported(format!("{fn_name}: argument {i} is {arg:?}"));
        };
        if form != Form::Function && i == 0 {
            return unsupported(format!("{fn_name}: a number as self"));
        }
        match p.number {
            Number::Ok => out.push(Operand::Number(a.as_scalar(arg)?)),
            Number::Unexpressed => {
                return unsupported(format!("{fn_name}: a number for {}", p.name))
            }
            Number::Refused => {
                let position = if form == Form::Function { i + 1 } else { i };
                return Err(CallError::Engine(Error::type_error(format!(
                    "{fn_name}(): argument '{}' (position {position}) must be Tensor, not {ty}",
                    p.name
                ))));
            }
        }
    }
    Ok(out)
}

/// The Python name of a binary op's second parameter.
fn second_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Pow | BinaryOp::FloatPower => "exponent",
        BinaryOp::Heaviside => "values",
        _ => "other",
    }
}

pub(super) fn tensor_of(op: &Operand) -> Result<&Tensor, CallError> {
    op.as_tensor()
        .ok_or_else(|| CallError::Unsupported("expected a tensor".into()))
}

fn run(name: &str, form: Form, op: Op, a: &Args) -> Result<Tensor, CallError> {
    let py_name = name
        .trim_start_matches("torch.")
        .trim_start_matches("Tensor.");
    let out = match a.kwarg("out") {
        Some(arg) if form == Form::Function => Some(a.as_tensor(arg)?),
        Some(_) => return unsupported(format!("{name}: out= on a method")),
        None => None,
    };
    let allowed: &[&str] = match op {
        Op::Binary(BinaryOp::Add(_) | BinaryOp::Sub(_)) => &["out", "alpha"],
        Op::Binary(BinaryOp::Rsub(_)) if out.is_none() => &["alpha"],
        Op::Binary(BinaryOp::Div) if matches!(py_name, "div" | "div_" | "divide" | "divide_") => {
            &["out", "rounding_mode"]
        }
        Op::Unary(UnaryOp::Round) => &["out", "decimals"],
        _ => &["out"],
    };
    a.only_kwargs(allowed)?;
    let p = |name: &'static str, number: Number| Param { name, number };
    let result = match op {
        Op::Unary(u) => {
            let ops = operands(a, py_name, form, &[p("input", Number::Refused)])?;
            let x = tensor_of(&ops[0])?;
            let decimals = a.kwarg("decimals").map(|d| a.as_int(d)).transpose()?;
            match (form, decimals) {
                (Form::InPlace, Some(d)) => round_decimals_(x, d),
                (_, Some(d)) => round_decimals(x, d, out.as_ref()),
                (Form::InPlace, None) => unary_(u, x),
                (_, None) => unary(u, x, out.as_ref()),
            }
        }
        Op::Binary(b) => {
            let b = match (b, a.kwarg("rounding_mode")) {
                (BinaryOp::Div, Some(arg)) => match BinaryOp::div_with_mode(Some(a.as_str(arg)?)) {
                    Ok(b) => b,
                    Err(e) => {
                        // torch's autograd checks `out=` and a written leaf before the kernel
                        // reads the mode.
                        let tensors: Vec<Tensor> = (0..a.len())
                            .filter_map(|i| match a.get(i) {
                                Some(arg @ Arg::Tensor(_)) => a.as_tensor(arg).ok(),
                                _ => None,
                            })
                            .collect();
                        let target = (form == Form::InPlace).then(|| tensors.first()).flatten();
                        check_autograd_call("div", &tensors, target, out.as_ref())?;
                        return Err(e.into());
                    }
                },
                (b, _) => b,
            };
            let (first, second, both) = binary_numbers(b, out.is_some());
            let params = [p("input", first), p(second_name(b), second)];
            let ops = operands(a, py_name, form, &params)?;
            if !both && ops.iter().all(|o| o.as_tensor().is_none()) {
                return unsupported(format!("{name} of two numbers"));
            }
            let b = match a.kwarg("alpha") {
                Some(arg) => b
                    .with_alpha(a.as_scalar(arg)?)
                    .ok_or_else(|| CallError::Unsupported("alpha".into()))?,
                None => b,
            };
            let (x, y) = (ops[0].clone(), ops[1].clone());
            let self_ = tensor_of(&x).ok().cloned();
            let run = || match (form, &self_) {
                (Form::InPlace, Some(s)) => binary_(b, s, y.clone()),
                _ => binary(b, x.clone(), y.clone(), out.as_ref()),
            };
            // floor_divide is the engine's div(rounding_mode='floor'), which torch's autograd
            // differentiates; floor_divide it does not.
            match py_name.strip_prefix("floor_divide") {
                Some(tail) => {
                    let aten = if tail.is_empty() {
                        "floor_divide"
                    } else {
                        "floor_divide_"
                    };
                    let tensors: Vec<Tensor> =
                        ops.iter().filter_map(|o| o.as_tensor().cloned()).collect();
                    let target = (form == Form::InPlace).then(|| tensor_of(&x)).transpose()?;
                    not_differentiable(aten, &tensors, target, out.as_ref(), run)
                }
                None => run(),
            }
        }
        Op::Compare(c) => {
            let params = if c.is_logical() {
                [p("input", Number::Refused), p("other", Number::Refused)]
            } else {
                [p("input", Number::Unexpressed), p("other", Number::Ok)]
            };
            let ops = operands(a, py_name, form, &params)?;
            let (x, y) = (ops[0].clone(), ops[1].clone());
            match form {
                Form::InPlace => compare_(c, tensor_of(&x)?, y),
                _ => compare(c, x, y, out.as_ref()),
            }
        }
        Op::Where => {
            // torch.where(condition, input, other); x.where(condition, other) is
            // torch.where(condition, x, other). The out= overload takes tensors only.
            let number = if out.is_none() {
                Number::Ok
            } else {
                Number::Refused
            };
            let ops = if form == Form::Method {
                let params = [
                    p("self", Number::Unexpressed),
                    p("condition", Number::Unexpressed),
                    p("other", Number::Ok),
                ];
                let ops = operands(a, py_name, form, &params)?;
                vec![ops[1].clone(), ops[0].clone(), ops[2].clone()]
            } else {
                let params = [
                    p("condition", Number::Unexpressed),
                    p("input", number),
                    p("other", number),
                ];
                operands(a, py_name, form, &params)?
            };
            let cond = tensor_of(&ops[0])?;
            r#where(cond, ops[1].clone(), ops[2].clone(), out.as_ref())
        }
        Op::Copy => {
            let params = [p("self", Number::Unexpressed), p("src", Number::Ok)];
            let ops = operands(a, py_name, form, &params)?;
            copy_(tensor_of(&ops[0])?, ops[1].clone())
        }
    };
    Ok(result?)
}
