//! Products: `matmul` (with `out=`), `mm`, `bmm`, `mv`, `dot`, and `einsum`.

use super::{unsupported, CallResult, TchArgs, TchCallError, TchValue};
use crate::case::Arg;
use tch::{TchError, Tensor};

type Product = (
    fn(&Tensor, &Tensor) -> Result<Tensor, TchError>,
    fn(&Tensor, &Tensor, &Tensor) -> Result<Tensor, TchError>,
);

/// The plain and `(self, out, other)` forms of a product.
fn product(name: &str) -> Option<Product> {
    Some(match name {
        "matmul" => (Tensor::f_matmul, Tensor::f_matmul_out),
        "mm" => (Tensor::f_mm, Tensor::f_mm_out),
        "bmm" => (Tensor::f_bmm, Tensor::f_bmm_out),
        "mv" => (Tensor::f_mv, Tensor::f_mv_out),
        "dot" => (Tensor::f_dot, Tensor::f_dot_out),
        _ => return None,
    })
}

/// Runs `name` if it is a product; `None` when it is not.
pub fn dispatch(name: &str, a: &TchArgs) -> Option<CallResult> {
    if name == "torch.einsum" {
        return Some(einsum(a));
    }
    let (method, base) = match name.split_once('.')? {
        ("torch", base) => (false, base),
        ("Tensor", base) => (true, base),
        _ => return None,
    };
    let (plain, with_out) = product(base)?;
    Some((|| {
        a.only_kwargs(&["input", "other", "out"])?;
        let x = a.tensor(0)?;
        let y = a.as_tensor(a.param(1, "other").ok_or_else(|| missing(name))?)?;
        let result = match a.kwarg("out") {
            None => plain(&x, &y),
            Some(_) if method => {
                return unsupported(format!(
                    "Python-only: {name} raises TypeError in Python's argument parser (a method takes no out=)"
                ))
            }
            Some(arg) => with_out(&x, &a.as_tensor(arg)?, &y),
        };
        Ok(TchValue::Tensor(result?))
    })())
}

fn missing(name: &str) -> TchCallError {
    TchCallError::Unsupported(format!("{name}: missing argument"))
}

/// `torch.einsum(eq, *operands)`, `torch.einsum(eq, [operands])`, or the sublist format
/// `torch.einsum(x, [0, 1], y, [1, 2], [0, 2])`, which Python turns into an equation before
/// calling ATen (`sublist_equation`). Python's wrapper passes no contraction path when
/// opt_einsum is absent (as in the labelling venv).
fn einsum(a: &TchArgs) -> CallResult {
    a.only_kwargs(&[])?;
    let first = a.get(0).ok_or_else(|| missing("torch.einsum"))?;
    let (equation, operands) = match first {
        Arg::Tensor(_) => {
            let args: Vec<&Arg> = (0..a.len()).filter_map(|i| a.get(i)).collect();
            let has_output = args.len() % 2 == 1;
            let end = if has_output {
                args.len() - 1
            } else {
                args.len()
            };
            let mut lists = Vec::new();
            for s in args[1..end].iter().step_by(2) {
                lists.push(a.as_ints(s)?);
            }
            let output = match has_output {
                true => Some(a.as_ints(args[end])?),
                false => None,
            };
            let Some(equation) = sublist_equation(&lists, output.as_deref()) else {
                return unsupported(
                    "Python-only: torch.einsum raises ValueError for a subscript outside [0, 52)",
                );
            };
            let mut operands = Vec::new();
            for t in args[..end].iter().step_by(2) {
                operands.push(a.as_tensor(t)?);
            }
            (equation, operands)
        }
        _ => {
            let equation = a.as_str(first)?.to_string();
            let operands = match (a.get(1), a.len()) {
                (Some(Arg::Tensors(_)), 2) => a.tensor_list(1)?,
                (Some(Arg::Tensor(_)) | None, _) => a.tensor_list(1)?,
                _ => {
                    return unsupported(
                        "torch.einsum: operands that are neither tensors nor one list",
                    )
                }
            };
            (equation, operands)
        }
    };
    Ok(TchValue::Tensor(Tensor::f_einsum(
        &equation,
        &operands,
        None::<Vec<i64>>,
    )?))
}

/// The equation Python's `torch.einsum` makes of subscript lists (torch/functional.py,
/// `parse_subscript`): 0-25 are `A`-`Z`, 26-51 are `a`-`z`; `None` for a subscript outside
/// [0, 52), where Python raises `ValueError` before reaching ATen. Written here from
/// torch's source, apart from the engine's own conversion, so the two check each other.
fn sublist_equation(inputs: &[Vec<i64>], output: Option<&[i64]>) -> Option<String> {
    let letter = |n: i64| match n {
        0..=25 => Some(char::from(b'A' + n as u8)),
        26..=51 => Some(char::from(b'a' + (n - 26) as u8)),
        _ => None,
    };
    let word = |list: &[i64]| list.iter().map(|&n| letter(n)).collect::<Option<String>>();
    let mut equation = inputs
        .iter()
        .map(|l| word(l))
        .collect::<Option<Vec<String>>>()?
        .join(",");
    if let Some(out) = output {
        equation.push_str("->");
        equation.push_str(&word(out)?);
    }
    Some(equation)
}
