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
use super::{
    consistent_alpha, consistent_remainders, floating_einsum_case, floating_matmul_case,
    floating_reduce_case, portable_product_values, random_view, CaseBuilder, GenResult,
};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{
    Arg, Case, Fill, FillKind, GradSpec, Num, Outcome, ResultValue, StorageSpec, TensorSpec,
    Tolerance,
};
use bcast_engine::DType;

/// The families a gradient case starts from, each as often as it is listed; `matmul_float`,
/// `einsum_float` and `reduce_float` are those families' calls on the six floating and
/// complex dtypes ([`floating_matmul_case`], [`floating_einsum_case`],
/// [`floating_reduce_case`]), which they draw seldom or never.
const INNER: &[&str] = &[
    "binary",
    "binary",
    "binary",
    "unary",
    "unary",
    "unary_more",
    "unary_more",
    "binary_math",
    "binary_math",
    "ternary",
    "ternary",
    "ternary",
    "where",
    "reduce",
    "reduce_float",
    "max_min",
    "max_min",
    "matmul",
    "matmul_float",
    "matmul_float",
    "einsum",
    "einsum_float",
    "expand",
    "broadcast_tensors",
    "views",
    "views",
    "views",
    "copy",
    "inplace",
    "inplace",
    "out",
    "compare",
    "promotion",
    "reflected",
    "complex32",
];

/// The generator of an entry of [`INNER`].
fn inner_generator(name: &str) -> Option<fn(&mut Unstructured) -> GenResult<Case>> {
    match name {
        "matmul_float" => Some(floating_matmul_case),
        "einsum_float" => Some(floating_einsum_case),
        "reduce_float" => Some(floating_reduce_case),
        _ => find_family(name).map(|f| f.generate),
    }
}

/// Results above this many elements are not differentiated: their upstream gradients would
/// have to be stored, and torch's backward would walk every element.
pub const MAX_GRAD_RESULT: usize = 1 << 16;

/// How many cases of the inner families one gradient case may draw before one has results
/// small enough ([`MAX_GRAD_RESULT`]).
const DRAWS: usize = 8;

/// One gradient case: a case of one of the differentiable families (`INNER`), now and then
/// spelled another way torch has (`respell`), with ties among its values for the ops whose
/// gradients depend on them (`with_ties`), and its gradients asked for ([`with_grad`]).
pub fn grad_case(u: &mut Unstructured) -> GenResult<Case> {
    for _ in 0..DRAWS {
        let name = *u.choose(INNER)?;
        let generate = inner_generator(name).ok_or(arbitrary::Error::IncorrectFormat)?;
        let mut inner = generate(u)?;
        consistent_alpha(&mut inner);
        consistent_remainders(&mut inner);
        let base = inner.call.fn_.rsplit('.').next().unwrap_or_default();
        if is_product(&inner.call.fn_) || base == "einsum" {
            // The `matmul` and `einsum` families' own draws too: their backward is a product.
            portable_product_values(&mut inner);
        }
        let inner = respell(u, inner)?;
        let inner = with_ties(u, inner)?;
        if let Some(case) = with_grad_drawn(u, inner, true)? {
            return Ok(case);
        }
    }
    // Every draw had too large a result: the product of a tensor with itself.
    let mut b = CaseBuilder::default();
    let x = b.view(u, DType::Float32, &[2, 3], true)?;
    let case = b.finish("torch.mul", vec![Arg::Tensor(x.clone()), Arg::Tensor(x)]);
    with_grad(u, case)?.ok_or(arbitrary::Error::IncorrectFormat)
}

