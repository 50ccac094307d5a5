//! The gradient oracles over seeded draws (the `grad` fuzz target drives the same oracles with
//! coverage guidance): the engine's backward against central differences of its own forward
//! ([`gradcheck`]), and the broadcast law ([`grad_broadcast`]). Each test also shows that
//! its oracle reaches what it is for (coordinates of real and complex inputs compared,
//! stretched inputs compared exactly and within tolerance), and that it panics on a backward
//! that is wrong.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{Case, Num, Outcome};
use bcast_fuzzing::generators::{find_family, generate, seeded_bytes, GRAD_FAMILY};
use bcast_fuzzing::oracles::{grad_broadcast, gradcheck};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Draws per test.
const DRAWS: u64 = 300;

#[test]
fn the_backward_agrees_with_central_differences_of_the_forward() {
    let mut cases = 0;
    let mut total = gradcheck::Checked::default();
    for i in 0..DRAWS {
        let checked = gradcheck::check(&seeded_bytes(39_004, i));
        cases += usize::from(checked.compared > 0);
        total.compared += checked.compared;
        total.skipped += checked.skipped;
        total.complex += checked.complex;
    }
    assert!(cases >= 100, "only {cases} of {DRAWS} cases compared");
    assert!(total.complex >= 200, "{total:?}");
    // Points that are not differentiable are rare once the values are jittered.
    assert!(total.skipped * 5 < total.compared, "{total:?}");
}

#[test]
fn the_gradient_of_a_stretched_input_is_the_sum_over_its_stretched_dims() {
    let mut total = grad_broadcast::Checked::default();
    for i in 0..DRAWS {
        let checked = grad_broadcast::check(&seeded_bytes(39_005, i));
        total.stretched += checked.stretched;
        total.exact += checked.exact;
        total.unstretched += checked.unstretched;
    }
    assert!(total.stretched >= 60, "{total:?}");
    assert!(total.exact >= 20, "{total:?}");
    assert!(total.stretched - total.exact >= 20, "{total:?}");
    assert!(total.unstretched >= 20, "{total:?}");
}

/// A gradient case of `torch.mul(a, b)`, `a` of shape (3,) stretched against `b` of (2, 3),
/// from the grad family's draws.
fn a_broadcast_mul() -> Case {
    let case: Case = serde_json::from_str(
        r#"{"id": "mul", "tags": ["grad"],
        "storages": {"a": {"dtype": "float32", "fill": {"kind": "random", "len": 3, "seed": 1}},
                     "b": {"dtype": "float32", "fill": {"kind": "random", "len": 6, "seed": 2}},
                     "g": {"dtype": "float32", "fill": {"kind": "random", "len": 6, "seed": 3}}},
        "tensors": {"a": {"storage": "a", "shape": [3], "strides": [1]},
                    "b": {"storage": "b", "shape": [2, 3], "strides": [3, 1]},
                    "g": {"storage": "g", "shape": [2, 3], "strides": [3, 1]}},
        "call": {"fn": "torch.mul", "args": [{"tensor": "a"}, {"tensor": "b"}]},
        "grad": {"wrt": ["a", "b"], "upstream": ["g"]}}"#,
    )
    .unwrap();
    assert!(matches!(run_reference(&case), Ok(Outcome::Ok(ok)) if ok.grads.is_some()));
    case
}

/// The oracles on a backward made wrong: `a`'s gradient scaled by 1.5.
fn with_wrong_gradient(case: &Case) -> Result<Outcome, bcast_conformance::backend::BackendFailure> {
    let mut outcome = run_reference(case)?;
    if let Outcome::Ok(ok) = &mut outcome
        && let Some(Some(g)) = ok.grads.as_mut().and_then(|g| g.get_mut("a"))
    {
        for v in g.values.iter_mut().flatten() {
            *v = match *v {
                Num::Complex(re, im) => Num::Complex(1.5 * re, 1.5 * im),
                v => Num::Float(1.5 * v.to_f64()),
            };
        }
    }
    Ok(outcome)
}

