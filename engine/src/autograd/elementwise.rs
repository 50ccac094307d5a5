//! The backward of the element-wise ops: unary, binary (with a Python number on either
//! side), in-place comparisons, `where`, `masked_fill` and `copy_`; each op's formula as
//! `derivatives.yaml` and `FunctionsManual.cpp` write it.

use super::math::{
    add, cmp, conj, conj_scalar, div, fill_zero, handle_r_to_c, maybe_multiply, mul, neg,
    scalar_zero, select, sgn, sub, zeros, zeros_like,
};
use super::{
    below, check_inplace, is_leaf_requiring_grad, out_error, record, record_inplace, requires_grad,
    saved,
};
use super::{Grads, Node};
use crate::ops::{
    self, binary, compare, masked_fill, unary, BinaryOp, CompareOp, Operand, UnaryOp,
};
use crate::{DType, Error, Result, Scalar, Tensor};

/// Whether an operand is a tensor that requires grad.
pub(super) fn operand_requires(o: &Operand) -> bool {
    o.as_tensor().is_some_and(requires_grad)
}

/// An operand as a node's input (`None` for a number).
fn input(o: &Operand) -> Option<Tensor> {
    o.as_tensor().cloned()
}

/// `o.conj()` of a tensor or a number.
fn conj_operand(o: &Operand) -> Result<Operand> {
    Ok(match o {
        Operand::Tensor(t) => Operand::Tensor(conj(t)?),
        Operand::Number(s) => Operand::Number(conj_scalar(*s)),
    })
}

/// The dtype of an operand that is a tensor (its gradient's `handle_r_to_c`).
fn dtype_of(o: &Operand) -> DType {
    o.dtype()
}

/// A derivative torch's autograd does not have (`derivative for aten::floor_divide is not
/// implemented`), raised when the backward reaches the node.
pub(crate) fn not_implemented_node(aten: &'static str, inputs: Vec<Option<Tensor>>) -> Node {
    Node {
        name: "NotImplemented",
        inputs,
        saved: Vec::new(),
        formula: Box::new(move |_, _| Err(derivative_not_implemented(aten))),
    }
}

/// torch's error for an op its autograd has no formula for: `derivative for aten::NAME is
/// not implemented`.
fn derivative_not_implemented(aten: &str) -> Error {
    Error::runtime(format!("derivative for aten::{aten} is not implemented"))
}

/// Runs `f`, a call of the ATen op `aten` that torch's autograd cannot differentiate (a node
/// that raises on the backward), recording that node for its result when any of `inputs`
/// requires grad; `target` is the tensor an in-place call writes (which must not be a leaf
/// that requires grad), `out` the `out=` tensor of a call with one (torch refuses an `out=`
/// that requires grad). For ops whose engine function is shared with a differentiable one:
/// `floor_divide` is the engine's `div(rounding_mode='floor')`, which has a gradient.
///
/// ```
/// use bcast_engine::autograd::{not_differentiable, Graph};
/// use bcast_engine::ops::{binary, BinaryOp};
/// use bcast_engine::Tensor;
/// let mut g = Graph::new();
/// let x = g.leaf(&Tensor::from_vec(vec![7.0f32], &[1]).unwrap()).unwrap();
/// let q = g.run(|| not_differentiable("floor_divide", &[x.clone()], None, None, || {
///     binary(BinaryOp::DivFloor, &x, 2, None)
/// })).unwrap();
/// let up = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
/// let err = g.grad(&[(q, up)], &[x]).unwrap_err();
/// assert_eq!(err.message(), "derivative for aten::floor_divide is not implemented");
/// ```
///
/// # Errors
/// `f`'s, and an in-place call on a leaf that requires grad.
pub fn not_differentiable(
    aten: &'static str,
    inputs: &[Tensor],
    target: Option<&Tensor>,
    out: Option<&Tensor>,
    f: impl FnOnce() -> Result<Tensor>,
) -> Result<Tensor> {
    if !super::recording() {
        return f();
    }
    if let Some(o) = out {
        if requires_grad(o) {
            return Err(out_error(&format!("aten::{aten}")));
        }
        let result = below(f)?;
        if inputs.iter().any(requires_grad) {
            let node = not_implemented_node(aten, inputs.iter().cloned().map(Some).collect());
            // The result, not `o`: a resized `out` has the result's shape now.
            record_inplace(node, &result);
        }
        return Ok(result);
    }
    if let Some(t) = target {
        check_inplace(t)?;
    }
    let result = below(f)?;
    let any = inputs.iter().any(requires_grad);
    let node = not_implemented_node(aten, inputs.iter().cloned().map(Some).collect());
    match target {
        Some(t) if any => record_inplace(node, t),
        Some(t) => record_inplace_bump(t),
        None if any => record(node, std::slice::from_ref(&result)),
        None => {}
    }
    Ok(result)
}

