//! The generators draw no case whose torch result depends on the order torch happens to
//! compute in: no `remainder` whose quotient overflows float64 (torch's vectorised `fmod`
//! differs from its scalar one there), and every summing op over edge values carries a
//! tolerance as wide as summation order can make its error.

use bcast_conformance::case::{storage_values, Arg, Case};
use bcast_fuzzing::generators::{find_family, generate};

/// The first `count` cases of `family` at one seed.
fn cases(family: &str, count: u64) -> impl Iterator<Item = Case> {
    let family = find_family(family).expect("a known family");
    (0..count).map(move |i| generate(family, 11, i))
}

/// The ops whose results are sums of products.
const PRODUCTS: [&str; 6] = ["matmul", "mm", "bmm", "mv", "dot", "einsum"];

/// The largest finite magnitude among the values of the tensor `name` reads.
fn largest(case: &Case, name: &str) -> f64 {
    let storage = &case.storages[&case.tensors[name].storage];
    storage_values(storage)
        .expect("generated storages load")
        .into_iter()
        .map(|v| v.to_f64().abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

#[test]
fn no_remainder_quotient_overflows_float64() {
    let (mut remainders, mut tiny_divisors) = (0, 0);
    for family in ["binary", "out", "inplace"] {
        // A tiny divisor against a huge dividend is about one case in 10,000.
        for case in cases(family, 60_000) {
            if !case.call.fn_.contains("remainder") {
                continue;
            }
            remainders += 1;
            let (Some(Arg::Tensor(x)), Some(Arg::Float(d))) =
                (case.call.args.first(), case.call.args.get(1))
            else {
                continue;
            };
            let d = d.to_f64().abs();
            if d > 0.0 && d < 1e-100 {
                tiny_divisors += 1;
            }
            assert!(
                d == 0.0 || !(largest(&case, x) / d).is_infinite(),
                "{}: {:e} by {d:e} overflows",
                case.id,
                largest(&case, x)
            );
        }
    }
    // Not vacuous: remainder by the tiniest Python number is still drawn where it is safe.
    assert!(remainders > 100, "{remainders} remainder cases");
    assert!(
        tiny_divisors > 0,
        "no remainder by a tiny number among {remainders}"
    );
}

#[test]
fn sums_over_edge_values_tolerate_any_summation_order() {
    let mut widened = 0;
    for family in ["reduce", "matmul", "einsum"] {
        for case in cases(family, 4000) {
            let Some(tol) = case.tolerance else { continue };
            let edge = case.tags.iter().any(|t| t == "edge-values");
            let sums = ["sum", "mean", "matmul", "mm", "bmm", "mv", "dot", "einsum"]
                .iter()
                .any(|op| case.call.fn_.ends_with(&format!(".{op}")));
            if !(edge && sums) {
                // Exact ops (amax, var's own rtol) and random fills keep the tight tolerance:
                // atol no wider than rtol (two ulps of the least precise float).
                assert!(tol.atol <= tol.rtol, "{}: atol {}", case.id, tol.atol);
                continue;
            }
            let n = case
                .tensors
                .values()
                .map(|t| t.shape.iter().product::<usize>())
                .max()
                .unwrap_or(1) as f64;
            let magnitude: f64 = case
                .tensors
                .keys()
                .map(|name| largest(&case, name).max(1.0))
                .product();
            // The machine epsilon of the float the rtol was chosen for.
            let eps = match tol.rtol {
                r if r >= 1e-2 => 2f64.powi(-7),
                r if r >= 1e-3 => 2f64.powi(-10),
                r if r > 1e-6 => f64::from(f32::EPSILON),
                _ => f64::EPSILON,
            };
            // (n - 1) * eps / 2 * sum(|term|), with sum(|term|) <= n * magnitude
            let bound = (n - 1.0) * eps / 2.0 * n * magnitude;
            assert!(
                tol.atol >= bound.min(f64::MAX),
                "{}: atol {} below {bound}",
                case.id,
                tol.atol
            );
            if tol.atol > tol.rtol {
                widened += 1;
            }
        }
    }
    assert!(widened > 10, "only {widened} cases widened");
}

/// No drawn reduction hangs on torch's summation order: `var`/`std` read no value of 1e15 or
/// more (their result would hang on the rounding of the mean), and `sum`/`mean` of a
/// float32-range dtype no value of 1e37 or more (two of them overflow float32 or not
/// depending on which partial sums meet).
#[test]
fn no_reduction_hangs_on_its_summation_order() {
    use bcast_conformance::case::Num;
    let (mut moments, mut sums) = (0, 0);
    for case in cases("reduce", 20_000) {
        let f = &case.call.fn_;
        let moment = f.ends_with(".var") || f.ends_with(".std");
        let sum = f.ends_with(".sum") || f.ends_with(".mean");
        let storage = &case.storages[&case.tensors["t0"].storage];
        let narrow =
            ["float32", "bfloat16", "float16", "complex64"].contains(&storage.dtype.as_str());
        let float = storage.dtype.starts_with("float")
            || storage.dtype.starts_with("complex")
            || storage.dtype == "bfloat16";
        let limit = match (moment, sum) {
            // Integer inputs are refused by var/std whatever their values.
            (true, _) if float => 1e15,
            (_, true) if narrow => 1e37,
            _ => continue,
        };
        let values = storage_values(storage).expect("generated storages load");
        let parts = values.iter().flat_map(|v| match *v {
            Num::Complex(re, im) => [re, im],
            other => [other.to_f64(), 0.0],
        });
        for v in parts.filter(|v| v.is_finite()) {
            assert!(v.abs() < limit, "{}: {f} over {v:e}", case.id);
        }
        if moment {
            moments += 1;
        } else {
            sums += 1;
        }
    }
    // Not vacuous: both kinds were drawn and checked.
    assert!(
        moments > 100 && sums > 100,
        "{moments} var/std, {sums} sum/mean cases"
    );
}

/// A real `sqrt` carries a tolerance (torch hands it to MKL's VML, whose rounding depends on
/// the processor), in every family that draws it.
#[test]
fn real_sqrt_carries_a_tolerance() {
    let mut seen = 0;
    for family in ["unary", "inplace", "grad"] {
        for case in cases(family, 6000) {
            let f = case.call.fn_.rsplit('.').next().unwrap_or_default();
            let on_tensor = matches!(case.call.args.first(), Some(Arg::Tensor(_)))
                || case.call.fn_.starts_with("Tensor.");
            if !matches!(f, "sqrt" | "sqrt_") || !on_tensor {
                continue;
            }
            seen += 1;
            assert!(
                case.tolerance.is_some(),
                "{}: {} exact",
                case.id,
                case.call.fn_
            );
        }
    }
    assert!(seen > 20, "only {seen} sqrt cases");
}

/// No complex upstream gradient has an infinite part (torch rounds a complex product by the
/// element's place in its loop, complex128 too, and an infinity meeting a product that
/// cancels gives NaN or not by it), and no operand of a complex product has a part large enough for a sum of
/// products to overflow (MKL's `gemv` then scales the infinity by `1 + 0j`).
#[test]
fn complex_gradients_and_products_stay_finite() {
    use bcast_conformance::case::Num;
    let (mut upstreams, mut products) = (0, 0);
    for case in cases("grad", 20_000) {
        let Some(grad) = &case.grad else { continue };
        let parts = |name: &str| -> Vec<(String, f64)> {
            let storage = &case.storages[&case.tensors[name].storage];
            storage_values(storage)
                .expect("generated storages load")
                .into_iter()
                .flat_map(|v| match v {
                    Num::Complex(re, im) => vec![re, im],
                    _ => vec![],
                })
                .map(|v| (storage.dtype.clone(), v))
                .collect()
        };
        for name in grad.upstream.iter().flatten() {
            for (dtype, v) in parts(name) {
                if dtype.starts_with("complex") {
                    upstreams += 1;
                    assert!(!v.is_infinite(), "{}: upstream {name} has {v}", case.id);
                }
            }
        }
        let f = case.call.fn_.rsplit('.').next().unwrap_or_default();
        let operands: Vec<&String> = tensor_args(&case).collect();
        // A product needs two operands (`einsum` of one only sums).
        if PRODUCTS.contains(&f) && operands.len() >= 2 {
            for name in operands {
                for (dtype, v) in parts(name) {
                    products += 1;
                    let largest = if dtype == "complex128" { 1e150 } else { 1e17 };
                    assert!(
                        v.is_finite() && v.abs() < largest,
                        "{}: {name} has {v:e}",
                        case.id
                    );
                }
            }
        }
    }
    // Not vacuous: complex upstreams and complex product operands were drawn.
    assert!(
        upstreams > 100 && products > 100,
        "{upstreams} upstream parts, {products} product parts"
    );
}

/// The tensors among `case`'s positional arguments.
fn tensor_args(case: &Case) -> impl Iterator<Item = &String> {
    case.call.args.iter().filter_map(|a| match a {
        Arg::Tensor(t) => Some(t),
        _ => None,
    })
}

#[test]
fn float32_products_and_complex_lerp_stay_moderate() {
    use bcast_conformance::case::Num;
    let (mut products, mut lerps) = (0, 0);
    for family in ["matmul", "ternary", "grad"] {
        for case in cases(family, 20_000) {
            let f = case.call.fn_.rsplit('.').next().unwrap_or_default();
            let float32 =
                |name: &String| case.storages[&case.tensors[name].storage].dtype == "float32";
            if PRODUCTS.contains(&f) {
                // No two factors of a float32 product (the operands, and an upstream gradient
                // in the backward) overflow: a sum past an overflow is -inf or NaN by whether
                // MKL's kernel fuses the multiply and the add (AVX512) or not (AVX2).
                let upstream = case.grad.iter().flat_map(|g| g.upstream.iter().flatten());
                let mut factors: Vec<f64> = tensor_args(&case)
                    .chain(upstream)
                    .filter(|name| float32(name))
                    .map(|name| largest(&case, name))
                    .collect();
                factors.sort_by(|a, b| b.total_cmp(a));
                if let [a, b, ..] = factors[..] {
                    products += 1;
                    assert!(
                        a * b < f64::from(f32::MAX),
                        "{}: {a:e} times {b:e}",
                        case.id
                    );
                }
            }
            if f.starts_with("lerp") {
                // torch's AVX512 complex `lerp_` picks a formula per float lane. (`complex32`
                // has no lerp kernel: torch raises whatever the values.)
                let values = tensor_args(&case)
                    .map(|name| &case.storages[&case.tensors[name].storage])
                    .filter(|s| s.dtype != "complex32")
                    .flat_map(|s| storage_values(s).expect("generated storages load"));
                for v in values {
                    if let Num::Complex(re, im) = v {
                        lerps += 1;
                        for part in [re, im] {
                            assert!(
                                part.is_nan() || part.abs() < 65504.0,
                                "{}: complex lerp part {part:e}",
                                case.id
                            );
                        }
                    }
                }
            }
        }
    }
    // Not vacuous: both kinds were drawn.
    assert!(
        products > 100 && lerps > 100,
        "{products} float32 products, {lerps} complex lerp values"
    );
}

/// No gradient case with a complex tensor takes an infinite scalar (a Python number, or the
/// value of a one-element input tensor), nor (beside a tensor narrower than float64 and
/// complex128, whose complex results are complex64 or complex32) one of magnitude 1e17 or
/// more: torch rounds a complex product by the element's place in its loop, and where the
/// scalar's infinity (or its product with an upstream's 1e30) meets a product that cancels to
/// 0 or not, the gradient is NaN or infinite by that place (`(-inf) / t`, grad 57001 of seed
/// 1210005; a 0-d float32 `inf` over a complex128 `t`, grad 70131 of seed 1210010).
#[test]
fn complex_gradients_take_moderate_scalars() {
    use bcast_conformance::case::Num;
    let (mut numbers, mut narrow_numbers, mut tensors) = (0, 0, 0);
    for case in cases("grad", 20_000) {
        // The dtypes of the storages the call has, not those of the upstream gradients.
        let grad = case.grad.as_ref().expect("a grad case");
        let upstream: Vec<&String> = grad
            .upstream
            .iter()
            .flatten()
            .map(|u| &case.tensors[u].storage)
            .collect();
        let dtypes: Vec<&str> = case
            .storages
            .iter()
            .filter(|(name, _)| !upstream.contains(name))
            .map(|(_, s)| s.dtype.as_str())
            .collect();
        if !dtypes.iter().any(|d| d.starts_with("complex")) {
            continue;
        }
        let narrow = dtypes
            .iter()
            .any(|d| ["complex64", "complex32", "float32", "float16", "bfloat16"].contains(d));
        let limit = if narrow { 1e17 } else { f64::INFINITY };
        let parts = |v: &Num| match *v {
            Num::Float(x) => vec![x],
            Num::Complex(re, im) => vec![re, im],
            _ => vec![],
        };
        let args: Vec<(&str, &Arg)> = case
            .call
            .args
            .iter()
            .map(|a| ("", a))
            .chain(case.call.kwargs.iter().map(|(k, a)| (k.as_str(), a)))
            .collect();
        for (key, arg) in args {
            let (what, values) = match arg {
                Arg::Float(v) | Arg::Complex(v) => {
                    numbers += 1;
                    narrow_numbers += usize::from(narrow);
                    ("a number".to_string(), parts(v))
                }
                Arg::Tensor(name) if key != "out" => {
                    let t = &case.tensors[name];
                    if t.shape.iter().product::<usize>() != 1 {
                        continue;
                    }
                    tensors += 1;
                    let storage = &case.storages[&t.storage];
                    let all = storage_values(storage).expect("generated storages load");
                    (format!("one-element {name}"), parts(&all[t.offset]))
                }
                _ => continue,
            };
            for x in values {
                assert!(
                    x.is_nan() || x.abs() < limit,
                    "{}: {} takes {what} of {x:e}",
                    case.id,
                    case.call.fn_
                );
            }
        }
    }
    // Not vacuous: complex cases took numbers (narrow ones too) and one-element tensors.
    assert!(
        numbers > 100 && narrow_numbers > 50 && tensors > 100,
        "{numbers} numbers, {narrow_numbers} of narrow cases, {tensors} tensors"
    );
}

/// No `bfloat16` or `float32` tensor of a gradient case, the call's or an upstream, holds a
/// finite value near float32's largest (bfloat16 of magnitude 1e30 or more, its edge value
/// 3.39e38; float32 of 1e37 or more, the `promotion` family's 3.4e38): a backward sums the
/// products of an upstream and an operand over broadcast dims in float32, where two terms
/// near its largest value overflow or not by the order of the sum (torch 2.13.0 sums
/// `[3.39e38, 3.39e38, -inf]` to NaN and `[3.39e38, -inf, 3.39e38]` to `-inf`: `mul`'s
/// gradient, grad 36784 of seed 1210008; `addcdiv`'s by a float32 3.4e38 over a small
/// divisor, 37308 of seed 1210006). Infinities, and float32's edge value 1e30, are still
/// drawn.
#[test]
fn gradients_take_no_value_near_float32s_largest() {
    let (mut values, mut infinities, mut edges) = (0, 0, 0);
    for case in cases("grad", 20_000) {
        for (name, storage) in &case.storages {
            let limit = match storage.dtype.as_str() {
                "bfloat16" => 1e30,
                "float32" => 1e37,
                _ => continue,
            };
            for v in storage_values(storage).expect("generated storages load") {
                let v = v.to_f64();
                values += 1;
                infinities += usize::from(v.is_infinite());
                edges += usize::from(v.abs() == 1e30);
                assert!(
                    !v.is_finite() || v.abs() < limit,
                    "{}: {} {name} ({}) has {v:e}",
                    case.id,
                    case.call.fn_,
                    storage.dtype
                );
            }
        }
    }
    // Not vacuous: values were drawn, edge values (infinities, float32's 1e30) among them.
    assert!(
        values > 1000 && infinities > 20 && edges > 20,
        "{values} values, {infinities} infinite, {edges} of 1e30"
    );
}
