//! The `grad` family draws cases the schema and torch can take: every case asks for
//! gradients of tensors it has, clones only what it differentiates, gives each result of
//! the call an upstream gradient of that result's shape and dtype, and never lets a leaf view
//! memory the call writes.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{Arg, Case, Outcome, ResultValue};
use bcast_fuzzing::generators::{find_family, generate, GRAD_FAMILY, MAX_GRAD_RESULT};

fn cases(count: u64) -> Vec<Case> {
    let family = find_family(GRAD_FAMILY).expect("the grad family");
    (0..count).map(|i| generate(family, 5, i)).collect()
}

#[test]
fn every_case_asks_for_gradients_of_its_own_tensors() {
    for case in cases(300) {
        let spec = case
            .grad
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no grad", case.id));
        assert!(!spec.wrt.is_empty(), "{}", case.id);
        for name in spec.wrt.iter().chain(spec.upstream.iter().flatten()) {
            assert!(case.tensors.contains_key(name), "{}: {name}", case.id);
        }
        assert!(
            spec.clone.iter().all(|c| spec.wrt.contains(c)),
            "{}",
            case.id
        );
        // The JSON round trip (NaN values make `Case` itself unequal to its copy).
        let json = serde_json::to_string(&case).unwrap();
        let again = serde_json::to_string(&serde_json::from_str::<Case>(&json).unwrap()).unwrap();
        assert_eq!(again, json, "{}", case.id);
    }
}

#[test]
fn no_leaf_views_the_memory_an_in_place_call_writes() {
    let mut in_place = 0;
    for case in cases(300) {
        let spec = case.grad.as_ref().unwrap();
        let method = case.call.fn_.strip_prefix("Tensor.").unwrap_or("");
        if !method.ends_with('_') || method.starts_with("__") {
            continue;
        }
        let Some(Arg::Tensor(target)) = case.call.args.first() else {
            continue;
        };
        in_place += 1;
        let written = &case.tensors[target].storage;
        for leaf in spec.wrt.iter().filter(|l| *l != target) {
            assert_ne!(&case.tensors[leaf].storage, written, "{}: {leaf}", case.id);
        }
    }
    assert!(in_place > 10, "only {in_place} in-place calls drawn");
}

/// Upstream gradients match the results: checked against the reference engine's forward for
/// the cases without clones, whose call runs as drawn.
#[test]
fn upstream_gradients_have_their_results_shapes_and_dtypes() {
    let mut checked = 0;
    for case in cases(300) {
        let spec = case.grad.as_ref().unwrap();
        if !spec.clone.is_empty() {
            continue;
        }
        let mut forward = case.clone();
        forward.grad = None;
        let results = match run_reference(&forward) {
            Ok(Outcome::Ok(ok)) => match ok.result {
                ResultValue::Tensor(t) => vec![t],
                ResultValue::Tensors(ts) => ts,
                _ => continue,
            },
            _ => continue,
        };
        assert_eq!(spec.upstream.len(), results.len(), "{}", case.id);
        for (result, upstream) in results.iter().zip(&spec.upstream) {
            let Some(name) = upstream else { continue };
            let view = &case.tensors[name];
            let shape: Vec<i64> = view.shape.iter().map(|&d| d as i64).collect();
            assert_eq!(shape, result.shape, "{}: {name}", case.id);
            assert_eq!(
                case.storages[&view.storage].dtype, result.dtype,
                "{}",
                case.id
            );
            assert!(view.shape.iter().product::<usize>() <= MAX_GRAD_RESULT);
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} upstream gradients checked");
}

/// The family's draws reach what torch's backward treats apart: each of the six floating and
/// complex dtypes among the leaves, `matmul` whose batch dims broadcast, `einsum`, `max`/`min`
/// over a dim (whose indices get no upstream gradient), ties among the values, and the other
/// spellings torch has of a call.
#[test]
fn the_draws_cover_every_floating_dtype_and_the_products_reductions_and_ties() {
    let mut leaf_dtypes = std::collections::BTreeSet::new();
    let (mut batched, mut einsum, mut indexed, mut ties, mut respelled) = (0, 0, 0, 0, 0);
    for case in cases(1500) {
        let spec = case.grad.as_ref().unwrap();
        for leaf in &spec.wrt {
            leaf_dtypes.insert(case.storages[&case.tensors[leaf].storage].dtype.clone());
        }
        let shapes: Vec<&[usize]> = case
            .call
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Tensor(t) => Some(case.tensors[t].shape.as_slice()),
                _ => None,
            })
            .collect();
        let base = case.call.fn_.rsplit('.').next().unwrap_or("");
        match (base, shapes.as_slice()) {
            ("matmul", [a, b]) if a.len() >= 3 && b.len() >= 3 => {
                batched += usize::from(a[..a.len() - 2] != b[..b.len() - 2]);
            }
            ("einsum", _) => einsum += 1,
            ("max" | "min", [_]) if case.call.args.len() > 1 || !case.call.kwargs.is_empty() => {
                // (values, indices) of a floating input: the integer indices get no upstream
                // gradient.
                let input = &case.tensors[&spec.wrt[0]].storage;
                let dtype = &case.storages[input].dtype;
                let floating = dtype.contains("float") || dtype.starts_with("complex");
                if spec.upstream.len() == 2 && floating {
                    assert!(spec.upstream[1].is_none(), "{}", case.id);
                    indexed += 1;
                }
            }
            (
                "multiply" | "true_divide" | "divide" | "subtract" | "arctan2" | "broadcast_to",
                _,
            ) => respelled += 1,
            _ => {}
        }
        ties += usize::from(case.tags.iter().any(|t| t == "ties"));
    }
    for dtype in [
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ] {
        assert!(
            leaf_dtypes.contains(dtype),
            "no {dtype} leaf: {leaf_dtypes:?}"
        );
    }
    for (what, n) in [
        ("matmul over broadcast batch dims", batched),
        ("einsum", einsum),
        ("max/min over a dim", indexed),
        ("ties", ties),
        ("respelled calls", respelled),
    ] {
        assert!(n >= 5, "only {n} cases of {what}");
    }
}