/// The checks torch's autograd makes before an op's kernel runs (its `VariableType`
/// wrapper), for a caller that must raise them before an error of the kernel's own: an
/// `out=` call while an input or `out` requires grad (`div(): functions with out=...`), an
/// in-place call on a leaf that requires grad. Nothing is checked outside [`super::Graph::run`].
///
/// ```
/// use bcast_engine::autograd::{check_autograd_call, Graph};
/// use bcast_engine::Tensor;
/// let mut g = Graph::new();
/// let x = g.leaf(&Tensor::from_vec(vec![1.0f32], &[1]).unwrap()).unwrap();
/// let o = Tensor::from_vec(vec![0.0f32], &[1]).unwrap();
/// let err = g.run(|| check_autograd_call("div", &[x.clone()], None, Some(&o))).unwrap_err();
/// assert!(err.message().starts_with("div(): functions with out=..."));
/// assert!(check_autograd_call("div", &[x], None, Some(&o)).is_ok());
/// ```
///
/// # Errors
/// Those two, with torch's messages.
pub fn check_autograd_call(
    aten: &str,
    inputs: &[Tensor],
    target: Option<&Tensor>,
    out: Option<&Tensor>,
) -> Result<()> {
    if !super::recording() {
        return Ok(());
    }
    if let Some(o) = out
        && (requires_grad(o) || inputs.iter().any(requires_grad))
    {
        return Err(out_error(aten));
    }
    if let Some(t) = target {
        check_inplace(t)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Unary ops.

/// The node torch records for a unary op, and its formula (`self` the input as it was,
/// `result` the output).
fn unary_node(op: UnaryOp, x: &Tensor, result: &Tensor, original: Tensor) -> Option<Node> {
    let name = match op {
        UnaryOp::Neg => "NegBackward0",
        UnaryOp::Abs => "AbsBackward0",
        UnaryOp::Exp => "ExpBackward0",
        UnaryOp::Log => "LogBackward0",
        UnaryOp::Sqrt => "SqrtBackward0",
        UnaryOp::Sin => "SinBackward0",
        UnaryOp::Cos => "CosBackward0",
        UnaryOp::Tanh => "TanhBackward0",
        UnaryOp::Sigmoid => "SigmoidBackward0",
        UnaryOp::Floor => "FloorBackward0",
        UnaryOp::Ceil => "CeilBackward0",
        UnaryOp::Sign => "SignBackward0",
        UnaryOp::Reciprocal => "ReciprocalBackward0",
        UnaryOp::Exp2 => "Exp2Backward0",
        UnaryOp::Log1p => "Log1PBackward0",
        UnaryOp::Frac => "FracBackward0",
        UnaryOp::Round => "RoundBackward0",
        UnaryOp::Trunc => "TruncBackward0",
        // Integer and bool inputs only: nothing to differentiate.
        UnaryOp::LogicalNot | UnaryOp::BitwiseNot => return None,
    };
    let (s, r) = (original, result.clone());
    let formula = move |grads: Grads, _: &[bool]| -> Result<Grads> {
        let Some(g) = grads.into_iter().next().flatten() else {
            return Ok(vec![None]);
        };
        let out = match op {
            UnaryOp::Neg => neg(&g)?,
            UnaryOp::Abs => mul(&g, sgn(&s)?)?,
            UnaryOp::Exp => mul(&g, conj(&r)?)?,
            UnaryOp::Log => div(&g, conj(&s)?)?,
            UnaryOp::Sqrt => div(&g, mul(conj(&r)?, Scalar::Int(2))?)?,
            UnaryOp::Sin => mul(&g, conj(&unary(UnaryOp::Cos, &s, None)?)?)?,
            UnaryOp::Cos => mul(&g, neg(&conj(&unary(UnaryOp::Sin, &s, None)?)?)?)?,
            // tanh_backward: grad * (1 - result^2).conj().
            UnaryOp::Tanh => {
                let sq = mul(&r, &r)?;
                let factor = conj(&binary(
                    BinaryOp::Rsub(Scalar::Int(1)),
                    &sq,
                    Scalar::Int(1),
                    None,
                )?)?;
                mul(&g, laid_out_as(factor, &r)?)?
            }
            // sigmoid_backward: grad * ((1 - result) * result).conj().
            UnaryOp::Sigmoid => {
                let one_minus = binary(BinaryOp::Rsub(Scalar::Int(1)), &r, Scalar::Int(1), None)?;
                mul(&g, laid_out_as(conj(&mul(one_minus, &r)?)?, &r)?)?
            }
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Sign | UnaryOp::Round | UnaryOp::Trunc => {
                zeros_like(&g)?
            }
            UnaryOp::Reciprocal => mul(neg(&g)?, conj(&mul(&r, &r)?)?)?,
            // exp2: grad * result.conj() * ln 2, in that order (a complex infinity times
            // `ln 2 + 0j` is NaN; an empty product by a number takes TensorIterator's strides).
            UnaryOp::Exp2 => mul(mul(&g, conj(&r)?)?, Scalar::Float(std::f64::consts::LN_2))?,
            // log1p_backward: grad / (self + 1).conj().
            UnaryOp::Log1p => {
                let one_more = binary(BinaryOp::Add(Scalar::Int(1)), &s, Scalar::Int(1), None)?;
                div(&g, conj(&one_more)?)?
            }
            UnaryOp::Frac => g,
            UnaryOp::LogicalNot | UnaryOp::BitwiseNot => return Ok(vec![None]),
        };
        Ok(vec![Some(out)])
    };
    Some(Node {
        name,
        inputs: vec![Some(x.clone())],
        saved: Vec::new(),
        formula: Box::new(formula),
    })
}

/// The factor of a fused backward kernel (torch's `sigmoid_backward` and `tanh_backward` are
/// one TensorIterator over the gradient and the output), laid out as `output`, so that its
/// product with the gradient takes the layout torch's kernel gives (an expanded gradient
/// against an output with a size-1 dim's own stride keeps the output's strides).
fn laid_out_as(factor: Tensor, output: &Tensor) -> Result<Tensor> {
    let laid = zeros_like(output)?;
    ops::copy_(&laid, factor)?;
    Ok(laid)
}

/// [`ops::unary`] recorded.
pub(crate) fn unary_op(op: UnaryOp, x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    let any = requires_grad(x);
    if let Some(o) = out {
        if !matches!(op, UnaryOp::LogicalNot | UnaryOp::BitwiseNot) && (any || requires_grad(o)) {
            return Err(out_error(op.name()));
        }
        // `bitwise_not` has no derivative: torch refuses only an `out` that is a leaf
        // requiring grad, before the kernel's dtype check (`logical_not` takes even that).
        if op == UnaryOp::BitwiseNot && is_leaf_requiring_grad(o) {
            return Err(out_error("aten::bitwise_not"));
        }
        return below(|| unary(op, x, out));
    }
    let result = below(|| unary(op, x, None))?;
    if any && let Some(node) = unary_node(op, x, &result, x.clone()) {
        record(node, std::slice::from_ref(&result));
    }
    Ok(result)
}

/// [`ops::unary_`] recorded: the formula sees `x` as it was (torch saves a copy).
pub(crate) fn unary_op_(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    // `logical_not_` has no derivative: torch does not check a leaf written by it.
    if op != UnaryOp::LogicalNot {
        check_inplace(x)?;
    }
    if !requires_grad(x) {
        let result = below(|| ops::unary_(op, x))?;
        record_inplace_bump(x);
        return Ok(result);
    }
    let original = below(|| x.clone_tensor())?;
    let result = below(|| ops::unary_(op, x))?;
    match unary_node(op, x, &result, original) {
        Some(node) => record_inplace(node, x),
        None => record_inplace_bump(x),
    }
    Ok(result)
}

/// The node of `round(decimals=d)` (torch's `round.decimals` overload, `RoundBackward1`; an
/// explicit `decimals=0` included): a zero gradient, as `round`'s.
fn round_decimals_node(x: &Tensor, result: &Tensor) -> Option<Node> {
    unary_node(UnaryOp::Round, x, result, x.clone()).map(|node| Node {
        name: "RoundBackward1",
        ..node
    })
}

/// [`ops::round_decimals`] recorded: with `out=`, torch's autograd refusal comes before the
/// kernel's dtype checks.
pub(crate) fn round_decimals_op(x: &Tensor, decimals: i64, out: Option<&Tensor>) -> Result<Tensor> {
    let any = requires_grad(x);
    if let Some(o) = out {
        if any || requires_grad(o) {
            return Err(out_error("round"));
        }
        return below(|| ops::round_decimals(x, decimals, out));
    }
    let result = below(|| ops::round_decimals(x, decimals, None))?;
    if any && let Some(node) = round_decimals_node(x, &result) {
        record(node, std::slice::from_ref(&result));
    }
    Ok(result)
}

/// [`ops::round_decimals_`] recorded: a leaf that requires grad is refused first.
pub(crate) fn round_decimals_op_(x: &Tensor, decimals: i64) -> Result<Tensor> {
    check_inplace(x)?;
    let wanted = requires_grad(x);
    let result = below(|| ops::round_decimals_(x, decimals))?;
    match round_decimals_node(x, &result).filter(|_| wanted) {
        Some(node) => record_inplace(node, x),
        None => record_inplace_bump(x),
    }
    Ok(result)
}

/// An in-place write that records no node: the target's version still moves on.
pub(super) fn record_inplace_bump(target: &Tensor) {
    let node = Node {
        name: "",
        inputs: Vec::new(),
        saved: Vec::new(),
        formula: Box::new(|_, _| Ok(Vec::new())),
    };
    record_inplace(node, target);
}

// ---------------------------------------------------------------------------------------
// Binary ops.

/// torch's node class of a binary op for its operand kinds (`MulBackward0`; the `Scalar`
/// overloads, a number second, are `...Backward0` or `1` as torch numbers them).
fn binary_name(op: BinaryOp, a: &Operand, b: &Operand) -> &'static str {
    let (ta, tb) = (a.as_tensor().is_some(), b.as_tensor().is_some());
    match op {
        BinaryOp::Add(_) => "AddBackward0",
        BinaryOp::Sub(_) => "SubBackward0",
        BinaryOp::Rsub(_) if tb => "RsubBackward0",
        BinaryOp::Rsub(_) => "RsubBackward1",
        BinaryOp::Mul => "MulBackward0",
        BinaryOp::Div => "DivBackward0",
        BinaryOp::DivTrunc | BinaryOp::DivFloor => "DivBackward2",
        BinaryOp::Pow if ta && tb => "PowBackward1",
        BinaryOp::Pow if ta => "PowBackward0",
        BinaryOp::Pow => "PowBackward2",
        BinaryOp::Remainder if tb => "RemainderBackward1",
        BinaryOp::Remainder => "RemainderBackward0",
        BinaryOp::Fmod if tb => "FmodBackward1",
        BinaryOp::Fmod => "FmodBackward0",
        BinaryOp::Copysign if tb => "CopysignBackward0",
        BinaryOp::Copysign => "CopysignBackward1",
        BinaryOp::Xlogy if ta && tb => "XlogyBackward0",
        BinaryOp::Xlogy if tb => "XlogyBackward1",
        BinaryOp::Xlogy => "XlogyBackward2",
        BinaryOp::Xlog1py if ta && tb => "SpecialXlog1PyBackward0",
        BinaryOp::Xlog1py if tb => "SpecialXlog1PyBackward1",
        BinaryOp::Xlog1py => "SpecialXlog1PyBackward2",
        BinaryOp::Zeta if ta && tb => "SpecialZetaBackward0",
        BinaryOp::Zeta if tb => "SpecialZetaBackward1",
        BinaryOp::Zeta => "SpecialZetaBackward2",
        BinaryOp::Maximum => "MaximumBackward0",
        BinaryOp::Minimum => "MinimumBackward0",
        BinaryOp::Fmax => "FmaxBackward0",
        BinaryOp::Fmin => "FminBackward0",
        BinaryOp::Atan2 => "Atan2Backward0",
        BinaryOp::Hypot => "HypotBackward0",
        BinaryOp::Nextafter => "NextafterBackward0",
        BinaryOp::Ldexp => "LdexpBackward0",
        BinaryOp::Logaddexp => "LogaddexpBackward0",
        BinaryOp::Logaddexp2 => "Logaddexp2Backward0",
        BinaryOp::FloatPower | BinaryOp::Heaviside => "NotImplemented",
    }
}

/// Whether the op's node saves `other` (torch's `other_` / `exponent_`), which an in-place
/// call whose `other` is `self` then finds written (the version-counter error).
fn saves_other(op: BinaryOp) -> bool {
    !matches!(
        op,
        BinaryOp::Add(_) | BinaryOp::Sub(_) | BinaryOp::Rsub(_) | BinaryOp::Copysign
    )
}

/// The ATen name torch's `out=` error gives (`float_power` runs `pow`).
fn aten_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::FloatPower => "pow",
        BinaryOp::Xlog1py => "special_xlog1py",
        BinaryOp::Zeta => "special_zeta",
        // No derivative: torch's message names the ATen op.
        BinaryOp::Heaviside => "aten::heaviside",
        other => other.name(),
    }
}

