//! The op catalogue (`bcast_conformance::ops`) is the one list of the ops the suite knows:
//! every op a case calls (the fixtures and the libtorch op corpus) is in it, every form it
//! lists has torch-labelled fixture cases, every generator draws only catalogue ops, and every
//! keyword a case passes is one the catalogue names.

use bcast_conformance::case::{load_dir, LoadedCase, Outcome, ResultValue};
use bcast_conformance::ops::{all_fn_names, lookup};
use bcast_fuzzing::generators::{families, generate};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn fixtures() -> Vec<LoadedCase> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")).expect("fixtures load")
}

/// The libtorch op corpus: hand-written cases of op forms libtorch has, labelled by torch,
/// checked against libtorch by `tch_diff.rs` (the engine may lack some of them).
fn libtorch_op_corpus() -> Vec<LoadedCase> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/tests/data/tch_ops.json");
    bcast_conformance::case::load_file(&path).expect("tch_ops.json loads")
}

#[test]
fn every_case_op_is_in_the_catalogue_and_every_entry_has_cases() {
    // Coverage counts the torch-labelled fixtures only: the libtorch op corpus is checked
    // against libtorch, not against Python torch, and a form it alone calls is not gated.
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for c in fixtures() {
        *used.entry(c.case.call.fn_.clone()).or_default() += 1;
    }
    let corpus: BTreeSet<String> = libtorch_op_corpus()
        .into_iter()
        .map(|c| c.case.call.fn_)
        .collect();
    let unknown: Vec<&String> = used
        .keys()
        .chain(&corpus)
        .filter(|f| lookup(f).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "case ops not in the catalogue: {unknown:?}"
    );
    let listed: BTreeSet<String> = all_fn_names().into_iter().collect();
    let unused: Vec<&String> = listed.iter().filter(|f| !used.contains_key(*f)).collect();
    assert!(
        unused.is_empty(),
        "catalogue forms without a torch-labelled fixture case: {unused:?}"
    );
}

#[test]
fn every_case_keyword_is_one_the_catalogue_names() {
    // Cases of Python's argument rules pass other keywords: the `pyargs` family (NumPy's
    // names, unknown keywords) and calls torch refuses with a TypeError (or, for a reflected
    // operator, with NotImplemented).
    let refused = |c: &LoadedCase| match &c.case.expect {
        Some(Outcome::Error(e)) => e.kind == "TypeError",
        Some(Outcome::Ok(ok)) => ok.result == ResultValue::NotImplemented,
        None => false,
    };
    let cases = fixtures().into_iter().chain(libtorch_op_corpus());
    for c in cases.filter(|c| !c.case.tags.iter().any(|t| t == "pyargs") && !refused(c)) {
        let (op, _) = lookup(&c.case.call.fn_).unwrap();
        for kw in c.case.call.kwargs.keys() {
            assert!(
                op.kwargs.contains(&kw.as_str()),
                "{}: {} passes {kw}= which the catalogue does not list",
                c.case.id,
                c.case.call.fn_
            );
        }
    }
}

#[test]
fn generators_draw_only_catalogue_ops() {
    for family in families() {
        for index in 0..300 {
            let case = generate(family, 7, index);
            assert!(
                lookup(&case.call.fn_).is_some(),
                "generator {} drew {} (index {index}), which the catalogue lacks",
                family.name,
                case.call.fn_
            );
        }
    }
}

#[test]
fn ops_md_is_what_bcast_ops_prints() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(["ops", "--markdown"])
        .current_dir(&repo)
        .output()
        .expect("bcast runs");
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let committed = std::fs::read_to_string(repo.join("OPS.md")).unwrap();
    assert!(
        printed == committed,
        "OPS.md is stale: run `cargo run --release -- ops --markdown > OPS.md`"
    );
    for name in all_fn_names() {
        assert!(committed.contains(&format!("| `{name}`")), "{name} missing");
    }
}
