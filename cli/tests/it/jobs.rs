//! `bcast run --jobs N` and `--shard K/N`: several backend instances at once give the verdicts
//! and the report order of one; shards split the selection into disjoint parts that cover it.

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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `numel.json`'s cases copied `copies` times under new ids, every seventh with a wrong
/// expectation, so a run has passes and failures at known places.
pub(crate) fn numel_fixture(dir: &Path, copies: usize) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("conformance/tests/data/numel.json")).unwrap();
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let originals = file["cases"].as_array().unwrap().clone();
    let mut cases = Vec::new();
    for copy in 0..copies {
        for case in &originals {
            let mut case = case.clone();
            let n = cases.len();
            case["id"] = format!("numel-copy/{n}").into();
            if n % 7 == 3 {
                case["expect"] = serde_json::json!({"ok": {"result": {"int": 1000 + copy}}});
            }
            cases.push(case);
        }
    }
    file["cases"] = cases.into();
    let path = dir.join("numel-copies.json");
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    path
}

/// The report without timings, which differ from run to run.
fn report_without_timings(path: &Path) -> serde_json::Value {
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in report["cases"].as_array_mut().unwrap() {
        case.as_object_mut().unwrap().remove("elapsed_ms");
    }
    report
}

fn run_json(dir: &Path, args: &[&str], name: &str) -> (Output, serde_json::Value) {
    let json = dir.join(name);
    let mut all: Vec<&str> = args.to_vec();
    let json_arg = json.display().to_string();
    all.extend(["--json", &json_arg, "--quiet"]);
    let out = bcast(&all);
    let report = report_without_timings(&json);
    (out, report)
}

#[test]
fn adapter_processes_in_parallel_give_the_report_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_fixture(dir.path(), 12);
    let fixture = fixture.display().to_string();
    let script = repo().join("conformance/tests/adapters/misbehave.py");
    let spec = format!("python3 {} good", script.display());
    let (one, one_report) = run_json(dir.path(), &["run", &fixture, "--backend", &spec], "1.json");
    let (four, four_report) = run_json(
        dir.path(),
        &["run", &fixture, "--backend", &spec, "--jobs", "4"],
        "4.json",
    );
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(four.status.code(), Some(1), "{}", stderr(&four));
    assert_eq!(one_report["counts"]["fail"], 9, "{one_report}");
    assert_eq!(one_report["counts"]["pass"], 51);
    assert_eq!(one_report, four_report);
}

#[test]
fn in_process_threads_give_the_report_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_fixture(dir.path(), 6);
    let fixture = fixture.display().to_string();
    let paths = [fixture.as_str(), "conformance/tests/data/expand.json"];
    let mut one_args = vec!["run"];
    one_args.extend(paths);
    let mut three_args = one_args.clone();
    three_args.extend(["-j", "3"]);
    let (one, one_report) = run_json(dir.path(), &one_args, "1.json");
    let (three, three_report) = run_json(dir.path(), &three_args, "3.json");
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(three.status.code(), Some(1), "{}", stderr(&three));
    assert_eq!(one_report["cases"].as_array().unwrap().len(), 60);
    assert_eq!(one_report, three_report);
    assert_eq!(
        String::from_utf8_lossy(&one.stdout),
        String::from_utf8_lossy(&three.stdout)
    );
}

#[test]
fn a_hanging_adapter_stops_a_parallel_run_as_it_stops_one() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_fixture(dir.path(), 4);
    let script = repo().join("conformance/tests/adapters/misbehave.py");
    let spec = format!("python3 {} hang 0", script.display());
    let started = std::time::Instant::now();
    let out = bcast(&[
        "run",
        &fixture.display().to_string(),
        "--backend",
        &spec,
        "--jobs",
        "3",
        "--timeout-ms",
        "300",
        "--max-timeouts",
        "2",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("timed out on 2 cases in a row"),
        "{}",
        stderr(&out)
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the run did not stop: {:?}",
        started.elapsed()
    );
}

#[test]
fn shards_are_disjoint_and_cover_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_fixture(dir.path(), 8);
    let fixture = fixture.display().to_string();
    let ids = |report: &serde_json::Value| -> Vec<String> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, whole) = run_json(dir.path(), &["run", &fixture], "whole.json");
    let mut seen = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let (out, part) = run_json(
            dir.path(),
            &["run", &fixture, "--shard", &shard],
            &format!("{k}.json"),
        );
        assert!(
            stderr(&out).contains(&format!("shard {shard}: ")),
            "{}",
            stderr(&out)
        );
        let part_ids = ids(&part);
        assert!(!part_ids.is_empty() && part_ids.len() < 40, "{part_ids:?}");
        seen.extend(part_ids);
    }
    let mut all = ids(&whole);
    all.sort();
    seen.sort();
    assert_eq!(
        seen, all,
        "the shards together are the whole selection, once each"
    );
    // Their reports merge into the report of the whole run.
    let parts: Vec<String> = (1..=3)
        .map(|k| dir.path().join(format!("{k}.json")).display().to_string())
        .collect();
    let merged_path = dir.path().join("merged.json");
    let merged_arg = merged_path.display().to_string();
    let mut merge_args = vec!["merge-reports", "-o", merged_arg.as_str()];
    merge_args.extend(parts.iter().map(String::as_str));
    let out = bcast(&merge_args);
    assert!(out.status.success(), "{}", stderr(&out));
    let merged = report_without_timings(&merged_path);
    for field in ["backend", "levels", "counts", "level_counts"] {
        assert_eq!(merged[field], whole[field], "{field}");
    }
    let mut merged_ids = ids(&merged);
    merged_ids.sort();
    assert_eq!(merged_ids, all);
    // Overlapping parts are not the parts of one run.
    let twice = bcast(&["merge-reports", &parts[0], &parts[0]]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        stderr(&twice).contains("is in two reports"),
        "{}",
        stderr(&twice)
    );
    let bad = bcast(&["run", &fixture, "--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("1 <= K <= N"), "{}", stderr(&bad));
    let zero = bcast(&["run", &fixture, "--jobs", "0"]);
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn a_baseline_of_the_whole_run_holds_in_every_shard_under_strict_xfail() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = numel_fixture(dir.path(), 8).display().to_string();
    let baseline = dir.path().join("xfail.txt").display().to_string();
    let out = bcast(&["run", &fixture, "--quiet", "--write-xfail", &baseline]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let entries = std::fs::read_to_string(&baseline).unwrap();
    assert_eq!(entries.lines().filter(|l| !l.starts_with('#')).count(), 6);
    // Each part holds some of the baseline's cases only; the others' entries are not stale.
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let args = [
            "run", &fixture, "--quiet", "--shard", &shard, "--xfail", &baseline,
        ];
        let out = bcast(&[&args[..], &["--strict-xfail"]].concat());
        assert_eq!(out.status.code(), Some(0), "{shard}: {}", stderr(&out));
    }
    // A pattern that matches no case of the selection at all still fails a strict run.
    std::fs::write(&baseline, entries + "nothing/*\n").unwrap();
    let out = bcast(&[
        "run",
        &fixture,
        "--quiet",
        "--shard",
        "1/3",
        "--xfail",
        &baseline,
        "--strict-xfail",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("FAIL: the xfail pattern \"nothing/*\" matches no case"),
        "{}",
        stderr(&out)
    );
}