/// The gradients of a binary op: `a` and `b` the operands as the op saw them (`a` as it was,
/// for an in-place op), `result` its output.
fn binary_grads(
    op: BinaryOp,
    g: &Tensor,
    a: &Operand,
    b: &Operand,
    result: &Tensor,
    needs: &[bool],
) -> Result<Grads> {
    let (na, nb) = (needs[0], needs[1]);
    let when = |need: bool, f: &dyn Fn() -> Result<Tensor>| -> Result<Option<Tensor>> {
        if need {
            f().map(Some)
        } else {
            Ok(None)
        }
    };
    let ga;
    let gb;
    match op {
        BinaryOp::Add(alpha) => {
            ga = when(na, &|| handle_r_to_c(dtype_of(a), g.clone()))?;
            gb = when(nb, &|| {
                handle_r_to_c(dtype_of(b), maybe_multiply(g.clone(), conj_scalar(alpha))?)
            })?;
        }
        BinaryOp::Sub(alpha) => {
            ga = when(na, &|| handle_r_to_c(dtype_of(a), g.clone()))?;
            gb = when(nb, &|| {
                handle_r_to_c(dtype_of(b), maybe_multiply(neg(g)?, conj_scalar(alpha))?)
            })?;
        }
        BinaryOp::Rsub(alpha) => {
            ga = when(na, &|| {
                handle_r_to_c(dtype_of(a), maybe_multiply(neg(g)?, conj_scalar(alpha))?)
            })?;
            gb = when(nb, &|| handle_r_to_c(dtype_of(b), g.clone()))?;
        }
        BinaryOp::Mul => {
            ga = when(na, &|| {
                handle_r_to_c(dtype_of(a), mul(g, conj_operand(b)?)?)
            })?;
            gb = when(nb, &|| {
                handle_r_to_c(dtype_of(b), mul(g, conj_operand(a)?)?)
            })?;
        }
        BinaryOp::Div => {
            ga = when(na, &|| {
                handle_r_to_c(dtype_of(a), div(g, conj_operand(b)?)?)
            })?;
            gb = when(nb, &|| {
                let q = div(div(a.clone(), b.clone())?, b.clone())?;
                handle_r_to_c(dtype_of(b), mul(neg(g)?, conj(&q)?)?)
            })?;
        }
        BinaryOp::DivTrunc | BinaryOp::DivFloor => {
            ga = when(na, &|| g.empty_like(dtype_of(a)))?;
            gb = when(nb, &|| g.empty_like(dtype_of(b)))?;
        }
        BinaryOp::Pow => return pow_grads(g, a, b, result, needs),
        BinaryOp::Maximum | BinaryOp::Minimum => {
            let (a, b) = (tensor(a)?, tensor(b)?);
            let (lose_a, lose_b) = if op == BinaryOp::Maximum {
                (CompareOp::Lt, CompareOp::Gt)
            } else {
                (CompareOp::Gt, CompareOp::Lt)
            };
            let split = || -> Result<Tensor> {
                let tie = cmp(CompareOp::Eq, a, b)?;
                select(&tie, div(g, Scalar::Int(2))?, g)
            };
            ga = when(na, &|| {
                let t = split()?;
                ops::masked_fill_(&t, &cmp(lose_a, a, b)?, Scalar::Int(0))
            })?;
            gb = when(nb, &|| {
                let t = split()?;
                ops::masked_fill_(&t, &cmp(lose_b, a, b)?, Scalar::Int(0))
            })?;
        }
        BinaryOp::Fmax | BinaryOp::Fmin => {
            let (a, b) = (tensor(a)?, tensor(b)?);
            let keep = if op == BinaryOp::Fmax {
                CompareOp::Ge
            } else {
                CompareOp::Le
            };
            // (self >= other).logical_or_(other.isnan()): where self's value is taken.
            let taken = || -> Result<Tensor> {
                let isnan = cmp(CompareOp::Ne, b, b)?;
                cmp(CompareOp::LogicalOr, cmp(keep, a, b)?, isnan)
            };
            ga = when(na, &|| {
                fill_zero(g, &unary(UnaryOp::LogicalNot, &taken()?, None)?)
            })?;
            gb = when(nb, &|| fill_zero(g, &taken()?))?;
        }
        BinaryOp::Remainder | BinaryOp::Fmod => {
            if a.as_tensor().is_none() {
                return Err(derivative_not_implemented(op.name()));
            }
            let rounded = if op == BinaryOp::Remainder {
                BinaryOp::DivFloor
            } else {
                BinaryOp::DivTrunc
            };
            ga = when(na, &|| Ok(g.clone()))?;
            gb = when(nb, &|| {
                mul(neg(g)?, binary(rounded, a.clone(), b.clone(), None)?)
            })?;
        }
        BinaryOp::Atan2 => {
            let (a, b) = (tensor(a)?, tensor(b)?);
            // atan2_backward: `1 / (self² + other²)`, 0 where the sum is 0 (so `atan2(0, 0)`
            // has gradients 0 and -0, and a sum that underflows gives 0, not NaN).
            let recip = || {
                let sum = add(mul(a, a)?, mul(b, b)?)?;
                let recip = unary(UnaryOp::Reciprocal, &sum, None)?;
                ops::masked_fill_(
                    &recip,
                    &cmp(CompareOp::Eq, &sum, Scalar::Int(0))?,
                    Scalar::Int(0),
                )
            };
            ga = when(na, &|| mul(mul(g, b)?, recip()?))?;
            gb = when(nb, &|| mul(mul(g, neg(a)?)?, recip()?))?;
        }
        BinaryOp::Hypot => {
            ga = when(na, &|| div(mul(g, a.clone())?, result))?;
            gb = when(nb, &|| div(mul(g, b.clone())?, result))?;
        }
        BinaryOp::Copysign => {
            let a = tensor(a)?;
            ga = when(na, &|| {
                // copysign_tensor_self_backward: grad * (result / self), 0 where self is 0.
                let ratio = div(result, a)?;
                let ratio = ops::masked_fill_(
                    &ratio,
                    &cmp(CompareOp::Eq, a, Scalar::Int(0))?,
                    Scalar::Int(0),
                )?;
                mul(g, ratio)
            })?;
            gb = when(nb, &|| {
                let b = tensor(b)?;
                zeros(b.shape(), b.dtype())
            })?;
        }
        BinaryOp::Nextafter => {
            let (a, b) = (tensor(a)?, tensor(b)?);
            ga = when(na, &|| {
                select(&cmp(CompareOp::Ne, a, b)?, g, Scalar::Int(0))
            })?;
            gb = when(nb, &|| zeros(b.shape(), b.dtype()))?;
        }
        BinaryOp::Ldexp => {
            ga = when(na, &|| {
                let p = ops::pow_number_tensor(Scalar::Int(2), tensor(b)?, None)?;
                mul(g, conj(&p)?)
            })?;
            gb = when(nb, &|| {
                mul(
                    mul(g, conj(result)?)?,
                    Scalar::Float(std::f64::consts::LN_2),
                )
            })?;
        }
        BinaryOp::Logaddexp | BinaryOp::Logaddexp2 => {
            let denom = |x: &Operand, y: &Operand| -> Result<Tensor> {
                let d = sub(y.clone(), x.clone())?;
                let e = if op == BinaryOp::Logaddexp {
                    unary(UnaryOp::Exp, &d, None)?
                } else {
                    ops::pow_number_tensor(Scalar::Int(2), &d, None)?
                };
                let one_plus = add(e, Scalar::Int(1))?;
                if op == BinaryOp::Logaddexp {
                    conj(&one_plus)
                } else {
                    Ok(one_plus)
                }
            };
            ga = when(na, &|| div(g, denom(a, b)?))?;
            gb = when(nb, &|| div(g, denom(b, a)?))?;
        }
        BinaryOp::Xlogy | BinaryOp::Xlog1py => {
            let shift = if op == BinaryOp::Xlogy { 0.0 } else { -1.0 };
            ga = when(na, &|| {
                let base = binary(op, g, b.clone(), None)?;
                match b {
                    Operand::Number(o) if o.to_f64() > shift => Ok(base),
                    Operand::Number(_) => {
                        fill_zero(&base, &cmp(CompareOp::Eq, a.clone(), Scalar::Float(0.0))?)
                    }
                    Operand::Tensor(bt) => {
                        let at_zero = cmp(CompareOp::Eq, a.clone(), Scalar::Float(0.0))?;
                        let undefined = cmp(CompareOp::Le, bt, Scalar::Float(shift))?;
                        fill_zero(&base, &cmp(CompareOp::LogicalAnd, at_zero, undefined)?)
                    }
                }
            })?;
            gb = when(nb, &|| {
                let denom = if op == BinaryOp::Xlogy {
                    b.clone()
                } else {
                    Operand::Tensor(add(b.clone(), Scalar::Int(1))?)
                };
                div(mul(g, a.clone())?, denom)
            })?;
        }
        BinaryOp::Zeta => {
            if na {
                return Err(Error::not_implemented(
                    "the derivative for 'zeta' is not implemented.",
                ));
            }
            ga = None;
            gb = when(nb, &|| {
                let (minus_self, shifted) = match a {
                    Operand::Number(s) => (
                        Operand::Number(neg_scalar(*s)?),
                        Operand::Number(Scalar::Float(s.to_f64() + 1.0)),
                    ),
                    Operand::Tensor(t) => (
                        Operand::Tensor(neg(t)?),
                        Operand::Tensor(add(t, Scalar::Float(1.0))?),
                    ),
                };
                let z = binary(BinaryOp::Zeta, shifted, b.clone(), None)?;
                mul(mul(g, minus_self)?, z)
            })?;
        }
        BinaryOp::FloatPower | BinaryOp::Heaviside => {
            return Err(Error::internal(
                "float_power and heaviside record no formula",
            ))
        }
    }
    Ok(vec![ga, gb])
}

