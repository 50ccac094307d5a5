//! The `grad` family: a case of one of the differentiable families (element-wise, ternary,
//! reductions, products, einsum, views, `copy_`, in-place, `out=`, comparisons, promotion) with
//! its gradients asked for (schema 3, "Gradients" in `fixtures/README.md`): some of its
//! tensor arguments require grad, an in-place call's `self` is usually a clone of its leaf,
//! and every result gets an upstream gradient of its shape and dtype (from the reference
//! engine's forward), laid out like any input (strided, expanded).
//!
//! Integer and bool tensors are made to require grad now and then (torch refuses them), and a
//! comparison's bool result has nothing to differentiate: both are errors worth a case. Never
//! drawn: an in-place call that writes memory another leaf views (torch's version counter
//! then depends on what each formula saved).

use super::registry::find_family;
use super::tolerance::grad_tolerance;
use super::{consistent_alpha, consistent_remainders, random_view, CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{Arg, Case, GradSpec, Outcome, ResultValue};
use bcast_engine::DType;

/// The families a gradient case starts from, each as often as it is listed.
const INNER: &[&str] = &[
    "binary",
    "binary",
    "binary",
    "unary",
    "unary",
    "binary_math",
    "binary_math",
    "ternary",
    "ternary",
    "where",
    "reduce",
    "reduce",
    "matmul",
    "einsum",
    "expand",
    "broadcast_tensors",
    "views",
    "views",
    "copy",
    "inplace",
    "inplace",
    "out",
    "compare",
    "promotion",
    "reflected",
];

/// One gradient case.
pub fn grad_case(u: &mut Unstructured) -> GenResult<Case> {
    let name = *u.choose(INNER)?;
    let family = find_family(name).ok_or(arbitrary::Error::IncorrectFormat)?;
    let mut inner = (family.generate)(u)?;
    consistent_alpha(&mut inner);
    consistent_remainders(&mut inner);
    with_grad(u, inner)
}

/// `case` with gradients asked for: which tensors require grad, which the call gets as
/// clones, and an upstream gradient per result.
pub fn with_grad(u: &mut Unstructured, case: Case) -> GenResult<Case> {
    let mut b = CaseBuilder::of(&case);
    b.tag("grad");
    let dtype_of = |name: &str| {
        case.tensors
            .get(name)
            .and_then(|t| case.storages.get(&t.storage))
            .and_then(|s| DType::from_name(&s.dtype))
    };
    let differentiable =
        |name: &str| dtype_of(name).is_some_and(|d| d.is_floating() || d.is_complex());
    let inputs = input_names(&case);
    let mut wrt: Vec<String> = Vec::new();
    for name in &inputs {
        let wanted = if differentiable(name) {
            u.ratio(3, 4)?
        } else {
            u.ratio(1, 24)?
        };
        if wanted {
            wrt.push(name.clone());
        }
    }
    if wrt.is_empty() {
        match inputs.iter().find(|n| differentiable(n)) {
            Some(n) => wrt.push(n.clone()),
            None => match inputs.first() {
                Some(n) => wrt.push(n.clone()),
                None => return Ok(case),
            },
        }
    }
    if wrt.iter().any(|n| !differentiable(n)) {
        b.tag("requires-grad-refused");
    }
    let written = written_tensor(&case);
    let mut clone = Vec::new();
    if let Some(target) = &written {
        if wrt.contains(target) && u.ratio(4, 5)? {
            clone.push(target.clone());
            b.tag("clone");
        }
        // No leaf may view memory the call writes, but the written leaf itself (refused).
        let storage_of = |n: &str| case.tensors.get(n).map(|t| t.storage.clone());
        let hit = storage_of(target);
        wrt.retain(|n| n == target || storage_of(n) != hit);
        if wrt.is_empty() {
            // Every leaf viewed the written memory: nothing left to differentiate.
            return Ok(case);
        }
    }
    let upstream = upstream_gradients(u, &mut b, &case)?;
    let spec = GradSpec {
        tolerance: grad_tolerance(&b),
        wrt,
        clone,
        upstream,
    };
    let mut out = b.finish(&case.call.fn_, case.call.args.clone());
    out.grad = Some(spec);
    Ok(out)
}

/// The tensors the call reads, by name, in order, once each: positional and keyword tensor
/// arguments and lists of tensors, never `out`.
fn input_names(case: &Case) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let kwargs = case
        .call
        .kwargs
        .iter()
        .filter(|(k, _)| k.as_str() != "out")
        .map(|(_, a)| a);
    for arg in case.call.args.iter().chain(kwargs) {
        let found: Vec<&String> = match arg {
            Arg::Tensor(t) => vec![t],
            Arg::Tensors(ts) => ts.iter().collect(),
            _ => vec![],
        };
        for n in found {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
}

/// The tensor an in-place call writes (`self`), if the call is one.
fn written_tensor(case: &Case) -> Option<String> {
    let method = case.call.fn_.strip_prefix("Tensor.")?;
    if !method.ends_with('_') || method.starts_with("__") {
        return None;
    }
    match case.call.args.first() {
        Some(Arg::Tensor(t)) => Some(t.clone()),
        _ => None,
    }
}

/// The most elements a result may have and get an upstream gradient: a larger one (an
/// expansion to billions of elements) is not differentiated, so that neither the case nor its
/// backward needs memory of that size.
const MAX_UPSTREAM_ELEMENTS: usize = 1 << 20;

/// An upstream gradient for each result tensor of the call (the reference engine's forward
/// gives their shapes and dtypes), `None` for the integer results beside floating ones
/// (`max`'s indices) and for a result above [`MAX_UPSTREAM_ELEMENTS`]; none when the call
/// raises.
fn upstream_gradients(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    case: &Case,
) -> GenResult<Vec<Option<String>>> {
    let results = match run_reference(case) {
        Ok(Outcome::Ok(ok)) => match ok.result {
            ResultValue::Tensor(t) => vec![t],
            ResultValue::Tensors(ts) => ts,
            _ => vec![],
        },
        _ => vec![],
    };
    let typed: Vec<(Vec<usize>, DType)> = results
        .iter()
        .filter_map(|t| {
            let shape = t
                .shape
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Option<_>>()?;
            Some((shape, DType::from_name(&t.dtype)?))
        })
        .collect();
    if typed.len() != results.len() {
        return Ok(vec![]);
    }
    let any_floating = typed.iter().any(|(_, d)| d.is_floating() || d.is_complex());
    let mut upstream = Vec::with_capacity(typed.len());
    for (shape, dtype) in typed {
        let floating = dtype.is_floating() || dtype.is_complex();
        let numel = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if (any_floating && !floating) || numel.is_none_or(|n| n > MAX_UPSTREAM_ELEMENTS) {
            upstream.push(None);
        } else {
            // Laid out like an input, but tagged as nothing: the tags speak of the call.
            let view = random_view(u, &shape, true)?;
            let storage = b.storage(u, dtype, view.storage_len)?;
            upstream.push(Some(b.tensor(&storage, &shape, &view)));
        }
    }
    Ok(upstream)
}
