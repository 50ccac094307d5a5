//! Products: `matmul` (function and method, and the `@` the documents write), the primitives
//! `mm`, `bmm`, `mv`, `dot`, and `torch.einsum` with Python's argument forms (operands as
//! varargs or one list, or the sublist format).

use super::{Args, CallError, Value};
use crate::case::Arg;
use bcast_engine::{linalg, Error, Tensor};

/// Runs `name` if it is a product; `None` when it is not.
pub fn dispatch(name: &str, a: &Args) -> Option<Result<Value, CallError>> {
    let op = name
        .strip_prefix("torch.")
        .or_else(|| name.strip_prefix("Tensor."))?;
    let binary: fn(&Tensor, &Tensor) -> bcast_engine::Result<Tensor> = match op {
        "matmul" => linalg::matmul,
        "mm" => linalg::mm,
        "bmm" => linalg::bmm,
        "mv" => linalg::mv,
        "dot" => linalg::dot,
        "einsum" if name.starts_with("torch.") => return Some(einsum(a).map(Value::Tensor)),
        _ => return None,
    };
    Some((|| {
        a.only_kwargs(&[])?;
        Ok(Value::Tensor(binary(&a.tensor(0)?, &a.tensor(1)?)?))
    })())
}

/// `torch.einsum(*args)`: the Python wrapper's argument handling, then the engine's einsum.
fn einsum(a: &Args) -> Result<Tensor, CallError> {
    a.only_kwargs(&[])?;
    let args: Vec<&Arg> = (0..a.len()).filter_map(|i| a.get(i)).collect();
    einsum_args(a, &args)
}

fn einsum_args(a: &Args, args: &[&Arg]) -> Result<Tensor, CallError> {
    if args.len() < 2 {
        return Err(Error::value(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list",
        )
        .into());
    }
    if let Arg::Tensor(_) = args[0] {
        // The sublist format: operand, subscripts, operand, subscripts, ..., [output].
        let inputs = args[1..]
            .iter()
            .step_by(2)
            .map(|s| a.as_ints(s))
            .collect::<Result<Vec<_>, _>>()?;
        let has_output = args.len() % 2 == 1;
        let output = if has_output {
            Some(a.as_ints(args[args.len() - 1])?)
        } else {
            None
        };
        let equation = linalg::einsum_sublist_equation(&inputs, output.as_deref())?;
        let end = if has_output {
            args.len() - 1
        } else {
            args.len()
        };
        let operands = args[..end]
            .iter()
            .step_by(2)
            .map(|t| a.as_tensor(t))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(linalg::einsum(&equation, &operands)?);
    }
    let equation = a.as_str(args[0])?;
    if let [Arg::Tensors(names)] = &args[1..] {
        let list: Vec<Arg> = names.iter().map(|n| Arg::Tensor(n.clone())).collect();
        let mut inner: Vec<&Arg> = vec![args[0]];
        inner.extend(list.iter());
        return einsum_args(a, &inner);
    }
    let operands = args[1..]
        .iter()
        .map(|t| a.as_tensor(t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(linalg::einsum(equation, &operands)?)
}
