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
    // From any directory: the corpus is inside the binary (`bcast-corpus`).
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .current_dir(empty.path())
        .output()
        .expect("bcast runs");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let cases = bcast_conformance::case::load_dir(&repo().join("fixtures")).unwrap();
    assert!(
        text.contains(&format!("reference: {} cases", cases.len())),
        "{text}"
    );
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

#[test]
fn every_run_prints_and_reports_its_pass_rate_per_level() {
    let dir = tempfile::tempdir().unwrap();
    let spec = adapter("crash", 2, &dir.path().join("state"));
    let json = dir.path().join("r.json");
    let out = bcast(&[
        "run",
        NUMEL,
        "--backend",
        &spec,
        "--json",
        &json.display().to_string(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1));
    // The adapter claims shapes and values; numel's int results are checked at `shapes`, and
    // `values` applies to tensor results only.
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l == "per level (passed/applicable): shapes 4/5 (80%), values n/a"),
        "{}",
        stdout(&out)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        report["level_counts"],
        serde_json::json!({"shapes": {"passed": 4, "applicable": 5},
                           "values": {"passed": 0, "applicable": 0}})
    );
    // Against the reference engine every level is checked, each over the cases it applies to.
    let cases = load_file(&repo().join(EXPAND)).unwrap();
    let errors = cases
        .iter()
        .filter(|c| {
            matches!(
                c.case.expect,
                Some(bcast_conformance::case::Outcome::Error(_))
            )
        })
        .count();
    let n = cases.len();
    let ok = n - errors;
    let out = bcast(&["run", EXPAND]);
    assert!(out.status.success());
    let want = format!(
        "per level (passed/applicable): shapes {n}/{n} (100%), dtypes {ok}/{ok} (100%), \
         values {ok}/{ok} (100%), errors {errors}/{errors} (100%), messages {errors}/{errors} \
         (100%), inplace {ok}/{ok} (100%), aliasing {ok}/{ok} (100%), strides {ok}/{ok} (100%), \
         grads n/a"
    );
    assert!(stdout(&out).lines().any(|l| l == want), "{}", stdout(&out));
}

#[test]
fn bcast_matrix_measures_the_backends_named_and_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("cwd");
    std::fs::create_dir(&work).unwrap();
    let expand = repo().join(EXPAND).display().to_string();
    let hostile = format!(
        "python3 {} claim '[\"shapes\",\"values\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args([
            "matrix",
            &expand,
            "--backend",
            "reference",
            "--backend",
            &hostile,
        ])
        .current_dir(&work)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let n = load_file(&repo().join(EXPAND)).unwrap().len();
    assert!(
        text.starts_with(&format!("Measured by `bcast matrix` over {n} cases of ")),
        "{text}"
    );
    let row = |name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| {name}")))
            .unwrap_or_else(|| panic!("no row {name}: {text}"));
        line.split('|').map(|c| c.trim().to_string()).collect()
    };
    let reference = row("reference");
    assert_eq!(reference[2], "in-process");
    assert_eq!(reference[5], format!("{n}/{n} (100%)"));
    let hostile_row = row("hostile-claim");
    assert_eq!(hostile_row[2], format!("protocol: {hostile}"));
    assert_eq!(hostile_row[5], format!("0/{n} (0%)"));
    assert_eq!(hostile_row[6], format!("0/{n} (0%)"), "shapes: {text}");
    assert_eq!(hostile_row[7], "—", "dtypes is not claimed: {text}");
    assert!(stderr(&out).contains("measuring reference"));
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        0,
        "no file written"
    );
    // A backend that does not start is a run that cannot start.
    let out = bcast(&["matrix", EXPAND, "--backend", "/no/such/adapter"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/adapter"),
        "{}",
        stderr(&out)
    );
    let out = bcast(&["matrix", EXPAND]);
    assert_eq!(out.status.code(), Some(2), "--backend is required");
}