/// A backward whose sum over stretched dims is wrong: `a`'s gradient scaled where `a` has its
/// own shape (3,), not where it comes pre-expanded to (2, 3).
fn with_wrong_sum(case: &Case) -> Result<Outcome, bcast_conformance::backend::BackendFailure> {
    if case.tensors["a"].shape == [3] {
        with_wrong_gradient(case)
    } else {
        run_reference(case)
    }
}

#[test]
fn both_oracles_panic_on_a_wrong_backward() {
    let case = a_broadcast_mul();
    let right = gradcheck::check_case_with(&case, 7, &run_reference);
    assert_eq!(right.compared, 9, "{right:?}");
    let wrong = catch_unwind(AssertUnwindSafe(|| {
        gradcheck::check_case_with(&case, 7, &with_wrong_gradient)
    }));
    let message = *wrong.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("the gradient of a[0] is"), "{message}");

    let right = grad_broadcast::check_case_with(&case, false, &run_reference);
    assert_eq!((right.stretched, right.unstretched), (1, 1), "{right:?}");
    let exact = grad_broadcast::check_case_with(&case, true, &run_reference);
    assert_eq!(exact.exact, 1, "{exact:?}");
    let wrong = catch_unwind(AssertUnwindSafe(|| {
        grad_broadcast::check_case_with(&case, true, &with_wrong_sum)
    }));
    let message = *wrong.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("the gradient of a: element"), "{message}");
    // Scaled on both sides, the law still holds: what it checks is the sum.
    grad_broadcast::check_case_with(&case, true, &with_wrong_gradient);
}

#[test]
fn the_finite_differences_follow_torchs_conjugate_convention() {
    // `a * (2-3j)` with upstream 1 gives `2+3j` (torch 2.13.0, issue's observation): the
    // oracle compares the engine's complex gradients with `∂L/∂Re + i ∂L/∂Im`, and a
    // gradient conjugated the other way fails it.
    let case: Case = serde_json::from_str(
        r#"{"id": "cmul", "tags": ["grad"],
        "storages": {"a": {"dtype": "complex64", "values": [[1, 2], [-0.5, 0.25]]},
                     "g": {"dtype": "complex64", "values": [[1, 0], [0.5, -1]]}},
        "tensors": {"a": {"storage": "a", "shape": [2], "strides": [1]},
                    "g": {"storage": "g", "shape": [2], "strides": [1]}},
        "call": {"fn": "torch.mul", "args": [{"tensor": "a"}, {"complex": [2, -3]}]},
        "grad": {"wrt": ["a"], "upstream": ["g"]}}"#,
    )
    .unwrap();
    let checked = gradcheck::check_case_with(&case, 1, &run_reference);
    assert_eq!((checked.compared, checked.complex), (4, 4), "{checked:?}");
    let conjugated = |c: &Case| {
        let mut outcome = run_reference(c)?;
        if let Outcome::Ok(ok) = &mut outcome {
            for g in ok.grads.iter_mut().flat_map(|g| g.values_mut()).flatten() {
                for v in g.values.iter_mut().flatten() {
                    if let Num::Complex(re, im) = *v {
                        *v = Num::Complex(re, -im);
                    }
                }
            }
        }
        Ok(outcome)
    };
    assert!(catch_unwind(AssertUnwindSafe(|| {
        gradcheck::check_case_with(&case, 1, &conjugated)
    }))
    .is_err());
}

#[test]
fn the_grad_family_corpus_draws_pass_both_oracles() {
    // The seed of fixtures/torch/grad.json's first cases, through both oracles as cases.
    let family = find_family(GRAD_FAMILY).unwrap();
    for i in 0..40 {
        let case = generate(family, 1, i);
        gradcheck::check_case_with(&case, i, &run_reference);
        grad_broadcast::check_case_with(&case, i % 2 == 0, &run_reference);
    }
}
