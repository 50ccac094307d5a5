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

/// `torch.einsum(eq, *operands)` or `torch.einsum(eq, [operands])`. Python's wrapper passes
/// no contraction path when opt_einsum is absent (as in the labelling venv).
fn einsum(a: &TchArgs) -> CallResult {
    a.only_kwargs(&[])?;
    let equation = a.as_str(a.get(0).ok_or_else(|| missing("torch.einsum"))?)?;
    let operands = match (a.get(1), a.len()) {
        (Some(Arg::Tensors(_)), 2) => a.tensor_list(1)?,
        (Some(Arg::Tensor(_)) | None, _) => a.tensor_list(1)?,
        _ => return unsupported("torch.einsum: the sublist form exists only in Python"),
    };
    Ok(TchValue::Tensor(Tensor::f_einsum(
        equation,
        &operands,
        None::<Vec<i64>>,
    )?))
}
