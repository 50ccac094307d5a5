//! The subprocess protocol against adapters that misbehave on purpose
//! (`tests/adapters/misbehave.py`): every failure mode fails only its case, with a message
//! that names what happened, the adapter is restarted, and no test can hang (each runs under a
//! watchdog).

use bcast_conformance::backend::subprocess::{AdapterConfig, SubprocessBackend, MAX_LINE_BYTES};
use bcast_conformance::backend::{Backend, FailureKind, Level};
use bcast_conformance::case::{load_file, LoadedCase};
use bcast_conformance::runner::suite::{run_suite, Status, SuiteOptions, SuiteResult};
use bcast_conformance::runner::Verdict;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Far beyond what any test takes on a loaded machine: it only stops a hung runner.
const WATCHDOG: Duration = Duration::from_secs(180);

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<LoadedCase> {
    load_file(&manifest().join("tests/data/numel.json")).expect("numel cases load")
}

fn config(args: &[&str]) -> AdapterConfig {
    let script = manifest().join("tests/adapters/misbehave.py");
    let mut command = vec!["python3".to_string(), script.display().to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    AdapterConfig {
        command,
        // Generous: the machine may be loaded, and only the hang test waits this long.
        case_timeout: Duration::from_millis(5000),
        handshake_timeout: Duration::from_secs(10),
        max_failed_starts: 3,
        max_line_bytes: MAX_LINE_BYTES,
    }
}

/// Runs `f` on a thread and fails the test if it takes longer than the watchdog.
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(WATCHDOG)
        .expect("the runner hung (watchdog expired)")
}

/// Runs the numel cases through `misbehave.py MODE N`, misbehaving once across restarts.
fn run_once(mode: &str, n: usize) -> SuiteResult {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("misbehaved").display().to_string();
    run(&[mode, &n.to_string(), &state])
}

fn run(args: &[&str]) -> SuiteResult {
    let config = config(args);
    within(move || {
        let mut backend = SubprocessBackend::new(config);
        let options = SuiteOptions {
            levels: Level::ALL.into_iter().collect(),
            ..SuiteOptions::default()
        };
        run_suite(&mut backend, &cases(), &options, |_, _| {})
    })
}

fn statuses(result: &SuiteResult) -> Vec<Status> {
    result.entries.iter().map(|e| e.status).collect()
}

fn kind_of(result: &SuiteResult, i: usize) -> FailureKind {
    match &result.entries[i].report.verdict {
        Verdict::BackendFailure(f) => f.kind,
        other => panic!("case {i} should be a backend failure, is {other:?}"),
    }
}

fn failure_of(result: &SuiteResult, i: usize) -> String {
    match &result.entries[i].report.verdict {
        Verdict::BackendFailure(f) => f.to_string(),
        other => panic!("case {i} should be a backend failure, is {other:?}"),
    }
}

/// Passes everywhere except case `bad`, whose failure message contains `needle`.
fn assert_only_case_fails(result: &SuiteResult, bad: usize, needle: &str) {
    let mut want = vec![Status::Pass; 5];
    want[bad] = Status::Fail;
    assert_eq!(statuses(result), want, "{result:#?}");
    let message = failure_of(result, bad);
    assert!(
        message.contains(needle),
        "{message:?} should mention {needle:?}"
    );
}

#[test]
fn a_good_adapter_passes_every_case() {
    let result = run(&["good"]);
    assert_eq!(statuses(&result), vec![Status::Pass; 5]);
    assert_eq!(result.backend, "misbehave-good");
    let levels: Vec<Level> = result.levels.iter().copied().collect();
    assert_eq!(levels, [Level::Shapes, Level::Values]);
}

#[test]
fn a_crash_fails_its_case_with_the_exit_status_and_stderr() {
    let result = run_once("crash", 2);
    assert_only_case_fails(&result, 2, "exit status: 3");
    assert!(failure_of(&result, 2).contains("boom: segmentation fault"));
    assert_eq!(kind_of(&result, 2), FailureKind::Crashed);
}

#[test]
fn a_hang_times_out_and_is_killed() {
    let result = run_once("hang", 1);
    assert_only_case_fails(&result, 1, "did not answer within 5000 ms and was killed");
    assert_eq!(kind_of(&result, 1), FailureKind::TimedOut);
}

