//! `bcast diff --jobs N` (feature `torch`): several workers give the verdicts and the per-family
//! tally of one, and the tally accounts for every case.
#![cfg(feature = "torch")]

use std::path::Path;
use std::process::Command;

fn diff(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .arg("diff")
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("bcast runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The summary without the lines that carry timings (the first two).
fn verdicts(summary: &str) -> Vec<&str> {
    summary.lines().skip(2).collect()
}

#[test]
fn jobs_do_not_change_the_summary() {
    let common = ["--seed", "11", "--count", "900", "--no-python"];
    let one = diff(&[&common[..], &["--jobs", "1"]].concat());
    let three = diff(&[&common[..], &["--jobs", "3"]].concat());
    assert!(one.contains("with 1 job:"), "{one}");
    assert!(three.contains("with 3 jobs:"), "{three}");
    assert_eq!(verdicts(&one), verdicts(&three));
}

#[test]
fn dtypes_restrict_what_is_drawn() {
    let summary = diff(&[
        "--seed",
        "13",
        "--count",
        "300",
        "--no-python",
        "--dtypes",
        "float16,int8",
    ]);
    assert!(
        summary.contains(" over float16, int8 (seed 13)"),
        "{summary}"
    );
    assert!(diff(&["--seed", "13", "--count", "30", "--no-python"]).contains(" over every dtype "));
}

#[test]
fn the_family_table_accounts_for_every_case() {
    let summary = diff(&[
        "--seed",
        "12",
        "--count",
        "450",
        "--no-python",
        "--jobs",
        "2",
    ]);
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("family"))
        .skip(1)
        .take_while(|l| !l.starts_with("    "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    // One row per family, in the order the first line names them.
    let named = summary.split(" cases of ").nth(1).unwrap();
    let named: Vec<&str> = named.split(" over ").next().unwrap().split(", ").collect();
    let listed: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(listed, named, "{summary}");
    let column = |i: usize| -> u64 { rows.iter().map(|r| r[i].parse::<u64>().unwrap()).sum() };
    assert_eq!(column(1), 450);
    // Without Python torch nothing goes that way, and broadcast_shapes is Python-only.
    assert_eq!(column(3), 0);
    let shapes = rows.iter().find(|r| r[0] == "broadcast_shapes").unwrap();
    assert_eq!(shapes[2], "0.00%");
    assert_eq!(
        shapes[4], shapes[1],
        "every broadcast_shapes case is unsupported"
    );
}