/// The other spellings torch has of a call (an alias, the function form of a method, the
/// two-tensor overload of `max`), by `fn`: each with the way its arguments change.
fn spellings(case: &Case) -> Vec<(String, Respelled)> {
    let fn_ = case.call.fn_.as_str();
    let kw = |k: &str| case.call.kwargs.contains_key(k);
    let two_tensors = case.call.args.len() == 2
        && case.call.args.iter().all(|a| matches!(a, Arg::Tensor(_)))
        && case.call.kwargs.is_empty();
    let same = |names: &[&str]| -> Vec<(String, Respelled)> {
        names
            .iter()
            .map(|n| (n.to_string(), Respelled::Same))
            .collect()
    };
    match fn_ {
        "Tensor.unsqueeze" | "Tensor.squeeze" | "Tensor.transpose" | "Tensor.t"
        | "Tensor.narrow" | "Tensor.select" | "Tensor.as_strided" | "Tensor.clone" => {
            same(&[&fn_.replacen("Tensor.", "torch.", 1)])
        }
        "Tensor.permute" => vec![("torch.permute".into(), Respelled::TupleSizes)],
        "Tensor.reshape" => vec![("torch.reshape".into(), Respelled::TupleSizes)],
        "Tensor.expand" => vec![("Tensor.broadcast_to".into(), Respelled::TupleSizes)],
        "torch.broadcast_to" => same(&["Tensor.broadcast_to"]),
        "torch.sub" if !kw("alpha") => same(&["torch.subtract"]),
        "Tensor.sub_" if !kw("alpha") => same(&["Tensor.subtract_"]),
        "torch.mul" => same(&["torch.multiply"]),
        "Tensor.mul_" => same(&["Tensor.multiply_"]),
        "torch.div" | "Tensor.div" if !kw("rounding_mode") => same(&[
            &fn_.replacen("div", "true_divide", 1),
            &fn_.replacen("div", "divide", 1),
        ]),
        "Tensor.div_" if !kw("rounding_mode") => same(&["Tensor.true_divide_", "Tensor.divide_"]),
        "torch.maximum" | "Tensor.maximum" if two_tensors => {
            same(&[&fn_.replacen("maximum", "max", 1)])
        }
        "torch.minimum" | "Tensor.minimum" if two_tensors => {
            same(&[&fn_.replacen("minimum", "min", 1)])
        }
        // `atan2` itself is drawn seldom: respelled a quarter of the time.
        "torch.atan2" | "Tensor.atan2" | "Tensor.atan2_" => {
            same(&[fn_, &fn_.replacen("atan2", "arctan2", 1)])
        }
        _ => Vec::new(),
    }
}

/// How a respelled call's arguments change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Respelled {
    /// They stay as they are.
    Same,
    /// The sizes or dims given as separate ints become one tuple (`x.permute(1, 0)` is
    /// `torch.permute(x, (1, 0))`).
    TupleSizes,
}

/// `case` spelled another way torch has, half the time there is one (see [`spellings`]), when
/// torch's argument parser binds the new spelling as it did the old one.
fn respell(u: &mut Unstructured, case: Case) -> GenResult<Case> {
    let options = spellings(&case);
    if options.is_empty() || !u.ratio(1, 2)? {
        return Ok(case);
    }
    let (fn_, how) = u.choose(&options)?.clone();
    let mut out = case.clone();
    out.call.fn_ = fn_;
    if how == Respelled::TupleSizes {
        for arg in out.call.args.iter_mut().skip(1) {
            if let Arg::Ints(sizes) = arg {
                *arg = Arg::Tuple(sizes.clone());
            }
        }
    }
    let binds = |c: &Case| bcast_case::pyargs::check_call(c).is_ok();
    Ok(if binds(&out) == binds(&case) {
        out
    } else {
        case
    })
}

/// The ops whose gradients depend on ties among their values: `maximum`/`minimum` (and
/// `max`/`min` of two tensors) split a tie evenly, `fmax`/`fmin` and `clamp` send it to one
/// side, `amax`/`amin` share it, `max(dim)` gives it to the first index.
fn ties_matter(fn_: &str) -> bool {
    let base = fn_.rsplit('.').next().unwrap_or(fn_).trim_end_matches('_');
    matches!(
        base,
        "maximum"
            | "minimum"
            | "max"
            | "min"
            | "fmax"
            | "fmin"
            | "amax"
            | "amin"
            | "clamp"
            | "clamp_min"
            | "clamp_max"
    )
}

/// `case` with its input storages tied ([`CaseBuilder::tie_values`]) half the time its op's
/// gradients depend on ties ([`ties_matter`]).
fn with_ties(u: &mut Unstructured, case: Case) -> GenResult<Case> {
    if !ties_matter(&case.call.fn_) || !u.ratio(1, 2)? {
        return Ok(case);
    }
    let mut b = CaseBuilder::of(&case);
    let storages: Vec<String> = case.storages.keys().cloned().collect();
    for s in &storages {
        b.tie_values(u, s)?;
    }
    Ok(b.finish(&case.call.fn_, case.call.args.clone()))
}

/// `case` with gradients asked for: which tensors require grad, which the call gets as
/// clones, and an upstream gradient per result; `None` when a result has more than
/// [`MAX_GRAD_RESULT`] elements.
pub fn with_grad(u: &mut Unstructured, case: Case) -> GenResult<Option<Case>> {
    with_grad_drawn(u, case, false)
}

