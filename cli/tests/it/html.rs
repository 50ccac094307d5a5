//! `bcast run --html` and `bcast matrix --html` write the page (its drawing is checked in a
//! browser by `scripts/check_html_report.py`, which CI runs).

use bcast_conformance::case::load_file;
use bcast_conformance::report::html::embedded_data;
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

const NUMEL: &str = "conformance/tests/data/numel.json";

#[test]
fn run_html_writes_the_page_with_every_failure() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let json = dir.path().join("report.json");
    // Answers `{"int": 0}` to every case: only numel/... cases of 0 elements pass.
    let hostile = format!(
        "python3 {} claim '[\"shapes\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast(&[
        "run",
        NUMEL,
        "--backend",
        &hostile,
        "--quiet",
        "--html",
        &page.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no external asset"
    );
    let data = embedded_data(&html).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(data["run"]["counts"], report["counts"]);
    let failed: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = data["run"]["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            data["run"]["id"][f["case"].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(!failed.is_empty());
    assert_eq!(listed, failed);
    assert_eq!(
        data["run"]["id"].as_array().unwrap().len(),
        load_file(&repo().join(NUMEL)).unwrap().len()
    );
}

#[test]
fn matrix_html_writes_one_page_for_every_backend() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("matrix.html");
    let hostile = format!(
        "python3 {} claim '[\"shapes\",\"values\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast(&[
        "matrix",
        NUMEL,
        "--backend",
        "reference",
        "--backend",
        &hostile,
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = embedded_data(&std::fs::read_to_string(&page).unwrap()).unwrap();
    let names: Vec<&str> = data["backends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["reference", "hostile-claim"]);
    // A page that cannot be written stops the command before it measures.
    let out = bcast(&[
        "matrix",
        NUMEL,
        "--backend",
        "reference",
        "--html",
        &dir.path().display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}