/// The gradients of `pow`: `pow_backward` (a number exponent), `pow_backward_self` and
/// `pow_backward_exponent` (tensors), and `pow_backward_exponent` of a number base.
fn pow_grads(
    g: &Tensor,
    a: &Operand,
    b: &Operand,
    result: &Tensor,
    needs: &[bool],
) -> Result<Grads> {
    let zero = || scalar_zero(g.dtype());
    match (a, b) {
        (Operand::Tensor(s), Operand::Number(e)) => {
            let ga = if !needs[0] {
                None
            } else if e.to_f64() == 0.0 && e.imag() == 0.0 && !e.is_bool() {
                Some(zeros(s.shape(), s.dtype())?)
            } else {
                let e = if e.is_complex() {
                    *e
                } else {
                    Scalar::Float(e.to_f64())
                };
                let minus_one = match e {
                    Scalar::Complex(re, im) => Scalar::Complex(re - 1.0, im),
                    other => Scalar::Float(other.to_f64() - 1.0),
                };
                let p = ops::pow_tensor_number(s, minus_one, None)?;
                let out = mul(g, conj(&mul(p, e)?)?)?;
                Some(handle_r_to_c(s.dtype(), out)?)
            };
            Ok(vec![ga, None])
        }
        (Operand::Tensor(s), Operand::Tensor(e)) => {
            let ga = if needs[0] {
                let p = binary(BinaryOp::Pow, s, sub(e, Scalar::Int(1))?, None)?;
                let d = mul(g, conj(&mul(e, p)?)?)?;
                let out = select(&cmp(CompareOp::Eq, e, Scalar::Float(0.0))?, zero(), d)?;
                Some(handle_r_to_c(s.dtype(), out)?)
            } else {
                None
            };
            let gb = if needs[1] {
                let cond = cmp(
                    CompareOp::LogicalAnd,
                    cmp(CompareOp::Eq, s, Scalar::Float(0.0))?,
                    real_nonnegative(e)?,
                )?;
                let promoted = crate::result_type::result_type(&[
                    crate::result_type::Participant::tensor(s.dtype(), s.ndim()),
                    crate::result_type::Participant::tensor(e.dtype(), e.ndim()),
                ]);
                let log = unary(UnaryOp::Log, &s.to_dtype(promoted)?, None)?;
                let d = conj(&mul(result, log)?)?;
                let out = mul(g, select(&cond, zero(), d)?)?;
                Some(handle_r_to_c(e.dtype(), out)?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        }
        (Operand::Number(base), Operand::Tensor(e)) => {
            if !needs[1] {
                return Ok(vec![None, None]);
            }
            // c10's `Scalar::log` has no bool; `toComplexDouble` (a complex exponent) does.
            let log = match base {
                Scalar::Bool(b) if e.dtype().is_complex() => complex_log(f64::from(u8::from(*b)), 0.0),
                Scalar::Bool(_) => {
                    return Err(Error::runtime(
                        "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/c10/core/Scalar.cpp\":42, please report a bug to PyTorch. unknown ivalue tag 4",
                    ))
                }
                Scalar::Complex(re, im) => complex_log(*re, *im),
                _ if e.dtype().is_complex() => complex_log(base.to_f64(), 0.0),
                other => Scalar::Float(other.to_f64().ln()),
            };
            let d = conj(&mul(result, log)?)?;
            // `Scalar::equal(0.0)` is false for a bool.
            let is_zero = !base.is_bool() && base.to_f64() == 0.0 && base.imag() == 0.0;
            let out = if is_zero {
                mul(g, select(&real_nonnegative(e)?, zero(), d)?)?
            } else {
                mul(g, d)?
            };
            Ok(vec![None, Some(handle_r_to_c(e.dtype(), out)?)])
        }
        _ => Err(Error::internal("pow of two numbers")),
    }
}

/// `log(re + im i)` as a number (`c10::Scalar::log` of a complex value).
fn complex_log(re: f64, im: f64) -> Scalar {
    Scalar::Complex(re.hypot(im).ln(), im.atan2(re))
}

/// `exponent >= 0`, or for a complex exponent `imag == 0 and real >= 0`.
fn real_nonnegative(e: &Tensor) -> Result<Tensor> {
    if !e.dtype().is_complex() {
        return cmp(CompareOp::Ge, e, Scalar::Int(0));
    }
    let (re, im) = super::complex_views::parts(e)?;
    cmp(
        CompareOp::LogicalAnd,
        cmp(CompareOp::Eq, &im, Scalar::Int(0))?,
        cmp(CompareOp::Ge, &re, Scalar::Int(0))?,
    )
}

/// `-s` of a number.
fn neg_scalar(s: Scalar) -> Result<Scalar> {
    Ok(match s {
        // c10::Scalar's `operator-` refuses a bool.
        Scalar::Bool(_) => {
            return Err(Error::runtime(
                "torch boolean negative, the `-` operator, is not supported.",
            ))
        }
        Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
        Scalar::Float(f) => Scalar::Float(-f),
        Scalar::Complex(re, im) => Scalar::Complex(-re, -im),
    })
}

/// An operand that must be a tensor for this formula.
fn tensor(o: &Operand) -> Result<&Tensor> {
    o.as_tensor()
        .ok_or_else(|| Error::internal("a formula needs a tensor operand"))
}

/// The node of a binary op; `a` is `self` as it was.
fn binary_node(op: BinaryOp, a: Operand, b: Operand, result: &Tensor) -> Node {
    let name = binary_name(op, &a, &b);
    if op == BinaryOp::Heaviside {
        return not_implemented_node("heaviside", vec![input(&a), input(&b)]);
    }
    let inputs = vec![input(&a), input(&b)];
    let r = result.clone();
    Node {
        name,
        inputs,
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            match grads.into_iter().next().flatten() {
                Some(g) => binary_grads(op, &g, &a, &b, &r, needs),
                None => Ok(vec![None, None]),
            }
        }),
    }
}

