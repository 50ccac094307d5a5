//! A gate that cannot be fooled: `bcast run` against adapters that try to pass without doing
//! the work (`tests/adapters/hostile.py`) and fixtures that are malformed on purpose
//! (`tests/gate/malformed/`). Each test asserts the exit code, the message, and that no case
//! passed that was not checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub(crate) fn bcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .expect("bcast runs")
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub(crate) fn hostile(mode: &str, arg: &str) -> String {
    let script = repo().join("cli/tests/adapters/hostile.py");
    shell_quote(&["python3", &script.display().to_string(), mode, arg])
}

pub(crate) fn shell_quote(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The summary line's counts: (cases, passed, failed, skipped).
pub(crate) fn counts(o: &Output) -> (usize, usize, usize, usize) {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains(" cases, "))
        .unwrap_or_else(|| panic!("no summary line in {}", text(o)));
    let number = |word: &str| -> usize {
        let before = line.split(word).next().unwrap();
        before
            .rsplit(|c: char| !c.is_ascii_digit())
            .find(|s| !s.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    (
        number(" cases"),
        number(" passed"),
        number(" failed"),
        number(" skipped"),
    )
}

pub(crate) const EXPAND: &str = "conformance/tests/data/expand.json";
const INT64: &str = "fixtures/regressions/int64-exact.json";

#[test]
fn an_adapter_that_claims_no_level_fails_every_case_it_got_wrong() {
    for (claim, checked) in [(r#"[]"#, "shapes"), (r#"["messages"]"#, "shapes,messages")] {
        let out = bcast(&["run", EXPAND, "-q", "--backend", &hostile("claim", claim)]);
        assert_eq!(out.status.code(), Some(1), "{claim}: {}", text(&out));
        let (cases, passed, failed, _) = counts(&out);
        assert!(
            cases > 0 && passed == 0 && failed == cases,
            "{claim}: {}",
            text(&out)
        );
        assert!(
            text(&out).contains(&format!("(levels: {checked})")),
            "{}",
            text(&out)
        );
        let only_outcome = text(&out).contains("note: only the outcome is checked");
        assert_eq!(only_outcome, claim == "[]", "{}", text(&out));
    }
}

#[test]
fn no_levels_option_switches_the_outcome_check_off() {
    let adapter = hostile("claim", r#"["values"]"#);
    for levels in ["", "messages", "strides,errors"] {
        let out = bcast(&[
            "run",
            EXPAND,
            "-q",
            "--levels",
            levels,
            "--backend",
            &adapter,
        ]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "--levels {levels:?}: {}",
            text(&out)
        );
        let (cases, passed, _, _) = counts(&out);
        assert!(
            cases > 0 && passed == 0,
            "--levels {levels:?}: {}",
            text(&out)
        );
        assert!(text(&out).contains("only the outcome is checked"));
    }
}

#[test]
fn a_hello_with_an_unknown_level_or_dtype_is_refused_naming_the_field() {
    let out = bcast(&[
        "run",
        EXPAND,
        "--backend",
        &hostile("claim", r#"["shapes", "colour"]"#),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(r#"capabilities.levels: unknown level "colour""#),
        "{}",
        text(&out)
    );
    let out = bcast(&[
        "run",
        EXPAND,
        "--backend",
        &hostile("claim-dtypes", r#"["float32", "f32"]"#),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(r#"capabilities.dtypes: unknown dtype "f32""#),
        "{}",
        text(&out)
    );
}

#[test]
fn malformed_fixtures_are_load_errors_naming_file_and_case() {
    for (file, case, needle) in [
        ("no-expect", "malformed/no-expect", "no `expect`"),
        (
            "two-outcomes",
            "malformed/two-outcomes",
            "exactly one outcome",
        ),
        ("typo", "malformed/typo", "unknown field `expcet`"),
    ] {
        let path = format!("cli/tests/gate/malformed/{file}.json");
        let out = bcast(&["run", &path]);
        assert_eq!(out.status.code(), Some(2), "{file}: {}", text(&out));
        let t = text(&out);
        assert!(
            t.contains(&path) && t.contains(&format!("case {case}:")) && t.contains(needle),
            "{file}: {t}"
        );
        assert!(!t.contains(" passed"), "{file}: no case may run: {t}");
    }
}

#[test]
fn int64_values_compare_exactly_and_a_float_is_no_integer() {
    let out = bcast(&["run", INT64]);
    assert!(out.status.success(), "the engine is exact: {}", text(&out));
    let out = bcast(&["run", INT64, "--backend", &hostile("floats", INT64)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (cases, passed, failed, _) = counts(&out);
    assert_eq!((passed, failed), (0, cases), "{}", text(&out));
    assert!(
        text(&out).contains(
            "[values] result.values[0] (and 1 more): expected 9007199254740993, got 9007199254740992.0, a float where the dtype holds integers"
        ),
        "{}",
        text(&out)
    );
}

#[test]
fn a_run_that_checked_nothing_is_not_green() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().display().to_string();
    let out = bcast(&["run", &dir]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no case to run: no fixture case in"));
    assert!(bcast(&["run", &dir, "--allow-empty"]).status.success());

    let out = bcast(&["run", EXPAND, "--op", "torch.addd"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("matches the filters"), "{}", text(&out));

    for ops in [r#"[]"#, r#"["torch.addd"]"#] {
        let out = bcast(&["run", EXPAND, "--backend", &hostile("claim-ops", ops)]);
        assert_eq!(out.status.code(), Some(1), "{ops}: {}", text(&out));
        let (cases, passed, _, skipped) = counts(&out);
        assert_eq!((passed, skipped), (0, cases), "{}", text(&out));
        assert!(
            text(&out).contains("FAIL: the backend ran none of the"),
            "{}",
            text(&out)
        );
        let allowed = bcast(&[
            "run",
            EXPAND,
            "--allow-empty",
            "--backend",
            &hostile("claim-ops", ops),
        ]);
        assert!(allowed.status.success(), "{}", text(&allowed));
    }
}

#[test]
fn a_stale_xfail_pattern_is_reported_and_fails_strict_runs() {
    let dir = tempfile::tempdir().unwrap();
    let xfail = dir.path().join("xfail.txt");
    std::fs::write(&xfail, "expand/no-such-case/*\n").unwrap();
    let xfail = xfail.display().to_string();
    let out = bcast(&["run", EXPAND, "--xfail", &xfail]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(r#"note: the xfail pattern "expand/no-such-case/*" matches no case"#),
        "{}",
        text(&out)
    );
    let out = bcast(&["run", EXPAND, "--xfail", &xfail, "--strict-xfail"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("FAIL: the xfail pattern"));
}

#[test]
fn report_paths_are_checked_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("adapter-started");
    let adapter = hostile("marker", &marker.display().to_string());
    for flag in ["--junit", "--json"] {
        let bad = dir.path().join("no-such-dir/report").display().to_string();
        let out = bcast(&["run", EXPAND, flag, &bad, "--backend", &adapter]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("cannot write the report there"));
        assert!(
            !marker.exists(),
            "{flag}: the adapter started before the check"
        );
        let out = bcast(&["run", EXPAND, flag, &dir.path().display().to_string()]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("is a directory"), "{}", text(&out));
    }
}

#[test]
fn a_silent_adapter_stops_the_run_after_consecutive_timeouts() {
    let out = bcast(&[
        "run",
        EXPAND,
        "--timeout-ms",
        "300",
        "--max-timeouts",
        "3",
        "--backend",
        &hostile("silent", ""),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(
        t.contains("STOPPED after 3 of ") && t.contains("timed out on 3 cases in a row"),
        "{t}"
    );
    let (cases, passed, failed, _) = counts(&out);
    assert_eq!((cases, passed, failed), (3, 0, 3), "{t}");
}

#[test]
fn a_deadline_stops_a_slow_run() {
    let out = bcast(&[
        "run",
        EXPAND,
        "--deadline",
        "1",
        "--backend",
        &hostile("slow", "0.4"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("deadline of 1 s passed"), "{t}");
    // 30 cases at 0.4 s each would take 12 s: the deadline ends the run before its end, however
    // loaded the machine (on a quiet one after 2 or 3 cases).
    let (cases, _, _, _) = counts(&out);
    assert!(cases < 30, "{t}");
}

/// Runs `bcast` and returns its exit code, output and peak resident memory in bytes, as the
/// kernel counted it when it reaped the process: `tests/adapters/peak_rss.py` starts it and
/// reports `ru_maxrss` of what it waited for (the largest of bcast and of the adapters bcast
/// waited for, so these tests' adapters stay small: hostile.py streams its huge lines). Read
/// once, after the exit: nothing samples, so nothing races the machine's load. (Started from
/// this process, bcast's count would begin at this test binary's own peak.)
#[cfg(target_os = "linux")]
pub(crate) fn bcast_with_peak_rss(args: &[&str]) -> (i32, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let peak_file = dir.path().join("peak");
    let out = Command::new("python3")
        .arg(repo().join("cli/tests/adapters/peak_rss.py"))
        .arg(&peak_file)
        .arg(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let peak = std::fs::read_to_string(&peak_file).unwrap_or_else(|e| panic!("{e}: {text}"));
    let peak: u64 = peak.trim().parse().expect("a byte count");
    (out.status.code().unwrap_or(-1), text, peak)
}

#[cfg(target_os = "linux")]
#[test]
fn huge_answers_cost_memory_near_their_line_and_are_quoted_briefly() {
    const MB: u64 = 100;
    let run = |mode: &str, mb: u64| {
        bcast_with_peak_rss(&[
            "run",
            "conformance/tests/data/numel.json",
            "--id",
            "numel/0",
            "--timeout-ms",
            "60000",
            "--backend",
            &hostile(mode, &mb.to_string()),
        ])
    };
    // What the binary costs with a small answer: more when it links libtorch (feature torch).
    let (_, _, baseline) = run("huge-message", 1);
    for mode in ["huge-message", "huge-values"] {
        let (code, t, peak) = run(mode, MB);
        assert_eq!(code, 1, "{mode}: {}", &t[..t.len().min(2000)]);
        assert!(t.len() < 64 << 10, "{mode}: {} bytes of output", t.len());
        assert!(t.contains("1 failed"), "{mode}: {t}");
        if mode == "huge-values" {
            assert!(
                t.contains("element values, more than the case's results"),
                "{t}"
            );
        }
        let cost = peak.saturating_sub(baseline);
        assert!(
            cost > (MB << 20) / 2 && cost < 2 * (MB << 20),
            "{mode}: a {MB} MB line cost {} MB (peak {} MB over a baseline of {} MB)",
            cost >> 20,
            peak >> 20,
            baseline >> 20
        );
    }
}

#[test]
fn a_line_over_the_limit_is_garbage_and_the_limit_is_an_option() {
    let out = bcast(&[
        "run",
        "conformance/tests/data/numel.json",
        "--id",
        "numel/0",
        "--max-line-mb",
        "1",
        "--backend",
        &hostile("huge-message", "2"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("a line longer than 1048576 bytes"),
        "{}",
        text(&out)
    );
}

#[test]
fn declined_forms_are_skipped_with_the_reason_never_failed() {
    // The binary corpus: torch.add and friends with out=, alpha=, Python numbers, in place.
    const BINARY: &str = "fixtures/torch/binary.json";
    let cases = bcast_conformance::case::load_file(&repo().join(BINARY)).unwrap();
    let declines = r#"{"forms": ["in_place"], "kwargs": ["out", "alpha"], "python_numbers": true}"#;
    let caps: bcast_case::Capabilities = serde_json::from_str(&format!(
        r#"{{"ops": null, "dtypes": [], "levels": [], "declines": {declines}}}"#
    ))
    .unwrap();
    let declined = cases
        .iter()
        .filter(|c| caps.declined(&c.case).is_some())
        .count();
    // At least every case that writes in place or passes out=, alpha= or a Python number as
    // written (the binder finds alpha and numbers passed otherwise too).
    let as_written = cases
        .iter()
        .filter(|c| {
            let call = &c.case.call;
            call.fn_.ends_with('_')
                || call.kwargs.contains_key("out")
                || call.kwargs.contains_key("alpha")
                || call.args.iter().any(|a| {
                    use bcast_conformance::case::Arg;
                    matches!(a, Arg::Int(_) | Arg::Float(_) | Arg::Bool(_))
                })
        })
        .count();
    assert!(declined >= as_written, "{declined} < {as_written}");
    assert!(declined > 0 && declined < cases.len());
    let out = bcast(&[
        "run",
        BINARY,
        "-q",
        "--backend",
        &hostile("declines", declines),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (total, passed, failed, skipped) = counts(&out);
    assert_eq!(
        (total, passed, failed, skipped),
        (cases.len(), 0, cases.len() - declined, declined),
        "{}",
        text(&out)
    );
    let out = bcast(&[
        "run",
        BINARY,
        "--backend",
        &hostile("declines", r#"{"forms": ["inplace"]}"#),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(r#"capabilities.declines.forms: unknown form "inplace""#),
        "{}",
        text(&out)
    );
}

#[test]
fn claimed_ops_no_selected_case_calls_are_counted_not_all_listed() {
    let ops = bcast_case::ops::all_fn_names();
    let claimed: Vec<&String> = ops.iter().take(20).collect();
    assert!(claimed.iter().any(|o| o.as_str() == "Tensor.expand"));
    let out = bcast(&[
        "run",
        EXPAND,
        "-q",
        "--op",
        "Tensor.expand",
        "--backend",
        &hostile("claim-ops", &serde_json::to_string(&claimed).unwrap()),
    ]);
    let text = text(&out);
    let note = text
        .lines()
        .find(|l| l.contains("op(s) that no selected case calls"))
        .unwrap_or_else(|| panic!("no note on unused ops in {text}"));
    assert!(
        note.contains("the backend claims 19 op(s) that no selected case calls: ")
            && note.ends_with(" and 11 more"),
        "{note}"
    );
    assert_eq!(note.matches(", ").count(), 7, "{note}");
}

#[test]
fn exclude_op_and_exclude_tag_leave_cases_out() {
    let all = counts(&bcast(&["run", EXPAND, "-q"])).0;
    let cases = bcast_conformance::case::load_file(&repo().join(EXPAND)).unwrap();
    let expands = cases
        .iter()
        .filter(|c| c.case.call.fn_ == "Tensor.expand")
        .count();
    let out = bcast(&["run", EXPAND, "-q", "--exclude-op", "Tensor.expand"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(counts(&out).0, all - expands);
    let tagged = cases
        .iter()
        .filter(|c| c.case.tags.iter().any(|t| t == "offset"))
        .count();
    let out = bcast(&["run", EXPAND, "-q", "--exclude-tag", "offset"]);
    assert_eq!(counts(&out).0, all - tagged);
    assert!(expands > 0 && tagged > 0);
}

#[test]
fn huge_sizes_and_sample_indices_in_an_answer_are_mismatches_not_schema_errors() {
    let huge_case = "expand/s1/12";
    let cases = bcast_conformance::case::load_file(&repo().join(EXPAND)).unwrap();
    let tagged: Vec<&str> = cases
        .iter()
        .filter(|c| c.case.tags.iter().any(|t| t == "huge-result"))
        .map(|c| c.case.id.as_str())
        .collect();
    assert_eq!(
        tagged,
        [huge_case],
        "the one result of more than 2^32 elements"
    );
    for (mode, want) in [
        (
            "huge-shape",
            "[shapes] result.shape: expected [1099511627776], got [(beyond int64)]",
        ),
        (
            "huge-samples",
            "[values] result.samples[0] (and 63 more): expected 0.5, got NaN",
        ),
    ] {
        let adapter = hostile(mode, EXPAND);
        let out = bcast(&["run", EXPAND, "--backend", &adapter, "--format", "short"]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", text(&out));
        let (cases, passed, failed, _) = counts(&out);
        assert_eq!((passed, failed), (cases - 1, 1), "{mode}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("does not fit the schema"), "{mode}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("FAIL {huge_case}: ")))
            .unwrap_or_else(|| panic!("{mode}: {err}"));
        let level = want[1..].split(']').next().unwrap();
        let place_and_rest = want.split("] ").nth(1).unwrap();
        assert!(
            line.starts_with(&format!("FAIL {huge_case}: {level}: {place_and_rest}")),
            "{mode}: {line}"
        );
        // An adapter that cannot build such results leaves them out by their tag.
        let out = bcast(&[
            "run",
            EXPAND,
            "--backend",
            &adapter,
            "--exclude-tag",
            "huge-result",
        ]);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", text(&out));
        assert_eq!(counts(&out).0, cases - 1);
    }
}
