//! The backward of the ops of a tensor and its bounds, weights or factors: `clamp` (with
//! number or tensor bounds, and `clamp_min`/`clamp_max`), `lerp`, `addcmul`, `addcdiv`.

use super::elementwise::{operand_requires, record_inplace_bump};
use super::math::{cmp, conj, handle_r_to_c, mul, neg, scalar_zero, select, sub};
use super::{below, check_inplace, out_error, record, record_inplace, requires_grad, saved};
use super::{Grads, Node};
use crate::ops::{self, binary_, AddcOp, BinaryOp, CompareOp, Operand};
use crate::{DType, Result, Scalar, Tensor};

/// `empty_like(t).fill_(s)`: `fill_` converts `s` to `t`'s dtype with its overflow check
/// (`value cannot be converted to type c10::BFloat16 without overflow` for `1e300`).
fn filled_like(s: Scalar, t: &Tensor) -> Result<Tensor> {
    check_fill(s, t)?;
    let e = t.empty_like(t.dtype())?;
    ops::copy_(&e, s)?;
    Ok(e)
}

/// The overflow check of torch's `fill_(s)` on `t`: [`Scalar::check_fits`] of `t`'s dtype,
/// except where `fill_` converts otherwise. A one-element `float16` or `bfloat16` tensor
/// takes the number through `double` (its one-element path: `1e30` fills `inf`, and only a
/// complex number with an imaginary part fails, naming `double`); a `complex32` tensor of
/// any other size takes it through `complex<float>` (`1e30` fills `inf`, `1e300` fails).
fn check_fill(s: Scalar, t: &Tensor) -> Result<()> {
    match t.dtype() {
        DType::Float16 | DType::BFloat16 if t.numel() == 1 => s.check_fits(DType::Float64),
        DType::Complex32 if t.numel() != 1 => s.check_fits(DType::Complex64),
        dtype => s.check_fits(dtype),
    }
}

/// `s - t` as torch's C++ operator writes a number minus a tensor:
/// `empty_like(t).fill_(s).sub_(t)`, in `t`'s dtype.
fn number_minus(s: Scalar, t: &Tensor) -> Result<Tensor> {
    let e = filled_like(s, t)?;
    binary_(BinaryOp::Sub(Scalar::Int(1)), &e, t)
}

/// `s / t` as torch's C++ operator writes it: `empty_like(t).fill_(s).div_(t)`, in `t`'s
/// dtype (an integer `t` raises: `result type Float can't be cast to the desired output
/// type Long`).
fn number_over(s: Scalar, t: &Tensor) -> Result<Tensor> {
    let e = filled_like(s, t)?;
    binary_(BinaryOp::Div, &e, t)
}

/// The saved tensors of `inputs` for an in-place op's version check.
fn saved_all(inputs: &[&Tensor]) -> Vec<super::graph::Saved> {
    inputs.iter().map(|t| saved(t)).collect()
}

// ---------------------------------------------------------------------------------------
// clamp

/// A bound of `clamp`: none, a number, or a tensor.
fn bound_grads(
    g: &Tensor,
    x: &Tensor,
    lo: Option<&Operand>,
    hi: Option<&Operand>,
) -> Result<Tensor> {
    let zero = scalar_zero(g.dtype());
    match (lo, hi) {
        (Some(lo), Some(hi)) => {
            let pred = cmp(CompareOp::Ge, x, lo.clone())?;
            let pred = ops::compare(
                CompareOp::LogicalAnd,
                &pred,
                cmp(CompareOp::Le, x, hi.clone())?,
                Some(&pred),
            )?;
            select(&pred, g, zero)
        }
        (Some(lo), None) => select(&cmp(CompareOp::Ge, x, lo.clone())?, g, zero),
        (None, Some(hi)) => select(&cmp(CompareOp::Le, x, hi.clone())?, g, zero),
        (None, None) => Ok(g.clone()),
    }
}

/// `clamp_backward_min_max`: the gradients of tensor bounds.
fn min_max_grads(
    g: &Tensor,
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
    needs: (bool, bool),
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let zero = || scalar_zero(g.dtype());
    match (lo, hi) {
        (Some(lo), Some(hi)) => {
            let gl = if needs.0 {
                let pred = cmp(CompareOp::Lt, x, lo)?;
                let pred = ops::compare(
                    CompareOp::LogicalAnd,
                    &pred,
                    cmp(CompareOp::Lt, lo, hi)?,
                    Some(&pred),
                )?;
                Some(select(&pred, g, zero())?)
            } else {
                None
            };
            let gh = if needs.1 {
                let pred = cmp(CompareOp::Gt, x, hi)?;
                let pred = ops::compare(
                    CompareOp::LogicalOr,
                    &pred,
                    cmp(CompareOp::Lt, hi, lo)?,
                    Some(&pred),
                )?;
                Some(select(&pred, g, zero())?)
            } else {
                None
            };
            Ok((gl, gh))
        }
        (Some(lo), None) if needs.0 => {
            Ok((Some(select(&cmp(CompareOp::Lt, x, lo)?, g, zero())?), None))
        }
        (None, Some(hi)) if needs.1 => {
            Ok((None, Some(select(&cmp(CompareOp::Gt, x, hi)?, g, zero())?)))
        }
        _ => Ok((None, None)),
    }
}