/// [`ops::binary`] recorded (`float_power` as torch composes it: the operands cast to
/// `float64`, or `complex128`, then `pow`).
pub(crate) fn binary_op(
    op: BinaryOp,
    a: Operand,
    b: Operand,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let any = operand_requires(&a) || operand_requires(&b);
    if op == BinaryOp::FloatPower {
        return float_power(a, b, out);
    }
    if let Some(o) = out {
        if (op != BinaryOp::Heaviside && any) || requires_grad(o) {
            return Err(out_error(aten_name(op)));
        }
        let result = below(|| binary(op, a.clone(), b.clone(), out))?;
        if any {
            // heaviside has no derivative: its `out=` gets torch's `NotImplemented` node, on
            // the result, not `o` (a resized `out` has the result's shape now).
            record_inplace(
                not_implemented_node("heaviside", vec![input(&a), input(&b)]),
                &result,
            );
        }
        return Ok(result);
    }
    let result = below(|| binary(op, a.clone(), b.clone(), None))?;
    if any {
        let node = binary_node(op, a, b, &result);
        record(node, std::slice::from_ref(&result));
    }
    Ok(result)
}

/// `float_power(a, b)`: torch's `at::pow(a.to(dtype), b.to(dtype))` with `dtype` `float64`
/// (`complex128` when either is complex), numbers cast as numbers; `out=` checks its dtype
/// first, then `pow`'s autograd check.
fn float_power(a: Operand, b: Operand, out: Option<&Tensor>) -> Result<Tensor> {
    let complex = a.dtype().is_complex()
        || b.dtype().is_complex()
        || matches!(a, Operand::Number(Scalar::Complex(..)))
        || matches!(b, Operand::Number(Scalar::Complex(..)));
    let dtype = if complex {
        DType::Complex128
    } else {
        DType::Float64
    };
    let any = operand_requires(&a) || operand_requires(&b);
    if let Some(o) = out {
        if o.dtype() == dtype && (any || requires_grad(o)) {
            return Err(out_error("pow"));
        }
        return below(|| binary(BinaryOp::FloatPower, a, b, out));
    }
    let cast = |o: Operand| -> Result<Operand> {
        Ok(match o {
            Operand::Tensor(t) => Operand::Tensor(super::views::to_dtype(&t, dtype)?),
            Operand::Number(s) if complex => Operand::Number(Scalar::Complex(s.to_f64(), s.imag())),
            Operand::Number(s) => Operand::Number(Scalar::Float(s.to_f64())),
        })
    };
    let (a, b) = (cast(a)?, cast(b)?);
    binary_op(BinaryOp::Pow, a, b, None)
}