/// [`with_grad`]; with `redraw_raising`, also `None` three times in four when the call raises
/// whether or not anything requires grad (the forward corpus has such cases: a gradient case
/// is worth most where the backward runs).
fn with_grad_drawn(
    u: &mut Unstructured,
    mut case: Case,
    redraw_raising: bool,
) -> GenResult<Option<Case>> {
    moderate_scalar_operands(&mut case);
    moderate_huge_values(&mut case);
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
            u.ratio(1, 120)?
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
                Some(n) if u.ratio(1, 32)? => wrt.push(n.clone()),
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
    let Some(upstream) = upstream_gradients(u, &mut b, &case, &clone, redraw_raising)? else {
        return Ok(None);
    };
    let spec = GradSpec {
        tolerance: grad_tolerance(&b).map(|t| cancelling(t, &case.call.fn_)),
        wrt,
        clone,
        upstream,
    };
    let mut out = b.finish(&case.call.fn_, case.call.args.clone());
    out.grad = Some(spec);
    Ok(Some(out))
}

/// The scalar operands of a call on a complex tensor (its Python numbers and its one-element
/// input tensors), made finite (and, beside a tensor narrower than float64 and complex128,
/// whose complex results are complex64 or complex32, smaller than 1e17) as
/// [`upstream_gradients`] makes a complex upstream: torch rounds a complex product
/// by the element's place in its loop (for all three complex dtypes: notes/differential.md),
/// so where a scalar's infinity, or its product with an upstream's 1e30, meets a product
/// that cancels to 0 in one rounding and not in the other, the gradient is NaN or infinite by
/// position (`(-inf) / t` of a complex `t`: `reciprocal`'s backward); and a one-element
/// tensor of 3.4e38 times each upstream element overflows or not, in the sum over broadcast
/// dims, by the order of that sum. Such a part becomes ±2.5; nothing is drawn.
fn moderate_scalar_operands(case: &mut Case) {
    let dtypes: Vec<DType> = case
        .storages
        .values()
        .filter_map(|s| DType::from_name(&s.dtype))
        .collect();
    if !dtypes.iter().any(|d| d.is_complex()) {
        return;
    }
    // A float16 tensor beside a 0-d complex128 one gives complex32 results.
    let narrow = dtypes.iter().any(|d| {
        matches!(
            d,
            DType::Complex64 | DType::Complex32 | DType::Float32 | DType::Float16 | DType::BFloat16
        )
    });
    let limit = if narrow { 1e17 } else { f64::INFINITY };
    let moderate = |x: f64| {
        if x.abs() >= limit {
            x.signum() * 2.5
        } else {
            x
        }
    };
    let moderate_num = |v: &mut Num| match v {
        Num::Float(x) => *x = moderate(*x),
        Num::Complex(re, im) => {
            *re = moderate(*re);
            *im = moderate(*im);
        }
        _ => {}
    };
    for name in input_names(case) {
        let Some(t) = case.tensors.get(&name) else {
            continue;
        };
        if t.shape.iter().product::<usize>() != 1 {
            continue;
        }
        let offset = t.offset;
        let values = case
            .storages
            .get_mut(&t.storage)
            .and_then(|s| s.values.as_mut());
        if let Some(v) = values.and_then(|vs| vs.get_mut(offset)) {
            moderate_num(v);
        }
    }
    let numbers = case
        .call
        .args
        .iter_mut()
        .chain(case.call.kwargs.values_mut());
    for arg in numbers {
        if let Arg::Float(v) | Arg::Complex(v) = arg {
            moderate_num(v);
        }
    }
}

/// The call's `bfloat16` and `float32` values without those near float32's largest
/// (bfloat16's edge value 3.39e38, the `promotion` family's float32 3.4e38), as
/// [`upstream_gradients`] makes a `bfloat16` upstream: a backward sums the products of an
/// upstream and an operand over broadcast dims in float32, where two terms near its largest
/// value overflow or not by the order of the sum (torch 2.13.0: `[3.39e38, 3.39e38, -inf]`
/// sums to NaN, `[3.39e38, -inf, 3.39e38]` to `-inf`, in bfloat16 and float32 alike; the
/// engine adds half-precision rows in float64 lanes, and gave `addcdiv`'s float32 terms
/// `-2.34e38, -2.13e38, -1.91e38, 3.4e38` their float64 sum where torch's is `-inf`).
/// Such a value (bfloat16 of magnitude 1e30 or more, float32 of 1e37 or more, above its edge
/// value 1e30) becomes -2.5; infinities stay (an infinite term gives the same sum in any
/// order).
fn moderate_huge_values(case: &mut Case) {
    for storage in case.storages.values_mut() {
        let limit = match DType::from_name(&storage.dtype) {
            Some(DType::BFloat16) => 1e30,
            Some(DType::Float32) => 1e37,
            _ => continue,
        };
        for v in storage.values.iter_mut().flatten() {
            if let Num::Float(f) = v
                && f.is_finite()
                && f.abs() >= limit
            {
                *v = Num::Float(-2.5);
            }
        }
    }
}