/// A copy of the numel fixture in `dir`, with case `numel/2` expecting `numel2` instead of 0.
fn numel_copy(dir: &Path, numel2: i64) -> String {
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join(NUMEL)).unwrap()).unwrap();
    let case = file["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["id"] == "numel/2")
        .unwrap();
    case["expect"] = serde_json::json!({"ok": {"result": {"int": numel2}}});
    let path = dir.join("numel.json");
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    path.display().to_string()
}

#[test]
fn write_xfail_writes_a_baseline_that_the_next_run_passes_with_and_pins_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_copy(dir.path(), 0);
    let baseline = dir.path().join("baseline.txt");
    let base = baseline.display().to_string();
    // A failing run: the adapter crashes on numel/2.
    let spec = adapter("crash", 2, &dir.path().join("state-1"));
    let out = bcast(&["run", &fixture, "--backend", &spec, "--write-xfail", &base]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote 1 xfail entries to"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&baseline).unwrap();
    let entries: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(entries.len(), 1, "{text}");
    assert!(
        entries[0].starts_with(
            "numel/2  reason=backend:crashed  # backend failure (crashed): adapter misbehaved: \
             it exited (exit status: 3) before its answer"
        ),
        "{text}"
    );
    // Re-run with it: the failure is expected, the gate holds.
    let spec = adapter("crash", 2, &dir.path().join("state-2"));
    let out = bcast(&["run", &fixture, "--backend", &spec, "--xfail", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("4 passed, 0 failed, 1 xfailed"));
    // The case changes: now it fails for another reason than the one pinned.
    let fixture = numel_copy(dir.path(), 7);
    let spec = adapter("good", 0, &dir.path().join("state-3"));
    let out = bcast(&["run", &fixture, "--backend", &spec, "--xfail", &base]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("4 passed, 1 failed, 0 xfailed"));
    assert!(
        stderr(&out).contains(
            "FAIL (expected to fail with reason=backend:crashed, fails with reason=shapes) case numel/2"
        ),
        "{}",
        stderr(&out)
    );
    // An entry without a reason takes any failure.
    std::fs::write(&baseline, "numel/2  # any reason\n").unwrap();
    let out = bcast(&["run", &fixture, "--backend", &spec, "--xfail", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A reason that is not one is refused, naming the line.
    std::fs::write(&baseline, "# header\nnumel/2  reason=colour\n").unwrap();
    let out = bcast(&["run", &fixture, "--xfail", &base]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2: unknown reason \"colour\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn write_xfail_keeps_entries_that_hold_or_were_not_judged_and_reports_stale_ones() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_copy(dir.path(), 0);
    let known = dir.path().join("known.txt");
    std::fs::write(
        &known,
        "numel/2  reason=backend  # crashes\nnumel/4  # passes now\nother/*  # another op\n",
    )
    .unwrap();
    let written = dir.path().join("new.txt");
    let spec = adapter("crash", 2, &dir.path().join("state"));
    let out = bcast(&[
        "run",
        &fixture,
        "--backend",
        &spec,
        "--xfail",
        &known.display().to_string(),
        "--write-xfail",
        &written.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: the xfail entry numel/4 (line 2) is stale: its 1 case(s) pass now"),
        "{err}"
    );
    assert!(
        err.contains("note: the xfail pattern \"other/*\" matches no case of this run"),
        "{err}"
    );
    let text = std::fs::read_to_string(&written).unwrap();
    let entries: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        entries,
        [
            "numel/2  reason=backend  # crashes",
            "other/*  # another op"
        ],
        "{text}"
    );
}

#[test]
fn format_short_prints_one_line_per_failure_without_a_repro() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_copy(dir.path(), 7);
    let spec = adapter("crash", 1, &dir.path().join("state"));
    let out = bcast(&["run", &fixture, "--backend", &spec, "--format", "short"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(
            "FAIL numel/1: backend failure (crashed): adapter misbehaved: it exited (exit \
             status: 3) before its answer; its stderr ends with: boom"
        ),
        "{err}"
    );
    assert_eq!(
        lines[1], "FAIL numel/2: shapes: result: expected Int(7), got Int(0)",
        "{err}"
    );
    assert!(!err.contains("import torch"), "{err}");
    // The default prints the source, every difference and the repro.
    let spec = adapter("crash", 1, &dir.path().join("state-2"));
    let out = bcast(&["run", &fixture, "--backend", &spec]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("FAIL case numel/2"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("import torch"));
    let out = bcast(&["run", &fixture, "--format", "long"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown format is a bad option"
    );
}

/// The field paths of a JSON report: `cases[].id`, `level_counts.LEVEL.passed`, ...; the
/// outcomes under `expected` and `got` are the fixture schema's, not the report's.
fn report_paths(v: &serde_json::Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                let name = if path == "level_counts" { "LEVEL" } else { key };
                let p = if path.is_empty() {
                    name.to_string()
                } else {
                    format!("{path}.{name}")
                };
                out.insert(p.clone());
                if p != "cases[].expected" && p != "cases[].got" {
                    report_paths(child, &p, out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for child in items {
                report_paths(child, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn report_fields_are_the_documented_ones() {
    let doc = std::fs::read_to_string(repo().join("REPORT.md")).unwrap();
    let fields = doc.split("## Fields").nth(1).expect("a Fields section");
    let documented: std::collections::BTreeSet<String> = fields
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |"))
        .map(|(path, _)| path.to_string())
        .collect();
    assert!(documented.len() > 20, "{documented:?}");
    // A run with a pass, a failure by difference, a backend failure (the adapter fails its
    // first case), and a case the xfail list pins to another reason: every optional field
    // appears.
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_copy(dir.path(), 7);
    let xfail = dir.path().join("xfail.txt");
    std::fs::write(&xfail, "numel/2  reason=backend\n").unwrap();
    let json = dir.path().join("r.json");
    let spec = adapter("failure", 0, &dir.path().join("state"));
    let out = bcast(&[
        "run",
        &fixture,
        "--backend",
        &spec,
        "--xfail",
        &xfail.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut written = std::collections::BTreeSet::new();
    report_paths(&report, "", &mut written);
    assert_eq!(written, documented, "REPORT.md and the report differ");
    // A failing case carries torch's outcome beside the backend's answer.
    let failed = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "numel/2")
        .unwrap();
    assert_eq!(failed["status"], "fail");
    assert_eq!(
        failed["expected"],
        serde_json::json!({"ok": {"result": {"int": 7}}})
    );
    assert_eq!(
        failed["got"],
        serde_json::json!({"ok": {"result": {"int": 0}}})
    );
    assert_eq!(failed["xfail_reasons"], serde_json::json!(["backend"]));
    assert_eq!(failed["failed_levels"], serde_json::json!(["shapes"]));
    assert!(failed.get("failure_kind").is_none());
    let broken = &report["cases"][0];
    assert_eq!(broken["failure_kind"], "bad-input", "{broken}");
    assert_eq!(broken["failed_levels"], serde_json::json!(["shapes"]));
    let passed = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "pass")
        .unwrap();
    for field in ["expected", "failed_levels", "failure_kind"] {
        assert!(passed.get(field).is_none(), "a pass has no {field}");
    }
}

#[test]
fn bcast_gen_start_gives_the_case_of_that_index() {
    let all = bcast(&["gen", "--family", "binary", "--seed", "5", "--count", "4"]);
    assert!(all.status.success(), "{}", stderr(&all));
    let lines: Vec<String> = stdout(&all).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 4);
    let third = bcast(&[
        "gen", "--family", "binary", "--seed", "5", "--start", "2", "--count", "2",
    ]);
    assert!(third.status.success(), "{}", stderr(&third));
    let got: Vec<String> = stdout(&third).lines().map(str::to_owned).collect();
    assert_eq!(got, lines[2..]);
    assert_ne!(lines[0], lines[2]);
    let past = bcast(&[
        "gen",
        "--family",
        "binary",
        "--start",
        &u64::MAX.to_string(),
    ]);
    assert!(!past.status.success());
    assert!(
        stderr(&past).contains("exceeds the last index"),
        "{}",
        stderr(&past)
    );
}