/// [`ops::binary_`] recorded: the formula sees `a` as it was (torch saves a copy), and an
/// `other` that is `a` itself is found written when the backward unpacks it.
pub(crate) fn binary_op_(op: BinaryOp, a: &Tensor, b: Operand) -> Result<Tensor> {
    if op == BinaryOp::FloatPower {
        return float_power_(a, b);
    }
    check_inplace(a)?;
    let any = requires_grad(a) || operand_requires(&b);
    if !any {
        let result = below(|| ops::binary_(op, a, b))?;
        record_inplace_bump(a);
        return Ok(result);
    }
    let original = below(|| a.clone_tensor())?;
    let saved_other = match &b {
        Operand::Tensor(t) if saves_other(op) => vec![saved(t)],
        _ => Vec::new(),
    };
    let result = below(|| ops::binary_(op, a, b.clone()))?;
    if op == BinaryOp::Heaviside {
        let node = not_implemented_node("heaviside_", vec![Some(a.clone()), input(&b)]);
        record_inplace(node, a);
        return Ok(result);
    }
    let mut node = binary_node(op, Operand::Tensor(original), b, &result);
    node.inputs[0] = Some(a.clone());
    node.saved = saved_other;
    record_inplace(node, a);
    Ok(result)
}

/// `a.float_power_(b)`: torch checks `a`'s dtype (before the leaf check: the composite
/// raises its dtype error first), then `a.pow_(b.to(dtype))`.
fn float_power_(a: &Tensor, b: Operand) -> Result<Tensor> {
    let complex = a.dtype().is_complex() || b.dtype().is_complex();
    let dtype = if complex {
        DType::Complex128
    } else {
        DType::Float64
    };
    if a.dtype() != dtype {
        return below(|| ops::binary_(BinaryOp::FloatPower, a, b));
    }
    check_inplace(a)?;
    let b = match b {
        Operand::Tensor(t) => Operand::Tensor(super::views::to_dtype(&t, dtype)?),
        Operand::Number(s) if complex => Operand::Number(Scalar::Complex(s.to_f64(), s.imag())),
        Operand::Number(s) => Operand::Number(Scalar::Float(s.to_f64())),
    };
    binary_op_(BinaryOp::Pow, a, b)
}

