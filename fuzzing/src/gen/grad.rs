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
use bcast_conformance::case::{
    Arg, Case, Fill, FillKind, GradSpec, Outcome, ResultValue, StorageSpec, TensorSpec,
};
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

/// Results above this many elements are not differentiated: their upstream gradients would
/// have to be stored, and torch's backward would walk every element.
pub const MAX_GRAD_RESULT: usize = 1 << 16;

/// How many cases of the inner families one gradient case may draw before one has results
/// small enough ([`MAX_GRAD_RESULT`]).
const DRAWS: usize = 8;

/// One gradient case.
pub fn grad_case(u: &mut Unstructured) -> GenResult<Case> {
    for _ in 0..DRAWS {
        let name = *u.choose(INNER)?;
        let family = find_family(name).ok_or(arbitrary::Error::IncorrectFormat)?;
        let mut inner = (family.generate)(u)?;
        consistent_alpha(&mut inner);
        consistent_remainders(&mut inner);
        if let Some(case) = with_grad(u, inner)? {
            return Ok(case);
        }
    }
    // Every draw had too large a result: the product of a tensor with itself.
    let mut b = CaseBuilder::default();
    let x = b.view(u, DType::Float32, &[2, 3], true)?;
    let case = b.finish("torch.mul", vec![Arg::Tensor(x.clone()), Arg::Tensor(x)]);
    with_grad(u, case)?.ok_or(arbitrary::Error::IncorrectFormat)
}

/// `case` with gradients asked for: which tensors require grad, which the call gets as
/// clones, and an upstream gradient per result; `None` when a result has more than
/// [`MAX_GRAD_RESULT`] elements.
pub fn with_grad(u: &mut Unstructured, case: Case) -> GenResult<Option<Case>> {
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
            u.ratio(1, 48)?
        };
        if wanted {
            wrt.push(name.clone());
        }
    }
    if wrt.is_empty() {
        match inputs.iter().find(|n| differentiable(n)) {
            Some(n) => wrt.push(n.clone()),
            // No floating input: now and then a case of torch's refusal, else another draw.
            None => match inputs.first() {
                Some(n) if u.ratio(1, 16)? => wrt.push(n.clone()),
                _ => return Ok(None),
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
            return Ok(None);
        }
    }
    let Some(upstream) = upstream_gradients(u, &mut b, &case, &clone)? else {
        return Ok(None);
    };
    let spec = GradSpec {
        tolerance: grad_tolerance(&b),
        wrt,
        clone,
        upstream,
    };
    let mut out = b.finish(&case.call.fn_, case.call.args.clone());
    out.grad = Some(spec);
    Ok(Some(out))
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

/// An upstream gradient for each result tensor of the call (the reference engine's forward
/// of the call as the gradient case makes it gives their shapes and dtypes: see
/// [`grad_mode_call`]), `None` for the integer results beside floating ones (`max`'s
/// indices); none when the call raises; `None` in all when a result is too large.
fn upstream_gradients(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    case: &Case,
    clone: &[String],
) -> GenResult<Option<Vec<Option<String>>>> {
    let results = match run_reference(&grad_mode_call(case, clone)) {
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
        return Ok(Some(vec![]));
    }
    let numel = |shape: &[usize]| shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if typed
        .iter()
        .any(|(shape, _)| numel(shape).is_none_or(|n| n > MAX_GRAD_RESULT))
    {
        return Ok(None);
    }
    let any_floating = typed.iter().any(|(_, d)| d.is_floating() || d.is_complex());
    let mut upstream = Vec::with_capacity(typed.len());
    for (shape, dtype) in typed {
        let floating = dtype.is_floating() || dtype.is_complex();
        if any_floating && !floating {
            upstream.push(None);
        } else {
            // Laid out like an input, but tagged as nothing: the tags speak of the call.
            let view = random_view(u, &shape, true)?;
            let storage = b.storage(u, dtype, view.storage_len)?;
            upstream.push(Some(b.tensor(&storage, &shape, &view)));
        }
    }
    Ok(Some(upstream))
}

/// The call as a gradient case runs it, for the shapes and dtypes of its results: each cloned
/// tensor is a copy in memory of its own (so an in-place call on a view that overlaps another
/// input writes the copy, as on torch's `leaf.clone()`).
fn grad_mode_call(case: &Case, clone: &[String]) -> Case {
    let mut probe = case.clone();
    for name in clone {
        let Some(spec) = probe.tensors.get(name).cloned() else {
            continue;
        };
        let Some(dtype) = probe.storages.get(&spec.storage).map(|s| s.dtype.clone()) else {
            continue;
        };
        let len: usize = spec.shape.iter().product();
        let storage = format!("{name}.clone()");
        probe.storages.insert(
            storage.clone(),
            StorageSpec {
                dtype,
                values: None,
                fill: Some(Fill {
                    kind: FillKind::Arange,
                    len,
                    seed: 0,
                }),
            },
        );
        let mut strides = vec![1; spec.shape.len()];
        for d in (0..spec.shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * spec.shape[d + 1].max(1);
        }
        probe.tensors.insert(
            name.clone(),
            TensorSpec {
                storage,
                shape: spec.shape,
                strides,
                offset: 0,
            },
        );
    }
    probe
}
