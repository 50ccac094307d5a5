//! The calls the foreign-crate adapters map, read from a case: broadcasting binary arithmetic
//! (also in place), the expand family, `broadcast_tensors`, and `sum`. Anything else in a
//! claimed op (an `alpha=`, an `out=`) is a failure of the case, never a guess.

use crate::backend::BackendFailure;
use crate::case::{Arg, Case, Num};

/// A broadcasting binary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// The right-hand side of a binary operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Tensor(String),
    Scalar(Num),
}

/// A call a foreign adapter can express.
#[derive(Debug, Clone, PartialEq)]
pub enum ForeignCall {
    /// `lhs op rhs`; with `inplace`, written into `lhs`.
    Binary {
        op: BinaryOp,
        lhs: String,
        rhs: Operand,
        inplace: bool,
    },
    /// `expand` / `broadcast_to` / `expand_as` to torch's target sizes (`-1` keeps a size).
    Expand { tensor: String, sizes: Vec<i64> },
    /// `torch.broadcast_tensors`.
    BroadcastTensors(Vec<String>),
    /// `sum` over every dim (`None`) or some dims.
    Sum {
        tensor: String,
        dims: Option<Vec<i64>>,
        keepdim: bool,
    },
}

const BINARY: [(&str, BinaryOp); 4] = [
    ("add", BinaryOp::Add),
    ("sub", BinaryOp::Sub),
    ("mul", BinaryOp::Mul),
    ("div", BinaryOp::Div),
];

/// The catalogue ops [`parse_call`] maps, by base name.
const MAPPED: [&str; 5] = [
    "expand",
    "expand_as",
    "broadcast_to",
    "broadcast_tensors",
    "sum",
];

/// Every `fn` name [`parse_call`] maps, from the [op catalogue](crate::ops)'s forms of the ops
/// it knows; `inplace` says whether the in-place methods are in.
///
/// ```
/// use bcast_conformance::backend::foreign::call::mapped_ops;
/// let ops = mapped_ops(true);
/// assert!(ops.contains(&"torch.add".to_string()) && ops.contains(&"Tensor.mul_".to_string()));
/// assert!(ops.contains(&"Tensor.div_".to_string()) && !ops.contains(&"torch.expand".to_string()));
/// assert!(!mapped_ops(false).contains(&"Tensor.mul_".to_string()));
/// ```
pub fn mapped_ops(inplace: bool) -> Vec<String> {
    crate::ops::OPS
        .iter()
        .filter(|op| MAPPED.contains(&op.name) || BINARY.iter().any(|(b, _)| *b == op.name))
        .flat_map(|op| {
            op.forms
                .iter()
                .filter(|&&f| inplace || f != crate::ops::Form::InPlace)
                .filter(|&&f| f != crate::ops::Form::Reflected)
                .map(|&f| op.fn_name(f))
        })
        .collect()
}

fn unsupported<T>(case: &Case, what: &str) -> Result<T, BackendFailure> {
    Err(BackendFailure::bad_input(format!(
        "{}: the adapter cannot express {what}",
        case.call.fn_
    )))
}

fn tensor_name(case: &Case, arg: Option<&Arg>) -> Result<String, BackendFailure> {
    match arg {
        Some(Arg::Tensor(n)) => Ok(n.clone()),
        other => unsupported(
            case,
            &format!("the argument {other:?} (a tensor was expected)"),
        ),
    }
}

fn ints(arg: &Arg) -> Option<Vec<i64>> {
    match arg {
        Arg::Ints(v) | Arg::List(v) | Arg::Tuple(v) | Arg::Size(v) => Some(v.clone()),
        Arg::Int(i) => Some(vec![*i]),
        _ => None,
    }
}

/// torch's size varargs from argument `from` on: `f(t, 2, 3)` or `f(t, (2, 3))`.
fn sizes_from(case: &Case, from: usize) -> Result<Vec<i64>, BackendFailure> {
    let rest = case.call.args.get(from..).unwrap_or_default();
    match rest {
        [one] if !matches!(one, Arg::Int(_)) => ints(one),
        _ => rest
            .iter()
            .map(|a| match a {
                Arg::Int(i) => Some(*i),
                _ => None,
            })
            .collect(),
    }
    .map_or_else(|| unsupported(case, "these sizes"), Ok)
}