// ---------------------------------------------------------------------------------------
// Comparisons in place, where, masked_fill, copy_.

/// `a.OP_(b)` recorded: torch's `EqBackward0/1` (zeros for both, as contiguous zeros of
/// their sizes: the node keeps only those), on any dtype of `a`.
pub(crate) fn compare_op_(op: CompareOp, a: &Tensor, b: Operand) -> Result<Tensor> {
    // The logical ops have no derivative: torch does not check a leaf they write.
    if !op.is_logical() {
        check_inplace(a)?;
    }
    let any = requires_grad(a) || operand_requires(&b);
    let target = a.clone();
    let result = below(|| compare(op, a.clone(), b.clone(), Some(&target)))?;
    if !any || op.is_logical() {
        record_inplace_bump(a);
        return Ok(result);
    }
    let name = match (op, b.as_tensor().is_some()) {
        (CompareOp::Eq, true) => "EqBackward1",
        (CompareOp::Eq, false) => "EqBackward0",
        (CompareOp::Ne, true) => "NeBackward1",
        (CompareOp::Ne, false) => "NeBackward0",
        (CompareOp::Lt, true) => "LtBackward1",
        (CompareOp::Lt, false) => "LtBackward0",
        (CompareOp::Le, true) => "LeBackward1",
        (CompareOp::Le, false) => "LeBackward0",
        (CompareOp::Gt, true) => "GtBackward1",
        (CompareOp::Gt, false) => "GtBackward0",
        (CompareOp::Ge, true) => "GeBackward1",
        _ => "GeBackward0",
    };
    let (a_meta, b_meta) = (
        (a.shape().to_vec(), a.dtype()),
        b.as_tensor().map(|t| (t.shape().to_vec(), t.dtype())),
    );
    let node = Node {
        name,
        inputs: vec![Some(a.clone()), input(&b)],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            if grads.iter().all(Option::is_none) {
                return Ok(vec![None, None]);
            }
            let ga = if needs[0] {
                Some(zeros(&a_meta.0, a_meta.1)?)
            } else {
                None
            };
            let gb = match (&b_meta, needs[1]) {
                (Some((shape, dtype)), true) => Some(zeros(shape, *dtype)?),
                _ => None,
            };
            Ok(vec![ga, gb])
        }),
    };
    record_inplace(node, a);
    Ok(result)
}

