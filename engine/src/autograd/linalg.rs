//! The backward of the products: `dot`, `mv`, `mm` (which lays its gradient out column-major
//! for a column-major input, as torch's `mm_mat1_backward` does), `bmm`. `matmul` and
//! `einsum` record the primitives they are made of (reshapes, expansions, these products).

use super::math::{conj, mul};
use super::{below, record, requires_grad, Grads, Node};
use crate::linalg;
use crate::{Result, Tensor};

/// Records a product `out` of `a` and `b` whose gradients are `f(grad, needs)`.
fn record_product(
    name: &'static str,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    f: impl FnOnce(Tensor, &[bool]) -> Result<Grads> + 'static,
) {
    if !requires_grad(a) && !requires_grad(b) {
        return;
    }
    record(
        Node {
            name,
            inputs: vec![Some(a.clone()), Some(b.clone())],
            saved: Vec::new(),
            formula: Box::new(move |grads: Grads, needs: &[bool]| {
                match grads.into_iter().next().flatten() {
                    Some(g) => f(g, needs),
                    None => Ok(vec![None, None]),
                }
            }),
        },
        std::slice::from_ref(out),
    );
}

/// `a` when `need`, else nothing.
fn when(need: bool, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
    if need {
        f().map(Some)
    } else {
        Ok(None)
    }
}

/// `torch.dot(a, b)` recorded.
pub(crate) fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = below(|| linalg::dot(a, b))?;
    let (x, y) = (a.clone(), b.clone());
    record_product("DotBackward0", a, b, &out, move |g, needs| {
        Ok(vec![
            when(needs[0], || mul(&g, conj(&y)?))?,
            when(needs[1], || mul(&g, conj(&x)?))?,
        ])
    });
    Ok(out)
}

/// `torch.mv(m, v)` recorded: `grad.ger(v.conj())` and `m.conj().t().mv(grad)`.
pub(crate) fn mv(m: &Tensor, v: &Tensor) -> Result<Tensor> {
    let out = below(|| linalg::mv(m, v))?;
    let (x, y) = (m.clone(), v.clone());
    record_product("MvBackward0", m, v, &out, move |g, needs| {
        Ok(vec![
            when(needs[0], || {
                let n = g.shape()[0] as i64;
                mul(g.reshape(&[n, 1])?, conj(&y)?)
            })?,
            when(needs[1], || linalg::mv(&conj(&x)?.t()?, &g))?,
        ])
    });
    Ok(out)
}

/// Whether a matrix is laid out column-major (`strides[0] == 1 && strides[1] == sizes[0]`).
fn column_major(shape: &[usize], strides: &[usize]) -> bool {
    strides[0] == 1 && strides[1] == shape[0]
}

/// `torch.mm(a, b)` recorded: `mm_mat1_backward` / `mm_mat2_backward`, which give a
/// column-major input a column-major gradient.
pub(crate) fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = below(|| linalg::mm(a, b))?;
    let (x, y) = (a.clone(), b.clone());
    let (a_cm, b_cm) = (
        column_major(a.shape(), a.strides()),
        column_major(b.shape(), b.strides()),
    );
    record_product("MmBackward0", a, b, &out, move |g, needs| {
        Ok(vec![
            when(needs[0], || {
                if a_cm {
                    linalg::mm(&conj(&y)?, &g.t()?)?.t()
                } else {
                    linalg::mm(&g, &conj(&y.t()?)?)
                }
            })?,
            when(needs[1], || {
                if b_cm {
                    linalg::mm(&g.t()?, &conj(&x)?)?.t()
                } else {
                    linalg::mm(&conj(&x.t()?)?, &g)
                }
            })?,
        ])
    });
    Ok(out)
}

/// `torch.bmm(a, b)` recorded.
pub(crate) fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = below(|| linalg::bmm(a, b))?;
    let (x, y) = (a.clone(), b.clone());
    record_product("BmmBackward0", a, b, &out, move |g, needs| {
        Ok(vec![
            when(needs[0], || linalg::bmm(&g, &conj(&y.transpose(1, 2)?)?))?,
            when(needs[1], || linalg::bmm(&conj(&x.transpose(1, 2)?)?, &g))?,
        ])
    });
    Ok(out)
}
