//! The shrinker on planted bugs, without libtorch: the reference engine is the oracle and a
//! copy of it with one planted bug is the engine under test. Every finding must shrink to a
//! local minimum (no one-step simplification of `shrink::candidates` keeps the finding) that is
//! small: no operand that adds nothing, at most three dims, sizes of at most 2. A planted bug
//! in the gradients shrinks to a case that still asks for them, its upstream gradients
//! refitted to its smaller results.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities};
use bcast_conformance::case::{validate_case, Arg, Case, Num, Outcome, ResultValue};
use bcast_fuzzing::diff::{diff_case, DiffVerdict};
use bcast_fuzzing::generators::{find_family, generate, GRAD_FAMILY};
use bcast_fuzzing::shrink::{candidates, complexity, shrink};

/// The reference engine, except that every result tensor of two or more dims reports its
/// strides reversed (in a list of results too).
struct ReversedStrides;

fn reverse(value: &mut ResultValue) {
    match value {
        ResultValue::Tensor(t) if t.strides.len() >= 2 => t.strides.reverse(),
        ResultValue::Tensors(ts) => ts.iter_mut().for_each(|t| {
            if t.strides.len() >= 2 {
                t.strides.reverse()
            }
        }),
        _ => {}
    }
}

impl Backend for ReversedStrides {
    fn name(&self) -> String {
        "reference with reversed strides".into()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        let mut outcome = ReferenceBackend.run(case)?;
        if let Outcome::Ok(ok) = &mut outcome {
            reverse(&mut ok.result);
        }
        Ok(outcome)
    }
}

/// Shrinks every finding among the first `count` cases of `family` and checks it; returns the
/// shrunk cases.
fn shrink_findings(family: &str, seed: u64, count: u64) -> Vec<Case> {
    let family = find_family(family).expect("the family");
    let mut shrunk = Vec::new();
    for index in 0..count {
        let case = generate(family, seed, index);
        let run = diff_case(&mut ReversedStrides, &mut ReferenceBackend, &case);
        if !run.verdict.is_finding() {
            continue;
        }
        let finding = |c: &Case| {
            run.verdict
                .same_finding(&diff_case(&mut ReversedStrides, &mut ReferenceBackend, c).verdict)
        };
        let small = shrink(&case, 5000, finding);
        assert!(
            finding(&small),
            "{}: the shrunk case lost the finding",
            case.id
        );
        assert!(validate_case(&small).is_ok());
        assert!(complexity(&small) <= complexity(&case));
        for c in candidates(&small) {
            if complexity(&c) < complexity(&small) && validate_case(&c).is_ok() {
                assert!(!finding(&c), "{} shrinks further:\n{c:?}", case.id);
            }
        }
        // Nothing much larger than the bug needs: two dims of size 2 show reversed strides (a
        // local minimum may keep a third dim of size 0 or 1, as `[1, 1, 0]`).
        for t in small.tensors.values() {
            assert!(t.shape.len() <= 3, "{}: {:?}", case.id, t.shape);
            assert!(
                t.shape.iter().all(|&s| s <= 2),
                "{}: {:?} in {}",
                case.id,
                t.shape,
                serde_json::to_string(&small).unwrap()
            );
        }
        for s in small.storages.values() {
            assert!(
                s.values.iter().flatten().all(|v| v.to_f64() == 0.0),
                "{}: values the bug does not need: {s:?}",
                case.id
            );
        }
        shrunk.push(small);
    }
    assert!(!shrunk.is_empty(), "the planted bug was never found");
    shrunk
}

#[test]
fn binary_findings_shrink_to_two_small_operands() {
    for small in shrink_findings("binary", 3, 150) {
        let tensors = small
            .call
            .args
            .iter()
            .filter(|a| matches!(a, Arg::Tensor(_)))
            .count();
        assert!(tensors <= 2, "{}: {:?}", small.id, small.call);
        assert!(
            small.call.kwargs.is_empty(),
            "{}: {:?}",
            small.id,
            small.call.kwargs
        );
    }
}

#[test]
fn broadcast_tensors_findings_keep_no_extra_operand() {
    for small in shrink_findings("broadcast_tensors", 4, 150) {
        let operands: Vec<&str> = small
            .call
            .args
            .iter()
            .flat_map(|a| match a {
                Arg::Tensors(names) => names.iter().map(String::as_str).collect(),
                Arg::Tensor(name) => vec![name.as_str()],
                _ => vec![],
            })
            .collect();
        // One or two operands show the bug; a third adds nothing a smaller case lacks.
        assert!(
            operands.len() <= 2,
            "{}: {}",
            small.id,
            serde_json::to_string(&small).unwrap()
        );
    }
}