#[test]
fn a_hung_adapters_children_are_killed_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("misbehaved").display().to_string();
    let result = run(&["fork-hang", "0", &state]);
    let pid_file = dir.path().join("misbehaved.pid");
    assert_eq!(result.entries[0].status, Status::Fail);
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let alive = Path::new("/proc").join(pid.trim()).join("stat");
    // A killed child is gone: killed and reaped, so no /proc entry is left.
    let state = std::fs::read_to_string(&alive).unwrap_or_default();
    assert!(
        state.is_empty(),
        "the adapter's child {} survived: {state}",
        pid.trim()
    );
}

#[test]
fn garbage_output_fails_its_case() {
    let result = run_once("garbage", 3);
    assert_only_case_fails(&result, 3, "not JSON");
}

#[test]
fn non_utf8_output_fails_its_case() {
    let result = run_once("binary", 0);
    assert_only_case_fails(&result, 0, "not UTF-8");
}

#[test]
fn a_wrong_id_fails_its_case() {
    let result = run_once("wrong-id", 1);
    assert_only_case_fails(&result, 1, r#"answered id "numel/1-not" to case "numel/1""#);
}

#[test]
fn a_wrong_outcome_shape_fails_its_case() {
    let result = run_once("bad-outcome", 4);
    assert_only_case_fails(&result, 4, "does not fit the schema");
}

#[test]
fn an_adapter_may_decline_a_case_as_a_failure() {
    let result = run_once("failure", 0);
    assert_only_case_fails(&result, 0, "numel of this case is beyond me");
}

#[test]
fn exiting_early_fails_the_next_case_only() {
    let result = run_once("exit-early", 2);
    assert_only_case_fails(&result, 2, "exited (exit status: 0)");
}

#[test]
fn a_flood_on_stderr_does_not_block_the_run() {
    let result = run(&["stderr-flood"]);
    assert_eq!(statuses(&result), vec![Status::Pass; 5]);
}

#[test]
fn no_hello_is_a_start_error_and_fails_cases_without_waiting_forever() {
    let mut config = config(&["no-hello"]);
    config.handshake_timeout = Duration::from_millis(500);
    let (result, error) = within(move || {
        let mut backend = SubprocessBackend::new(config);
        let error = backend.start_error().map(str::to_string);
        let options = SuiteOptions {
            levels: Level::ALL.into_iter().collect(),
            ..SuiteOptions::default()
        };
        (
            run_suite(&mut backend, &cases(), &options, |_, _| {}),
            error,
        )
    });
    let error = error.expect("a start error");
    assert!(error.contains("sent no hello within 500 ms"), "{error}");
    assert_eq!(statuses(&result), vec![Status::Fail; 5]);
    // One start at construction and two more: then the runner stops retrying.
    assert!(failure_of(&result, 1).contains("sent no hello"));
    assert!(failure_of(&result, 2).contains("not retried after 3 failed starts"));
    assert!(failure_of(&result, 4).contains("not retried after 3 failed starts"));
}

#[test]
fn bad_hellos_are_start_errors_that_say_why() {
    for (mode, needle) in [
        ("bad-hello", "not a hello"),
        ("exit-before-hello", "exit status: 4"),
        ("old-protocol", "speaks protocol 0"),
    ] {
        let config = config(&[mode]);
        let error = within(move || {
            SubprocessBackend::new(config)
                .start_error()
                .map(str::to_string)
        });
        let error = error.unwrap_or_else(|| panic!("{mode}: no start error"));
        assert!(error.contains(needle), "{mode}: {error}");
    }
    let config = config(&["exit-before-hello"]);
    let error = within(move || {
        SubprocessBackend::new(config)
            .start_error()
            .map(str::to_string)
    });
    assert!(error.unwrap().contains("cannot import the library"));
}

#[test]
fn a_restart_that_never_says_hello_fails_the_later_cases() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("started");
    let arg = state.display().to_string();
    let mut config = config(&["hang-on-restart", "1", &arg]);
    // Long enough for the first start on a loaded machine; the restart never says hello, and
    // after one failed start the later cases fail at once (each would wait 10 s more).
    config.handshake_timeout = Duration::from_secs(10);
    config.max_failed_starts = 1;
    let result = within(move || {
        let mut backend = SubprocessBackend::new(config);
        let options = SuiteOptions {
            levels: Level::ALL.into_iter().collect(),
            ..SuiteOptions::default()
        };
        run_suite(&mut backend, &cases(), &options, |_, _| {})
    });
    assert_eq!(
        statuses(&result),
        [
            Status::Pass,
            Status::Fail,
            Status::Fail,
            Status::Fail,
            Status::Fail
        ]
    );
    assert!(failure_of(&result, 1).contains("exit status: 3"));
    for i in 2..5 {
        assert!(failure_of(&result, i).contains("sent no hello within 10000 ms"));
    }
    for i in 3..5 {
        assert!(failure_of(&result, i).contains("not retried after 1 failed starts"));
    }
}

