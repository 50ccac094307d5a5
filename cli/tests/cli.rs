//! The `bcast` binary end to end: filters, expected failures, reports and exit codes, against
//! the reference engine and the test adapter `tests/adapters/misbehave.py`.

use bcast_conformance::case::load_file;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("bcast runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn adapter(mode: &str, n: usize, state: &Path) -> String {
    let script = repo().join("conformance/tests/adapters/misbehave.py");
    format!(
        "python3 {} {mode} {n} {}",
        script.display(),
        state.display()
    )
}

const NUMEL: &str = "conformance/tests/data/numel.json";
const EXPAND: &str = "conformance/tests/data/expand.json";

#[test]
fn the_default_job_runs_the_fixtures_against_the_reference_engine() {
    let out = bcast(&[]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("reference: "), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("Tensor.expand")),
        "{text}"
    );
}

#[test]
fn filters_select_by_op_tag_and_id() {
    let cases = load_file(&repo().join(EXPAND)).unwrap();
    let tagged = cases
        .iter()
        .filter(|c| c.case.tags.iter().any(|t| t == "offset"))
        .count();
    let out = bcast(&["run", EXPAND, "--tag", "offset"]);
    assert!(stdout(&out).contains(&format!("reference: {tagged} cases")));
    let out = bcast(&["run", EXPAND, "--id", "re:^expand/s1/[0-9]$"]);
    assert!(
        stdout(&out).contains("reference: 10 cases"),
        "{}",
        stdout(&out)
    );
    let teens_expand = cases
        .iter()
        .filter(|c| c.case.id.starts_with("expand/s1/1") && c.case.id.len() == "expand/s1/10".len())
        .filter(|c| c.case.call.fn_ == "Tensor.expand")
        .count();
    let out = bcast(&[
        "run",
        EXPAND,
        "--id",
        "expand/s1/1?",
        "--op",
        "Tensor.expand",
    ]);
    assert!(stdout(&out).contains(&format!("reference: {teens_expand} cases")));
    // A filter that selects nothing checks nothing: not a green run unless asked for.
    let out = bcast(&["run", EXPAND, "--op", "torch.add"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no case to run: none of the"));
    let out = bcast(&["run", EXPAND, "--op", "torch.add", "--allow-empty"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("reference: 0 cases"));
}

#[test]
fn unexpected_failures_fail_the_gate_and_are_described() {
    let dir = tempfile::tempdir().unwrap();
    let spec = adapter("crash", 2, &dir.path().join("state"));
    let out = bcast(&["run", NUMEL, "--backend", &spec]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("FAIL case numel/2 (conformance/tests/data/numel.json)"),
        "{err}"
    );
    assert!(err.contains("exit status: 3"), "{err}");
    assert!(
        err.contains("import torch"),
        "the failure carries a repro: {err}"
    );
    assert!(stdout(&out).contains("4 passed, 1 failed"));
}

#[test]
fn expected_failures_hold_the_gate_and_strict_mode_flags_unexpected_passes() {
    let dir = tempfile::tempdir().unwrap();
    let xfail = dir.path().join("xfail.txt");
    std::fs::write(&xfail, "# crashes\nnumel/2\nnumel/4  # passes now\n").unwrap();
    let xfail = xfail.display().to_string();
    for (strict, code) in [(false, 0), (true, 1)] {
        let state = dir.path().join(format!("state-{strict}"));
        let spec = adapter("crash", 2, &state);
        let mut args = vec!["run", NUMEL, "--backend", &spec, "--xfail", &xfail];
        if strict {
            args.push("--strict-xfail");
        }
        let out = bcast(&args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "strict {strict}: {}",
            stderr(&out)
        );
        assert!(stdout(&out).contains("3 passed, 0 failed, 1 xfailed, 1 xpassed"));
    }
}

#[test]
fn cases_outside_the_claims_are_skipped_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = adapter("good", 0, &dir.path().join("state"));
    let out = bcast(&["run", EXPAND, "--backend", &spec]);
    let n = load_file(&repo().join(EXPAND)).unwrap().len();
    assert!(stdout(&out).contains(&format!(
        "{n} cases, 0 passed, 0 failed, 0 xfailed, 0 xpassed, {n} skipped"
    )));
    // Skipped is not failed, but a run in which nothing ran is not green either.
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the backend ran none of the"));
    assert!(stderr(&out).contains("op Tensor.expand not claimed: 9"));
    let spec = adapter("good", 0, &dir.path().join("state"));
    let out = bcast(&["run", EXPAND, "--backend", &spec, "--allow-empty"]);
    assert!(out.status.success());
    // Levels are intersected with the claims (the adapter claims shapes and values); the
    // outcome (shapes) is always checked.
    let out = bcast(&[
        "run",
        NUMEL,
        "--backend",
        &spec,
        "--levels",
        "values,messages",
    ]);
    assert!(
        stdout(&out).contains("(levels: shapes,values)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn junit_and_json_reports_say_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let spec = adapter("wrong-id", 1, &dir.path().join("state"));
    let junit = dir.path().join("r.xml");
    let json = dir.path().join("r.json");
    let out = bcast(&[
        "run",
        NUMEL,
        "--backend",
        &spec,
        "--junit",
        &junit.display().to_string(),
        "--json",
        &json.display().to_string(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).is_empty(),
        "--quiet prints no failure: {}",
        stderr(&out)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"tests="5""#) && xml.contains(r#"failures="1""#),
        "{xml}"
    );
    assert!(xml.contains(r#"<testcase name="numel/1" classname="Tensor.numel""#));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["counts"]["pass"], 4);
    assert_eq!(report["counts"]["fail"], 1);
    let bad = &report["cases"][1];
    assert_eq!(bad["id"], "numel/1");
    assert_eq!(bad["status"], "fail");
    assert!(bad["detail"].as_str().unwrap().contains("answered id"));
    // A passing case records what the backend answered, which is what torch did.
    let expected = load_file(&repo().join(NUMEL)).unwrap()[0]
        .case
        .expect
        .clone();
    assert_eq!(
        report["cases"][0]["got"],
        serde_json::to_value(expected).unwrap()
    );
}

#[test]
fn a_run_that_cannot_start_exits_2_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = bcast(&["run", NUMEL, "--levels", "shapes,colour"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown level \"colour\""));
    let out = bcast(&["run", NUMEL, "--id", "re:("]);
    assert_eq!(out.status.code(), Some(2));
    let spec = adapter("bad-hello", 0, &dir.path().join("state"));
    let out = bcast(&["run", NUMEL, "--backend", &spec]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a hello"), "{}", stderr(&out));
    let out = bcast(&["run", "no/such/fixtures.json"]);
    assert_eq!(out.status.code(), Some(2));
}