/// The node of `clamp` with number bounds (`ClampBackward1`).
fn clamp_numbers_node(
    x: &Tensor,
    original: Tensor,
    lo: Option<Scalar>,
    hi: Option<Scalar>,
) -> Node {
    Node {
        name: "ClampBackward1",
        inputs: vec![Some(x.clone())],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, _: &[bool]| {
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None]);
            };
            let (lo, hi) = (lo.map(Operand::Number), hi.map(Operand::Number));
            Ok(vec![Some(bound_grads(
                &g,
                &original,
                lo.as_ref(),
                hi.as_ref(),
            )?)])
        }),
    }
}

/// `torch.clamp(x, min, max, out=out)` with number bounds, recorded; `aten` names the op
/// for `out=`'s error (`clamp`, `clamp_min`, `clamp_max`).
pub(crate) fn clamp_numbers(
    x: &Tensor,
    lo: Option<Scalar>,
    hi: Option<Scalar>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let any = requires_grad(x);
    if let Some(o) = out {
        if any || requires_grad(o) {
            return Err(out_error(aten_override().unwrap_or("clamp")));
        }
        return below(|| ops::clamp_numbers(x, lo, hi, out));
    }
    let result = below(|| ops::clamp_numbers(x, lo, hi, None))?;
    if any {
        record(
            clamp_numbers_node(x, x.clone(), lo, hi),
            std::slice::from_ref(&result),
        );
    }
    Ok(result)
}

/// `x.clamp_(min, max)` with number bounds, recorded.
pub(crate) fn clamp_numbers_(x: &Tensor, lo: Option<Scalar>, hi: Option<Scalar>) -> Result<Tensor> {
    check_inplace(x)?;
    let any = requires_grad(x);
    let original = if any {
        Some(below(|| x.clone_tensor())?)
    } else {
        None
    };
    let result = below(|| ops::clamp_numbers_(x, lo, hi))?;
    match original {
        Some(o) => record_inplace(clamp_numbers_node(x, o, lo, hi), x),
        None => record_inplace_bump(x),
    }
    Ok(result)
}

/// The ATen name for `out=`'s error set by [`with_aten_name`].
fn aten_override() -> Option<&'static str> {
    ATEN.with(std::cell::Cell::get)
}

thread_local! {
    static ATEN: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with `aten` as the name torch's `out=` error gives an op whose engine function
/// several ATen ops share (`clamp_min(x, 2, out=o)` is the engine's `clamp` with a lower
/// bound, and its error says `clamp_min()`).
pub fn with_aten_name<R>(aten: &'static str, f: impl FnOnce() -> R) -> R {
    if !super::recording() {
        return f();
    }
    let was = ATEN.with(|a| a.replace(Some(aten)));
    let r = f();
    ATEN.with(|a| a.set(was));
    r
}

/// The node of `clamp` with tensor bounds: `ClampBackward0`, or `ClampMinBackward1` /
/// `ClampMaxBackward1` for `clamp_min`/`clamp_max` (`is_clamp` false).
fn clamp_tensors_node(
    x: &Tensor,
    original: Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
    is_clamp: bool,
) -> Node {
    let name = match (is_clamp, lo.is_some()) {
        (true, _) => "ClampBackward0",
        (false, true) => "ClampMinBackward1",
        (false, false) => "ClampMaxBackward1",
    };
    let (lo, hi) = (lo.cloned(), hi.cloned());
    let mut inputs = vec![Some(x.clone())];
    if is_clamp {
        inputs.push(lo.clone());
        inputs.push(hi.clone());
    } else {
        inputs.push(lo.clone().or_else(|| hi.clone()));
    }
    Node {
        name,
        inputs,
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            let n = needs.len();
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None; n]);
            };
            let (lo_op, hi_op) = (
                lo.clone().map(Operand::Tensor),
                hi.clone().map(Operand::Tensor),
            );
            let want = if is_clamp {
                (needs[1], needs[2])
            } else {
                (needs[1] && lo.is_some(), needs[1] && hi.is_some())
            };
            // The bounds' gradients first, as torch's `ClampBackward0` computes them (so where
            // both raise, the error is the bounds' one).
            let (gl, gh) = min_max_grads(&g, &original, lo.as_ref(), hi.as_ref(), want)?;
            let gx = if needs[0] {
                Some(bound_grads(&g, &original, lo_op.as_ref(), hi_op.as_ref())?)
            } else {
                None
            };
            Ok(if is_clamp {
                vec![gx, gl, gh]
            } else {
                vec![gx, gl.or(gh)]
            })
        }),
    }
}

