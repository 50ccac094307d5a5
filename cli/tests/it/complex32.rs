//! `complex32` (torch's `ComplexHalf`, schema 4) through the `bcast` binary: the reference
//! engine passes the torch-labelled cases (its kernels bit for bit, the kernels torch lacks by
//! their messages), and an adapter that does not claim `complex32` is never sent a case whose
//! storages or whose result (a `float16` tensor with a complex number) are `complex32`.

use super::gate::{bcast, counts, repo, shell_quote, text};
use bcast_conformance::case::{load_file, Outcome, ResultValue};

const REGRESSIONS: &str = "fixtures/regressions/complex32.json";

#[test]
fn the_reference_engine_passes_every_complex32_case() {
    let n = load_file(&repo().join(REGRESSIONS)).unwrap().len();
    let out = bcast(&["run", REGRESSIONS, "--format", "short"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(counts(&out), (n, n, 0, 0), "{}", text(&out));
    // The corpus's complex32 family, embedded in the binary, at every level too.
    let out = bcast(&["run", "--id", "complex32/*", "--format", "short"]);
    assert!(out.status.success(), "{}", text(&out));
    let (cases, passed, _, _) = counts(&out);
    assert!(cases >= 1000 && passed == cases, "{}", text(&out));
}

#[test]
fn an_adapter_without_complex32_is_sent_no_complex32_case() {
    let cases = load_file(&repo().join(REGRESSIONS)).unwrap();
    let complex32 = |dtype: &str| dtype == "complex32";
    let result_is = |c: &bcast_conformance::case::LoadedCase| match &c.case.expect {
        Some(Outcome::Ok(ok)) => {
            matches!(&ok.result, ResultValue::Tensor(t) if complex32(&t.dtype))
        }
        _ => false,
    };
    let stored = |c: &bcast_conformance::case::LoadedCase| {
        c.case.storages.values().any(|s| complex32(&s.dtype))
    };
    let outside = cases.iter().filter(|c| result_is(c) || stored(c)).count();
    // Some complex32 results come from other dtypes alone (float16 with a complex number).
    let promoted = cases.iter().filter(|c| result_is(c) && !stored(c)).count();
    assert!(
        promoted > 0 && outside < cases.len(),
        "{promoted} {outside}"
    );
    // `impostor.py` answers each case with torch's outcome and claims the twelve other dtypes.
    let dir = tempfile::tempdir().unwrap();
    let script = repo().join("cli/tests/adapters/impostor.py");
    let fixture = repo().join(REGRESSIONS);
    let adapter = shell_quote(&[
        "python3",
        &script.display().to_string(),
        "starts",
        &dir.path().display().to_string(),
        &fixture.display().to_string(),
    ]);
    let report = dir.path().join("report.json");
    let report_arg = report.display().to_string();
    let out = bcast(&[
        "run",
        REGRESSIONS,
        "--backend",
        &adapter,
        "--json",
        &report_arg,
    ]);
    let n = cases.len();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(counts(&out), (n, n - outside, 0, outside), "{}", text(&out));
    // Each skipped case says why: its complex32 dtype, which the adapter does not claim.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let skipped: Vec<&serde_json::Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "skip")
        .collect();
    assert_eq!(skipped.len(), outside);
    assert!(
        skipped
            .iter()
            .all(|c| c["detail"] == "skipped: dtype complex32 not claimed"),
        "{skipped:?}"
    );
}