/// Reads the call of `case`; a failure names what the adapter cannot express.
pub fn parse_call(case: &Case) -> Result<ForeignCall, BackendFailure> {
    let call = &case.call;
    let name = call.fn_.as_str();
    let kwargs_other_than = |allowed: &[&str]| {
        call.kwargs
            .keys()
            .find(|k| !allowed.contains(&k.as_str()))
            .cloned()
    };
    if let Some(k) = kwargs_other_than(&["keepdim", "dim"]) {
        return unsupported(case, &format!("the keyword argument {k}="));
    }
    let bare = name
        .strip_prefix("torch.")
        .or_else(|| name.strip_prefix("Tensor."));
    let binary = bare.and_then(|b| {
        let (b, inplace) = match b.strip_suffix('_') {
            Some(b) => (b, true),
            None => (b, false),
        };
        BINARY
            .iter()
            .find(|(n, _)| *n == b)
            .map(|(_, op)| (*op, inplace))
    });
    if let Some((op, inplace)) = binary {
        if inplace && !name.starts_with("Tensor.") {
            return unsupported(case, "this op");
        }
        let lhs = tensor_name(case, call.args.first())?;
        let rhs = match call.args.get(1) {
            Some(Arg::Tensor(n)) => Operand::Tensor(n.clone()),
            Some(Arg::Int(i)) => Operand::Scalar(Num::Int(*i)),
            Some(Arg::Float(f)) => Operand::Scalar(*f),
            Some(Arg::Bool(b)) => Operand::Scalar(Num::Bool(*b)),
            other => return unsupported(case, &format!("the operand {other:?}")),
        };
        if call.args.len() > 2 {
            return unsupported(case, "extra arguments");
        }
        return Ok(ForeignCall::Binary {
            op,
            lhs,
            rhs,
            inplace,
        });
    }
    match name {
        "Tensor.expand" | "Tensor.broadcast_to" | "torch.broadcast_to" => Ok(ForeignCall::Expand {
            tensor: tensor_name(case, call.args.first())?,
            sizes: sizes_from(case, 1)?,
        }),
        "Tensor.expand_as" => {
            let other = tensor_name(case, call.args.get(1))?;
            let spec = case
                .tensors
                .get(&other)
                .map_or_else(|| unsupported(case, "an unknown tensor"), Ok)?;
            Ok(ForeignCall::Expand {
                tensor: tensor_name(case, call.args.first())?,
                sizes: spec.shape.iter().map(|&d| d as i64).collect(),
            })
        }
        "torch.broadcast_tensors" => {
            let names = match call.args.as_slice() {
                [Arg::Tensors(ns)] => ns.clone(),
                args => args
                    .iter()
                    .map(|a| tensor_name(case, Some(a)))
                    .collect::<Result<_, _>>()?,
            };
            Ok(ForeignCall::BroadcastTensors(names))
        }
        "torch.sum" | "Tensor.sum" => {
            let tensor = tensor_name(case, call.args.first())?;
            let dim = call.args.get(1).or_else(|| call.kwargs.get("dim"));
            let dims = match dim {
                None | Some(Arg::None(())) => None,
                Some(a) => Some(ints(a).map_or_else(|| unsupported(case, "this dim"), Ok)?),
            };
            let keepdim = match call.args.get(2).or_else(|| call.kwargs.get("keepdim")) {
                None => false,
                Some(Arg::Bool(b)) => *b,
                Some(other) => return unsupported(case, &format!("keepdim={other:?}")),
            };
            Ok(ForeignCall::Sum {
                tensor,
                dims,
                keepdim,
            })
        }
        _ => unsupported(case, "this op"),
    }
}

/// torch's expand target for an input of shape `input`: `-1` keeps a size, and is not allowed
/// in a new leading dim; other negative sizes are rejected. `Err` holds the message of an
/// error outcome.
///
/// ```
/// use bcast_conformance::backend::foreign::call::expand_target;
/// assert_eq!(expand_target(&[3, 1], &[2, -1, 4]), Ok(vec![2, 3, 4]));
/// assert!(expand_target(&[3], &[-1, 3]).is_err());
/// assert!(expand_target(&[3, 1], &[1]).is_err());
/// ```
pub fn expand_target(input: &[usize], sizes: &[i64]) -> Result<Vec<usize>, String> {
    let lead = sizes
        .len()
        .checked_sub(input.len())
        .ok_or_else(|| format!("cannot expand {input:?} to fewer dims {sizes:?}"))?;
    sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| match s {
            -1 if i < lead => Err(format!("-1 in the new leading dim {i} of {sizes:?}")),
            -1 => Ok(input[i - lead]),
            s => usize::try_from(s).map_err(|_| format!("negative size {s} in {sizes:?}")),
        })
        .collect()
}

/// A dim in `0..ndim` from torch's possibly negative dim.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if (0..n).contains(&d) {
        Ok(d as usize)
    } else {
        Err(format!("dim {dim} is out of range for {ndim} dims"))
    }
}