/// `torch.clamp(x, min, max, out=out)` with tensor bounds (`clamp_min`/`clamp_max` when
/// `check_complex` is false), recorded.
pub(crate) fn clamp_tensors(
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
    out: Option<&Tensor>,
    check_complex: bool,
) -> Result<Tensor> {
    let any = requires_grad(x) || lo.is_some_and(requires_grad) || hi.is_some_and(requires_grad);
    if let Some(o) = out {
        if any || requires_grad(o) {
            let aten = match (check_complex, lo.is_some()) {
                (true, _) => "clamp",
                (false, true) => "clamp_min",
                (false, false) => "clamp_max",
            };
            return Err(out_error(aten));
        }
        return below(|| ops::clamp_tensors(x, lo, hi, out, check_complex));
    }
    let result = below(|| ops::clamp_tensors(x, lo, hi, None, check_complex))?;
    if any {
        let node = clamp_tensors_node(x, x.clone(), lo, hi, check_complex);
        record(node, std::slice::from_ref(&result));
    }
    Ok(result)
}

/// `x.clamp_(min, max)` with tensor bounds, recorded: the bounds are saved (a bound that is
/// `x` itself is found written on the backward).
pub(crate) fn clamp_tensors_(
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
    check_complex: bool,
) -> Result<Tensor> {
    check_inplace(x)?;
    let any = requires_grad(x) || lo.is_some_and(requires_grad) || hi.is_some_and(requires_grad);
    let original = if any {
        Some(below(|| x.clone_tensor())?)
    } else {
        None
    };
    let bounds: Vec<&Tensor> = hi.into_iter().chain(lo).collect();
    let saved = saved_all(&bounds);
    let result = below(|| ops::clamp_tensors_(x, lo, hi, check_complex))?;
    match original {
        Some(o) => {
            let mut node = clamp_tensors_node(x, o, lo, hi, check_complex);
            node.saved = saved;
            record_inplace(node, x);
        }
        None => record_inplace_bump(x),
    }
    Ok(result)
}

// ---------------------------------------------------------------------------------------
// lerp

/// The node of `lerp` (`LerpBackward0` with a number weight, `1` with a tensor).
fn lerp_node(x: &Tensor, original: Tensor, end: &Tensor, weight: &Operand) -> Node {
    let end_t = end.clone();
    let w = weight.clone();
    Node {
        name: if weight.as_tensor().is_some() {
            "LerpBackward1"
        } else {
            "LerpBackward0"
        },
        inputs: vec![
            Some(x.clone()),
            Some(end.clone()),
            weight.as_tensor().cloned(),
        ],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None, None, None]);
            };
            let when = |need: bool, f: &dyn Fn() -> Result<Tensor>| -> Result<Option<Tensor>> {
                if need {
                    f().map(Some)
                } else {
                    Ok(None)
                }
            };
            match &w {
                Operand::Number(s) => {
                    let one_minus = match s {
                        Scalar::Complex(re, im) => Scalar::Complex(1.0 - re, *im),
                        other => Scalar::Float(1.0 - other.to_f64()),
                    };
                    let ws = super::math::conj_scalar(*s);
                    Ok(vec![
                        when(needs[0], &|| mul(&g, one_minus))?,
                        when(needs[1], &|| mul(&g, ws))?,
                        None,
                    ])
                }
                Operand::Tensor(wt) => Ok(vec![
                    when(needs[0], &|| {
                        mul(&g, conj(&number_minus(Scalar::Int(1), wt)?)?)
                    })?,
                    when(needs[1], &|| mul(&g, conj(wt)?))?,
                    when(needs[2], &|| mul(&g, conj(&sub(&end_t, &original)?)?))?,
                ]),
            }
        }),
    }
}

/// `torch.lerp(x, end, weight, out=out)` recorded.
pub(crate) fn lerp(
    x: &Tensor,
    end: &Tensor,
    weight: Operand,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let any = requires_grad(x) || requires_grad(end) || operand_requires(&weight);
    if let Some(o) = out {
        if any || requires_grad(o) {
            return Err(out_error("lerp"));
        }
        return below(|| ops::lerp(x, end, weight, out));
    }
    let result = below(|| ops::lerp(x, end, weight.clone(), None))?;
    if any {
        record(
            lerp_node(x, x.clone(), end, &weight),
            std::slice::from_ref(&result),
        );
    }
    Ok(result)
}