/// The gradient tolerance of a call whose gradients sum terms torch rounds loosely: `pow`'s
/// (and `float_power`'s) come from torch's vectorised `pow`, within an ulp of the exact
/// value, and summed over broadcast dims terms of magnitude up to a thousand can cancel to a
/// small gradient, so `atol` is at least `rtol` times a thousand.
fn cancelling(t: Tolerance, fn_: &str) -> Tolerance {
    let base = fn_.rsplit('.').next().unwrap_or(fn_).trim_end_matches('_');
    if matches!(base, "pow" | "__rpow__" | "float_power") {
        Tolerance {
            atol: t.atol.max(t.rtol * 1e3),
            ..t
        }
    } else {
        t
    }
}

/// The tensors the call reads, by name, in order, once each: positional and keyword tensor
/// arguments and lists of tensors, never `out`.
pub(crate) fn input_names(case: &Case) -> Vec<String> {
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
/// indices); none when the call raises; `None` in all when a result is too large, and (with
/// `redraw_raising`) three times in four when the call raises.
fn upstream_gradients(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    case: &Case,
    clone: &[String],
    redraw_raising: bool,
) -> GenResult<Option<Vec<Option<String>>>> {
    let results = match run_reference(&grad_mode_call(case, clone)) {
        Ok(Outcome::Ok(ok)) => match ok.result {
            ResultValue::Tensor(t) => vec![t],
            ResultValue::Tensors(ts) => ts,
            _ => vec![],
        },
        // A call that raises whether or not anything requires grad is the forward corpus's
        // case: kept one time in four, else another draw.
        Ok(Outcome::Error(_)) if redraw_raising && u.ratio(3, 4)? => return Ok(None),
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
            // Laid out like an input, but tagged as nothing: the tags speak of the call. A
            // product's backward is a product too: a complex or `bfloat16` upstream has no
            // edge values (see `portable_product_values`).
            let view = random_view(u, &shape, true)?;
            let edgy = dtype.is_complex() || dtype == DType::BFloat16;
            let storage = if edgy && is_product(&case.call.fn_) {
                b.random_fill_storage(u, dtype, view.storage_len)?
            } else {
                b.storage(u, dtype, view.storage_len)?
            };
            if dtype == DType::BFloat16 {
                // A backward sums the upstream over broadcast dims in float32, where two of
                // bfloat16's largest values overflow or not by the order of the sum.
                b.map_values(&storage, |v| match v {
                    Num::Float(f) if f.is_finite() && f.abs() >= 1e30 => Num::Float(-2.5),
                    other => other,
                });
            }
            if dtype.is_complex() {
                // torch rounds a complex product by the element's place in its loop (fused in
                // the scalar part, not in the vectorised one, complex128 too; and its
                // vectorised complex division rounds otherwise than its scalar one:
                // notes/differential.md), so where an infinite upstream meets a product that
                // cancels to 0 or not, its gradient is NaN or infinite by position. Such an
                // upstream part is finite.
                let finite = |x: f64| if x.is_infinite() { x.signum() * 2.5 } else { x };
                b.map_values(&storage, |v| match v {
                    Num::Complex(re, im) => Num::Complex(finite(re), finite(im)),
                    other => other,
                });
            }
            upstream.push(Some(b.tensor(&storage, &shape, &view)));
        }
    }
    Ok(Some(upstream))
}

/// Whether a call is a matrix product (`matmul` and its operators, `mm`, `bmm`, `mv`, `dot`),
/// whose complex and half-precision forms torch runs through its BLAS kernels.
fn is_product(fn_: &str) -> bool {
    let base = fn_.rsplit('.').next().unwrap_or(fn_);
    matches!(
        base,
        "matmul" | "__matmul__" | "__rmatmul__" | "mm" | "bmm" | "mv" | "dot"
    )
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