#[test]
fn a_missing_program_is_a_start_error() {
    let config = AdapterConfig::from_command_line("/no/such/adapter --flag").unwrap();
    let backend = SubprocessBackend::new(config);
    assert!(backend.start_error().unwrap().contains("cannot start"));
    assert_eq!(backend.name(), "/no/such/adapter --flag");
}

/// The dtypes of schemas 2 and 4 in the protocol: a hello may claim them, answers carry their
/// values (complex pairs, exact half values, narrow integers) and are compared as the schema
/// says.
#[test]
fn answers_in_the_dtypes_of_schema_2_decode_and_compare() {
    use bcast_conformance::backend::subprocess::protocol::{parse_answer, parse_hello, Answer};
    use bcast_conformance::case::{Case, Outcome};
    use bcast_conformance::compare::compare_case;

    let all = r#"["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
        "float32", "float64", "complex32", "complex64", "complex128"]"#;
    let hello = parse_hello(&format!(
        r#"{{"hello": {{"name": "x", "protocol": 1, "capabilities": {{"ops": null,
        "dtypes": {all}, "levels": ["shapes", "values"]}}}}}}"#
    ))
    .unwrap();
    assert_eq!(hello.capabilities.dtypes.len(), 13);
    let refused = parse_hello(
        r#"{"hello": {"name": "x", "protocol": 1, "capabilities": {"ops": null,
        "dtypes": ["uint16"], "levels": []}}}"#,
    )
    .unwrap_err();
    assert!(refused.contains("unknown dtype \"uint16\""), "{refused}");

    let case: Case = serde_json::from_str(
        r#"{"id": "z", "storages": {"s": {"dtype": "complex64", "values": [[1, 2], ["nan", "inf"]]}},
        "tensors": {"t": {"storage": "s", "shape": [2], "strides": [1]}},
        "call": {"fn": "Tensor.clone", "args": [{"tensor": "t"}]},
        "expect": {"ok": {"result": {"tensor": {"shape": [2], "dtype": "complex64", "strides": [1],
        "values": [[1.0, 2.0], ["nan", "inf"]]}}}}}"#,
    )
    .unwrap();
    let answer = |values: &str| -> Outcome {
        let line = format!(
            r#"{{"id": "z", "outcome": {{"ok": {{"result": {{"tensor": {{"shape": [2],
            "dtype": "complex64", "strides": [1], "offset": 0, "storage": null,
            "values": {values}}}}}}}}}}}"#
        );
        match parse_answer(&line, "z", 100) {
            Ok(Answer::Outcome(o)) => *o,
            other => panic!("{other:?}"),
        }
    };
    let levels = [Level::Shapes, Level::Values].into();
    assert!(compare_case(&case, &answer(r#"[[1, 2], ["nan", "inf"]]"#), &levels).is_empty());
    let wrong = compare_case(&case, &answer(r#"[[1, -2], ["nan", "inf"]]"#), &levels);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    let real = compare_case(&case, &answer(r#"[1.0, "nan"]"#), &levels);
    assert_eq!(real.len(), 1, "{real:?}");
    // A pair of three parts does not fit the schema; the stream stays in step.
    let line = r#"{"id": "z", "outcome": {"ok": {"result": {"tensor": {"shape": [1],
        "dtype": "complex64", "strides": [1], "values": [[1, 2, 3]]}}}}}"#;
    let bad = parse_answer(line, "z", 100).unwrap_err();
    assert!(!bad.out_of_sync, "{bad:?}");
}