#[test]
fn copy_findings_lose_their_strides() {
    for small in shrink_findings("copy", 5, 150) {
        for t in small.tensors.values() {
            let plain = bcast_engine::layout::contiguous_strides(&t.shape);
            assert!(
                t.strides == plain.as_slice() || t.strides.iter().all(|&s| s <= 2),
                "{}: strides {:?} of shape {:?}",
                small.id,
                t.strides,
                t.shape
            );
        }
    }
}

/// The reference engine, except that the gradient of an input whose shape broadcasts to its
/// first result's and is not that shape (an input that was stretched) comes back doubled: a
/// planted bug of the sum over broadcast dims.
struct DoubledStretchedGradients;

impl Backend for DoubledStretchedGradients {
    fn name(&self) -> String {
        "reference with doubled gradients of stretched inputs".into()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        let mut outcome = ReferenceBackend.run(case)?;
        if let Outcome::Ok(ok) = &mut outcome {
            let shape = match &ok.result {
                ResultValue::Tensor(t) => t.shape.clone(),
                ResultValue::Tensors(ts) => ts.first().map(|t| t.shape.clone()).unwrap_or_default(),
                _ => return Ok(outcome),
            };
            let stretched = |s: &[i64]| {
                s != shape.as_slice()
                    && s.len() <= shape.len()
                    && s.iter()
                        .rev()
                        .zip(shape.iter().rev())
                        .all(|(&a, &b)| a == b || a == 1)
            };
            for g in ok.grads.iter_mut().flat_map(|g| g.values_mut()).flatten() {
                if stretched(&g.shape) {
                    for v in g.values.iter_mut().flatten() {
                        *v = Num::Float(2.0 * v.to_f64());
                    }
                }
            }
        }
        Ok(outcome)
    }
}

/// The result shapes and dtypes of a case, as the reference engine computes them.
fn results_of(case: &Case) -> Vec<(Vec<i64>, String)> {
    match ReferenceBackend.run(case) {
        Ok(Outcome::Ok(ok)) => match ok.result {
            ResultValue::Tensor(t) => vec![(t.shape, t.dtype)],
            ResultValue::Tensors(ts) => ts.into_iter().map(|t| (t.shape, t.dtype)).collect(),
            _ => vec![],
        },
        _ => vec![],
    }
}

#[test]
fn gradient_findings_shrink_with_their_upstream_gradients() {
    let family = find_family(GRAD_FAMILY).expect("the grad family");
    let mut shrunk = 0;
    for index in 0..120 {
        let case = generate(family, 6, index);
        let run = diff_case(&mut DoubledStretchedGradients, &mut ReferenceBackend, &case);
        if !matches!(run.verdict, DiffVerdict::Mismatch(_)) {
            continue;
        }
        let finding = |c: &Case| {
            run.verdict.same_finding(
                &diff_case(&mut DoubledStretchedGradients, &mut ReferenceBackend, c).verdict,
            )
        };
        let small = shrink(&case, 5000, finding);
        let json = serde_json::to_string(&small).unwrap();
        assert!(
            finding(&small),
            "{}: the shrunk case lost the finding",
            case.id
        );
        assert!(validate_case(&small).is_ok());
        assert!(complexity(&small) < complexity(&case), "{}", case.id);
        for c in candidates(&small) {
            if complexity(&c) < complexity(&small) && validate_case(&c).is_ok() {
                assert!(!finding(&c), "{} shrinks further:\n{c:?}", case.id);
            }
        }
        // Still a case with gradients: its names are its tensors', one input requires grad
        // (the one the bug needs), and each upstream has its result's shape and dtype.
        let spec = small.grad.as_ref().expect("a case with gradients");
        assert_eq!(spec.wrt.len(), 1, "{json}");
        for name in spec.wrt.iter().chain(spec.upstream.iter().flatten()) {
            assert!(small.tensors.contains_key(name), "{json}");
        }
        let results = results_of(&small);
        assert_eq!(results.len(), spec.upstream.len(), "{json}");
        for ((shape, dtype), up) in results.iter().zip(&spec.upstream) {
            let Some(up) = up else { continue };
            let t = &small.tensors[up];
            let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            assert_eq!(
                (&t.shape, &small.storages[&t.storage].dtype),
                (&shape, dtype),
                "{json}"
            );
        }
        // Small: a stretched dim of size 2 shows the bug, in two dims (three for `bmm`,
        // which takes nothing else).
        let rank = if small.call.fn_.ends_with("bmm") {
            3
        } else {
            2
        };
        for t in small.tensors.values() {
            assert!(
                t.shape.len() <= rank && t.shape.iter().all(|&s| s <= 2),
                "{json}"
            );
        }
        shrunk += 1;
        if shrunk >= 8 {
            break;
        }
    }
    assert!(shrunk >= 3, "the planted bug was found {shrunk} times");
}
