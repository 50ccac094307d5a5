//! `claims`: the discrepancies between documents' claims (`fixtures/docs`) and torch, field
//! by field.

use bcast_conformance::case::{
    Claim, ClaimOutcome, DocClaim, ErrorOutcome, FixtureFile, Num, OkOutcome, Outcome, ResultValue,
    TensorResult,
};
use bcast_tooling::claims::discrepancies;

/// Reads one case of a fixture written by scripts/extract_docs.py (torch-labelled).
fn fixture_case(id: &str) -> (Claim, Outcome) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/docs");
    for entry in std::fs::read_dir(root).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let file: FixtureFile = serde_json::from_str(&text).unwrap();
        if let Some(c) = file.cases.into_iter().find(|c| c.id == id) {
            let DocClaim { claim, .. } = c.doc.unwrap();
            return (claim, c.expect.unwrap());
        }
    }
    panic!("no case {id}");
}

#[test]
fn old_in_place_message_differs_from_torch() {
    let (claim, expect) = fixture_case("docs/000/L81-add_");
    let d = discrepancies(&claim, &expect);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].field, "message");
    assert!(d[0]
        .actual
        .contains("doesn't match the broadcast shape [3, 3, 7]"));
}

#[test]
fn newer_notebook_message_agrees() {
    let (claim, expect) = fixture_case("docs/003/L78-add_");
    assert_eq!(discrepancies(&claim, &expect), vec![]);
}

#[test]
fn a_size_zero_tensor_has_one_dimension() {
    let (claim, expect) = fixture_case("docs/001/L28-dim");
    let d = discrepancies(&claim, &expect);
    assert_eq!(
        (d[0].field, d[0].claimed.as_str(), d[0].actual.as_str()),
        ("values", "0", "1")
    );
}

#[test]
fn a_zero_dim_tensor_broadcasts() {
    let (claim, expect) = fixture_case("docs/001/L28-broadcast_tensors-2");
    let d = discrepancies(&claim, &expect);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].field, "outcome");
    assert!(d[0].actual.contains("(2, 2), (2, 2)"), "{}", d[0].actual);
}

#[test]
fn expand_claims_agree() {
    for id in [
        "docs/002/L364-expand-c366",
        "docs/002/L364-expand-c370",
        "docs/002/L364-expand-c373",
        "docs/002/L418-repeat",
    ] {
        let (claim, expect) = fixture_case(id);
        assert_eq!(discrepancies(&claim, &expect), vec![], "{id}");
    }
}

#[test]
fn a_helper_raising_value_error_is_not_torch() {
    let (claim, expect) = fixture_case("docs/002/L209-broadcast_shapes");
    let fields: Vec<_> = discrepancies(&claim, &expect)
        .iter()
        .map(|d| d.field)
        .collect();
    assert_eq!(fields, vec!["error_type", "message"]);
}

#[test]
fn the_backcompat_warning_is_gone() {
    let (claim, expect) = fixture_case("docs/001/L113-add");
    let d = discrepancies(&claim, &expect);
    assert_eq!((d.len(), d[0].field), (1, "warning"));
    assert_eq!(d[0].actual, "no warning");
}

#[test]
fn each_field_is_compared() {
    let tensor = TensorResult {
        shape: vec![4, 3],
        dtype: "int64".into(),
        strides: vec![0, 1],
        offset: 0,
        storage: Some("s".into()),
        values: Some(vec![Num::Int(1), Num::Int(2)]),
        samples: None,
    };
    let torch = Outcome::Ok(OkOutcome {
        result: ResultValue::Tensor(tensor),
        storages: None,
        warnings: None,
        grads: None,
        backward_error: None,
    });
    let claim = Claim {
        outcome: ClaimOutcome::Ok,
        shape: Some(vec![3, 4]),
        values: Some(vec![Num::Float(1.0), Num::Float(2.5)]),
        strides: Some(vec![3, 1]),
        shares_storage: Some(false),
        warning: Some("UserWarning: x".into()),
        ..Claim::default()
    };
    let fields: Vec<_> = discrepancies(&claim, &torch)
        .iter()
        .map(|d| d.field)
        .collect();
    assert_eq!(
        fields,
        vec!["shape", "values", "strides", "shares_storage", "warning"]
    );
    let agreeing = Claim {
        outcome: ClaimOutcome::Ok,
        shape: Some(vec![4, 3]),
        values: Some(vec![Num::Float(1.00001), Num::Int(2)]),
        strides: Some(vec![0, 1]),
        shares_storage: Some(true),
        ..Claim::default()
    };
    assert_eq!(discrepancies(&agreeing, &torch), vec![]);
}

#[test]
fn int_results_compare_as_one_value() {
    let torch = Outcome::Ok(OkOutcome {
        result: ResultValue::Int(3000),
        storages: None,
        warnings: None,
        grads: None,
        backward_error: None,
    });
    let claim = |v| Claim {
        outcome: ClaimOutcome::Ok,
        values: Some(vec![Num::Int(v)]),
        ..Claim::default()
    };
    assert_eq!(discrepancies(&claim(3000), &torch), vec![]);
    assert_eq!(discrepancies(&claim(3), &torch)[0].claimed, "3");
}

#[test]
fn outcome_mismatch_is_one_discrepancy() {
    let torch = Outcome::Error(ErrorOutcome::new("RuntimeError", "m"));
    let claim = Claim {
        outcome: ClaimOutcome::Ok,
        shape: Some(vec![2]),
        ..Claim::default()
    };
    let d = discrepancies(&claim, &torch);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].claimed, "works, shape (2,)");
    assert_eq!(d[0].actual, "raises RuntimeError: \"m\"");
}
