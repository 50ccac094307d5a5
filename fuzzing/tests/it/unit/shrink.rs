//! `shrink`: shrunk cases keep their failure, never grow, and stop at a local minimum.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{validate_case, Case, ErrorOutcome, Outcome};
use bcast_fuzzing::__internals::shrink::{needed_len, storage_len};
use bcast_fuzzing::generators::{find_family, generate};
use bcast_fuzzing::shrink::{candidates, complexity, shrink};

fn error_of(case: &Case) -> Option<ErrorOutcome> {
    match run_reference(case) {
        Ok(Outcome::Error(e)) => Some(e),
        _ => None,
    }
}

/// Cases of the expand family that the engine rejects shrink to cases it rejects with the
/// same class, no more complex, and no bigger than they must be.
#[test]
fn shrinking_keeps_the_failure_and_never_grows() {
    let family = find_family("expand").expect("the expand family");
    let mut shrunk_some = 0;
    for index in 0..200 {
        let case = generate(family, 11, index);
        let Some(original) = error_of(&case) else {
            continue;
        };
        let small = shrink(&case, 500, |c| {
            error_of(c).is_some_and(|e| e.kind == original.kind)
        });
        assert!(validate_case(&small).is_ok(), "{}", case.id);
        assert_eq!(
            error_of(&small).map(|e| e.kind),
            Some(original.kind.clone())
        );
        assert!(complexity(&small) <= complexity(&case), "{}", case.id);
        // Nothing one step simpler still fails the same way.
        for c in candidates(&small) {
            if complexity(&c) < complexity(&small) && validate_case(&c).is_ok() {
                assert_ne!(
                    error_of(&c).map(|e| e.kind),
                    Some(original.kind.clone()),
                    "{} shrinks further",
                    case.id
                );
            }
        }
        for (name, s) in &small.storages {
            assert_eq!(storage_len(s), needed_len(&small, name), "{}", case.id);
        }
        shrunk_some += usize::from(complexity(&small) < complexity(&case));
    }
    assert!(shrunk_some > 10, "only {shrunk_some} cases shrank");
}

#[test]
fn a_predicate_that_always_holds_shrinks_to_the_simplest_case() {
    let family = find_family("expand").expect("the expand family");
    let case = generate(family, 5, 3);
    let small = shrink(&case, 10_000, |_| true);
    assert!(small
        .tensors
        .values()
        .all(|t| t.shape.is_empty() && t.offset == 0));
    assert!(candidates(&small)
        .iter()
        .all(|c| complexity(c) >= complexity(&small) || validate_case(c).is_err()));
}

#[test]
fn a_predicate_that_never_holds_keeps_the_case() {
    let family = find_family("expand").expect("the expand family");
    let case = generate(family, 5, 4);
    assert_eq!(shrink(&case, 10_000, |_| false), case);
}
