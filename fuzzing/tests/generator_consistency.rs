//! The generators draw no case whose torch result depends on the order torch happens to
//! compute in: no `remainder` whose quotient overflows float64 (torch's vectorised `fmod`
//! differs from its scalar one there), and every summing op over edge values carries a
//! tolerance as wide as summation order can make its error.

use bcast_conformance::case::{storage_values, Arg, Case};
use bcast_fuzzing::gen::{find_family, generate};

/// The first `count` cases of `family` at one seed.
fn cases(family: &str, count: u64) -> impl Iterator<Item = Case> {
    let family = find_family(family).expect("a known family");
    (0..count).map(move |i| generate(family, 11, i))
}

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

#[test]
fn no_moment_hangs_on_the_rounding_of_a_mean() {
    use bcast_engine::index_map::storage_indices;
    use bcast_engine::Layout;
    let mut huge = 0;
    for case in cases("reduce", 20_000) {
        if !(case.call.fn_.ends_with(".var") || case.call.fn_.ends_with(".std")) {
            continue;
        }
        let t = &case.tensors["t0"];
        let storage = &case.storages[&t.storage];
        if !storage.dtype.starts_with("float") {
            continue; // refused by var/std whatever the values
        }
        let values = storage_values(storage).expect("generated storages load");
        let Ok(layout) = Layout::new(t.shape.clone(), t.strides.clone(), t.offset) else {
            continue;
        };
        let finite: Vec<f64> = storage_indices(&layout)
            .into_iter()
            .map(|i| values[i].to_f64())
            .filter(|v| v.is_finite())
            .collect();
        if finite.iter().any(|v| v.abs() >= 1e15) {
            huge += 1;
            assert!(
                finite.iter().any(|&v| v != finite[0]),
                "{}: var/std of one huge value only",
                case.id
            );
        }
    }
    // Not vacuous: var/std over huge values mixed with others are still drawn.
    assert!(huge > 10, "only {huge} var/std cases over huge values");
}