/// `x.lerp_(end, weight)` recorded (`end` and a tensor weight saved where a wanted gradient
/// reads them).
pub(crate) fn lerp_(x: &Tensor, end: &Tensor, weight: Operand) -> Result<Tensor> {
    check_inplace(x)?;
    let any = requires_grad(x) || requires_grad(end) || operand_requires(&weight);
    let original = below(|| x.clone_tensor())?;
    // torch saves an input only when a gradient that reads it is wanted: `end` (with the
    // original `self`) for the weight's, the weight for `self`'s and `end`'s.
    let saved = match &weight {
        Operand::Tensor(w) => {
            let mut s = Vec::new();
            if requires_grad(w) {
                s.push(saved(end));
            }
            if requires_grad(x) || requires_grad(end) {
                s.push(saved(w));
            }
            s
        }
        Operand::Number(_) => Vec::new(),
    };
    let result = below(|| ops::lerp_(x, end, weight.clone()))?;
    let mut node = lerp_node(x, original, end, &weight);
    if !any {
        node.inputs.clear();
    }
    node.saved = saved;
    record_inplace(node, x);
    Ok(result)
}

// ---------------------------------------------------------------------------------------
// addcmul, addcdiv

/// The node of `addcmul` / `addcdiv`.
fn addc_node(op: AddcOp, x: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Node {
    let (x_dtype, a, b) = (x.dtype(), t1.clone(), t2.clone());
    Node {
        name: match op {
            AddcOp::Mul => "AddcmulBackward0",
            AddcOp::Div => "AddcdivBackward0",
        },
        inputs: vec![Some(x.clone()), Some(t1.clone()), Some(t2.clone())],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None, None, None]);
            };
            let gx = if needs[0] {
                Some(handle_r_to_c(x_dtype, g.clone())?)
            } else {
                None
            };
            let (g1, g2) = match op {
                AddcOp::Mul => (
                    needs[1]
                        .then(|| handle_r_to_c(a.dtype(), mul(&g, conj(&mul(&b, value)?)?)?))
                        .transpose()?,
                    needs[2]
                        .then(|| handle_r_to_c(b.dtype(), mul(&g, conj(&mul(&a, value)?)?)?))
                        .transpose()?,
                ),
                AddcOp::Div => (
                    needs[1]
                        .then(|| {
                            handle_r_to_c(a.dtype(), mul(&g, conj(&number_over(value, &b)?)?)?)
                        })
                        .transpose()?,
                    needs[2]
                        .then(|| {
                            let q = super::math::div(mul(&a, value)?, mul(&b, &b)?)?;
                            handle_r_to_c(b.dtype(), mul(neg(&g)?, conj(&q)?)?)
                        })
                        .transpose()?,
                ),
            };
            Ok(vec![gx, g1, g2])
        }),
    }
}

/// `torch.addcmul` / `torch.addcdiv` (`out=` too) recorded.
pub(crate) fn addc(
    op: AddcOp,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: Scalar,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let any = requires_grad(x) || requires_grad(t1) || requires_grad(t2);
    if let Some(o) = out {
        if any || requires_grad(o) {
            return Err(out_error(op.name()));
        }
        return below(|| ops::addc(op, x, t1, t2, value, out));
    }
    let result = below(|| ops::addc(op, x, t1, t2, value, None))?;
    if any {
        record(
            addc_node(op, x, t1, t2, value),
            std::slice::from_ref(&result),
        );
    }
    Ok(result)
}

/// `x.addcmul_(t1, t2)` / `x.addcdiv_(t1, t2)` recorded.
pub(crate) fn addc_(
    op: AddcOp,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: Scalar,
) -> Result<Tensor> {
    check_inplace(x)?;
    let any = requires_grad(x) || requires_grad(t1) || requires_grad(t2);
    // torch saves a factor only for the formulas that will run: `tensor1` for `tensor2`'s
    // gradient, `tensor2` for either's (addcdiv) or for `tensor1`'s (addcmul).
    let (n1, n2) = (requires_grad(t1), requires_grad(t2));
    let keep_t2 = n1 || (op == AddcOp::Div && n2);
    let mut kept = Vec::new();
    if n2 {
        kept.push(t1);
    }
    if keep_t2 {
        kept.push(t2);
    }
    let saved = saved_all(&kept);
    let result = below(|| ops::addc_(op, x, t1, t2, value))?;
    let mut node = addc_node(op, x, t1, t2, value);
    if !any {
        node.inputs.clear();
    }
    node.saved = saved;
    record_inplace(node, x);
    Ok(result)
}