/// `torch.where(condition, a, b)` recorded (`WhereBackward0`).
pub(crate) fn where_op(
    condition: &Tensor,
    a: Operand,
    b: Operand,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let any = operand_requires(&a) || operand_requires(&b);
    if let Some(o) = out {
        if any || requires_grad(o) {
            return Err(out_error("where"));
        }
        return below(|| ops::r#where(condition, a, b, out));
    }
    let (a, b) = number_cast(a, b)?;
    let result = below(|| ops::r#where(condition, a.clone(), b.clone(), None))?;
    if any {
        let c = condition.clone();
        let node = Node {
            name: "WhereBackward0",
            inputs: vec![input(&a), input(&b)],
            saved: Vec::new(),
            formula: Box::new(move |grads: Grads, needs: &[bool]| {
                let Some(g) = grads.into_iter().next().flatten() else {
                    return Ok(vec![None, None]);
                };
                let ga = if needs[0] {
                    Some(select(&c, &g, Scalar::Int(0))?)
                } else {
                    None
                };
                let gb = if needs[1] {
                    Some(select(&c, Scalar::Int(0), &g)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            }),
        };
        record(node, std::slice::from_ref(&result));
    }
    Ok(result)
}

/// `where` with a Python number is composite in torch (`where.ScalarOther`,
/// `where.ScalarSelf`): the tensor goes through `self.to(result_type)` first, recorded as
/// `ToCopyBackward0` when the number changes its dtype (a complex number beside a real
/// tensor), whose backward takes the real part of the gradient (a `WhereBackward0` of the
/// two tensors would send a complex gradient to the real input, which torch refuses).
fn number_cast(a: Operand, b: Operand) -> Result<(Operand, Operand)> {
    let dtype =
        crate::result_type::result_type(&[a.input().participant(), b.input().participant()]);
    let cast = |o: Operand| -> Result<Operand> {
        match o {
            Operand::Tensor(t) if requires_grad(&t) && t.dtype() != dtype => {
                Ok(Operand::Tensor(super::views::to_dtype(&t, dtype)?))
            }
            o => Ok(o),
        }
    };
    match (&a, &b) {
        (Operand::Tensor(_), Operand::Number(_)) => Ok((cast(a)?, b)),
        (Operand::Number(_), Operand::Tensor(_)) => Ok((a, cast(b)?)),
        _ => Ok((a, b)),
    }
}

/// The node of `masked_fill` (`MaskedFillBackward0` with a number, `1` with a 0-d tensor).
fn masked_fill_node(x: &Tensor, mask: &Tensor, value: &Operand) -> Node {
    let m = mask.clone();
    Node {
        name: if value.as_tensor().is_some() {
            "MaskedFillBackward1"
        } else {
            "MaskedFillBackward0"
        },
        inputs: vec![Some(x.clone()), input(value)],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None, None]);
            };
            let gx = if needs[0] {
                Some(fill_zero(&g, &m)?)
            } else {
                None
            };
            // masked_fill_backward: grad.masked_select(mask).sum(), whose sum over nothing
            // (no element selected) runs no kernel: a zero even for `complex32`, which has
            // no `sum_cpu`.
            let gv = if needs[1] {
                let none = g.numel() == 0 || !m.to_vec::<bool>()?.into_iter().any(|b| b);
                Some(if none {
                    zeros(&[], g.dtype())?
                } else {
                    let picked = select(&m, &g, Scalar::Int(0))?;
                    crate::reduce::sum(&picked, &[], false, None)?
                })
            } else {
                None
            };
            Ok(vec![gx, gv])
        }),
    }
}

/// `torch.masked_fill(x, mask, value)` recorded.
pub(crate) fn masked_fill_op(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    let any = requires_grad(x) || operand_requires(&value);
    let result = below(|| masked_fill(x, mask, value.clone()))?;
    if any {
        record(
            masked_fill_node(x, mask, &value),
            std::slice::from_ref(&result),
        );
    }
    Ok(result)
}

/// `x.masked_fill_(mask, value)` recorded.
pub(crate) fn masked_fill_op_(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    check_inplace(x)?;
    let any = requires_grad(x) || operand_requires(&value);
    let result = below(|| ops::masked_fill_(x, mask, value.clone()))?;
    if any {
        record_inplace(masked_fill_node(x, mask, &value), x);
    } else {
        record_inplace_bump(x);
    }
    Ok(result)
}

/// `dst.copy_(src)` recorded (`CopyBackwards`: zeros for `dst`, the gradient as `src`'s
/// dtype for `src`; `fill_` for a number).
pub(crate) fn copy_op_(dst: &Tensor, src: Operand) -> Result<Tensor> {
    check_inplace(dst)?;
    let any = requires_grad(dst) || operand_requires(&src);
    let result = below(|| ops::copy_(dst, src.clone()))?;
    if !any {
        record_inplace_bump(dst);
        return Ok(result);
    }
    let src_dtype = src.as_tensor().map(Tensor::dtype);
    let node = Node {
        name: "torch::autograd::CopyBackwards",
        inputs: vec![Some(dst.clone()), input(&src)],
        saved: Vec::new(),
        formula: Box::new(move |grads: Grads, needs: &[bool]| {
            let Some(g) = grads.into_iter().next().flatten() else {
                return Ok(vec![None, None]);
            };
            let gd = if needs[0] {
                Some(zeros(g.shape(), g.dtype())?)
            } else {
                None
            };
            let gs = match src_dtype {
                Some(d) if needs[1] => Some(handle_r_to_c(d, g)?.to_dtype(d)?),
                _ => None,
            };
            Ok(vec![gd, gs])
        }),
    };
    record_inplace(node, dst);
    Ok(result)
}
