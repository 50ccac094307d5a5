//! What the gate takes on trust, and must not (issue 41): the hellos of a run's processes,
//! answers outside the schema, the counts of merged reports and the completeness of their set,
//! absurd options, pathological or huge xfail files, outputs that are inputs, and a shared
//! baseline under `--shard`. Adapters: `tests/adapters/impostor.py` and `hostile.py`.

use super::gate::{bcast, counts, hostile, repo, shell_quote, text, EXPAND};
use super::jobs::numel_fixture;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `impostor.py MODE ARG FIXTURE` as a `--backend` value.
fn impostor(mode: &str, arg: &str, fixture: &str) -> String {
    let script = repo().join("cli/tests/adapters/impostor.py");
    shell_quote(&["python3", &script.display().to_string(), mode, arg, fixture])
}

fn json_file(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// Runs `bcast`, killing it if it has not ended after `limit` (then `None`): for options that
/// once made it run without end. The limit is far above what the refusal takes; a thread waits
/// for the exit, and nothing polls.
fn bcast_within(args: &[&str], limit: Duration) -> Option<Output> {
    let child = Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bcast runs");
    let pid = child.id();
    let (done, exited) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let output = child.wait_with_output().unwrap();
        let _ = done.send(());
        output
    });
    let ended = exited.recv_timeout(limit).is_ok();
    if !ended {
        // SAFETY: kill has no memory effects; the pid is the child's, not yet reaped (the
        // waiter reaps it only once it has exited).
        unsafe { libc::kill(libc::pid_t::try_from(pid).expect("a pid"), libc::SIGKILL) };
    }
    let output = waiter.join().unwrap();
    ended.then_some(output)
}

#[test]
fn every_process_of_one_run_must_say_the_same_hello() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 8));
    // The second process claims only shapes and answers wrong values: judged by its own
    // hello its cases passed, and the run was green.
    let state = dir.path().join("two");
    std::fs::create_dir(&state).unwrap();
    let adapter = impostor("two-hellos", &arg(&state), &fixture);
    let out = bcast(&["run", &fixture, "--backend", &adapter, "--jobs", "2"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("job 2's backend said another hello than job 1's")
            && t.contains(r#"capabilities.levels: ["shapes","dtypes","values""#)
            && t.contains(r#"against ["shapes"]"#),
        "{t}"
    );
    assert!(!t.contains(" passed"), "no case may run: {t}");
    // A restarted adapter that says another hello does not start.
    let state = dir.path().join("restart");
    std::fs::create_dir(&state).unwrap();
    let adapter = impostor("other-hello-on-restart", &arg(&state), &fixture);
    let out = bcast(&["run", &fixture, "--format", "short", "--backend", &adapter]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let (cases, passed, failed, _) = counts(&out);
    assert_eq!((passed, failed), (2, cases - 2), "{t}");
    assert!(
        t.contains("the adapter did not start: its hello differs from its first process's")
            && t.contains(r#"against ["shapes"]"#),
        "{t}"
    );
}

/// `bcast matrix --jobs` measures through that many processes, with the table of one, and
/// refuses a backend whose processes say different hellos as `bcast run --jobs` does.
#[test]
fn the_matrix_measures_through_jobs_and_one_hello() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 8));
    let starts = dir.path().join("starts");
    std::fs::create_dir(&starts).unwrap();
    let honest = impostor("starts", &arg(&starts), &fixture);
    let table = |jobs: &str| {
        let out = bcast(&[
            "matrix",
            &fixture,
            "--backend",
            "reference",
            "--backend",
            &honest,
            "--jobs",
            jobs,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let one = table("1");
    let processes = |dir: &Path| std::fs::read_dir(dir).unwrap().count();
    assert_eq!(processes(&starts), 1, "{one}");
    let two = table("2");
    assert_eq!(
        processes(&starts),
        3,
        "the second measurement started two processes"
    );
    assert_eq!(one, two);
    let n = bcast_conformance::case::load_file(Path::new(&fixture))
        .unwrap()
        .len();
    let all = format!("| {n} | 0 | {n}/{n} (100%) |");
    assert!(
        one.lines()
            .any(|l| l.starts_with("| impostor") && l.contains(&all)),
        "{one}"
    );
    let state = dir.path().join("two");
    std::fs::create_dir(&state).unwrap();
    let liar = impostor("two-hellos", &arg(&state), &fixture);
    let out = bcast(&["matrix", &fixture, "--backend", &liar, "--jobs", "2"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("job 2's backend said another hello than job 1's"),
        "{t}"
    );
    let out = bcast(&["matrix", &fixture, "--backend", "reference", "--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn negative_offsets_and_strides_in_an_answer_are_outside_the_schema() {
    const ADAPTERS: &str = "conformance/tests/data/adapters.json";
    let cases = bcast_conformance::case::load_file(&repo().join(ADAPTERS)).unwrap();
    let fresh = cases
        .iter()
        .filter(|c| match &c.case.expect {
            Some(bcast_conformance::case::Outcome::Ok(ok)) => match &ok.result {
                bcast_conformance::case::ResultValue::Tensor(t) => t.storage.is_none(),
                bcast_conformance::case::ResultValue::Tensors(ts) => {
                    ts.iter().any(|t| t.storage.is_none())
                }
                _ => false,
            },
            _ => false,
        })
        .count();
    assert!(fresh > 0 && fresh < cases.len());
    let honest = bcast(&[
        "run",
        ADAPTERS,
        "-q",
        "--backend",
        &impostor("offset", "0", ADAPTERS),
    ]);
    assert_eq!(honest.status.code(), Some(0), "{}", text(&honest));
    let out = bcast(&[
        "run",
        ADAPTERS,
        "--backend",
        &impostor("offset", "-1", ADAPTERS),
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let (_, _, failed, _) = counts(&out);
    assert_eq!(failed, fresh, "{t}");
    assert!(
        t.contains("its outcome does not fit the schema (-1 is negative, and a stride, storage offset or sample index never is"),
        "{t}"
    );
    // An offset inside the schema is still compared: a fresh result starts where torch's does.
    let out = bcast(&[
        "run",
        ADAPTERS,
        "--format",
        "short",
        "--backend",
        &impostor("offset", "5", ADAPTERS),
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let (_, _, failed, _) = counts(&out);
    assert_eq!(failed, fresh, "{t}");
    assert!(
        t.contains("aliasing: result.offset: expected 0, got 5"),
        "{t}"
    );
    let out = bcast(&[
        "run",
        EXPAND,
        "--backend",
        &impostor("stride", "-1", EXPAND),
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("-1 is negative") && !t.contains("(beyond int64)"),
        "{t}"
    );
}

/// Runs shard `k` of `n` of `fixture` through the reference backend into `dir/NAME`.
fn shard_report(dir: &Path, fixture: &str, shard: &str, extra: &[&str], name: &str) -> PathBuf {
    let json = dir.join(name);
    let mut args = vec!["run", fixture, "-q", "--shard", shard];
    let json_arg = arg(&json);
    args.extend(["--json", &json_arg]);
    args.extend(extra);
    let out = bcast(&args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    json
}

fn merge(args: &[&str]) -> Output {
    let mut all = vec!["merge-reports"];
    all.extend(args);
    bcast(&all)
}

#[test]
fn merge_reports_counts_the_cases_and_takes_no_count_on_trust() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 8));
    let parts: Vec<String> = (1..=3)
        .map(|k| {
            arg(&shard_report(
                dir.path(),
                &fixture,
                &format!("{k}/3"),
                &[],
                &format!("{k}.json"),
            ))
        })
        .collect();
    let whole = dir.path().join("whole.json");
    let out = merge(&[&parts[0], &parts[1], &parts[2], "-o", &arg(&whole)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let merged = json_file(&whole);
    assert_eq!(merged["counts"]["fail"], 6, "{merged}");
    assert_eq!(merged["complete"], true);
    // A part whose counts are not those of its cases is refused, naming it.
    let forged = dir.path().join("forged.json");
    for (field, value) in [
        ("/counts/fail", serde_json::json!(0)),
        ("/counts/fail", serde_json::json!(18446744073709551531u64)),
        (
            "/level_counts/shapes/passed",
            serde_json::json!(18446744073709551531u64),
        ),
        ("/level_counts/shapes/applicable", serde_json::json!(1)),
    ] {
        let mut part = json_file(Path::new(&parts[0]));
        *part.pointer_mut(field).unwrap() = value.clone();
        std::fs::write(&forged, part.to_string()).unwrap();
        let out = merge(&[&arg(&forged), &parts[1], &parts[2]]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{field} = {value}: {t}");
        assert!(t.contains(&format!("report 1 ({})", arg(&forged))), "{t}");
    }
}

#[test]
fn merge_refuses_an_incomplete_set_unless_told_and_says_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 8));
    // A run of the whole selection says so.
    let whole = shard_report(dir.path(), &fixture, "1/1", &[], "whole.json");
    let report = json_file(&whole);
    assert_eq!(report["shards"], serde_json::json!(["1/1"]));
    assert_eq!(report["selection"]["cases"], 40);
    assert_eq!(
        (report["finished"].clone(), report["complete"].clone()),
        (true.into(), true.into())
    );
    assert_eq!(report["stopped"], serde_json::Value::Null);
    // Parts of a run through a slow adapter; part 3 stopped by the deadline.
    let slow = |seconds: &str| hostile("slow", seconds);
    let (fast, crawl) = (slow("0"), slow("0.5"));
    let part = |k: u32, backend: &str, extra: &[&str]| {
        let mut args = vec!["--backend", backend];
        args.extend(extra);
        arg(&shard_report(
            dir.path(),
            &fixture,
            &format!("{k}/3"),
            &args,
            &format!("p{k}.json"),
        ))
    };
    let (p1, p2) = (part(1, &fast, &[]), part(2, &fast, &[]));
    let p3 = part(3, &crawl, &["--deadline", "1"]);
    let stopped = json_file(Path::new(&p3));
    assert_eq!(stopped["finished"], false, "{stopped}");
    assert!(
        stopped["stopped"].as_str().unwrap().contains("deadline"),
        "{stopped}"
    );
    assert_eq!(stopped["shards"], serde_json::json!(["3/3"]));
    assert_eq!(stopped["selection"], report["selection"]);
    // A part missing.
    let out = merge(&[&p1, &p2]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("part 3/3 is missing"), "{}", text(&out));
    let partial = dir.path().join("partial.json");
    let out = merge(&[&p1, &p2, "--allow-partial", "-o", &arg(&partial)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("incomplete"), "{}", text(&out));
    let merged = json_file(&partial);
    assert_eq!(merged["shards"], serde_json::json!(["1/3", "2/3"]));
    assert_eq!(
        (merged["complete"].clone(), merged["finished"].clone()),
        (false.into(), true.into())
    );
    // A part stopped before its last case.
    let out = merge(&[&p1, &p2, &p3]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("stopped before its last case"),
        "{}",
        text(&out)
    );
    let out = merge(&[&p1, &p2, &p3, "--allow-partial", "-o", &arg(&partial)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let merged = json_file(&partial);
    assert_eq!(
        (merged["complete"].clone(), merged["finished"].clone()),
        (false.into(), false.into())
    );
    assert!(
        merged["stopped"].as_str().unwrap().starts_with("3/3: "),
        "{merged}"
    );
    // A part twice, a part of another N, a part of another selection.
    let out = merge(&[&p1, &p1, &p2]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let other_n = arg(&shard_report(
        dir.path(),
        &fixture,
        "1/2",
        &["--backend", &fast],
        "n2.json",
    ));
    let out = merge(&[&p1, &p2, &other_n]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("is not a part of the 3"),
        "{}",
        text(&out)
    );
    let filtered = [
        "--backend",
        fast.as_str(),
        "--id",
        "numel-copy/[0-3]*",
        "--allow-empty",
    ];
    let other_selection = arg(&shard_report(
        dir.path(),
        &fixture,
        "3/3",
        &filtered,
        "sel.json",
    ));
    let out = merge(&[&p1, &p2, &other_selection]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("selection"), "{}", text(&out));
}

#[test]
fn jobs_are_capped_at_the_cases_and_absurd_counts_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 2));
    let starts = dir.path().join("starts");
    std::fs::create_dir(&starts).unwrap();
    let adapter = impostor("starts", &arg(&starts), &fixture);
    let out = bcast(&["run", &fixture, "-q", "--backend", &adapter, "--jobs", "32"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("--jobs 32 capped at 10, the number of selected cases"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_dir(&starts).unwrap().count(),
        10,
        "one process a case at most"
    );
    for absurd in ["18446744073709551615", "257"] {
        let out = bcast_within(
            &["run", &fixture, "--jobs", absurd],
            Duration::from_secs(120),
        )
        .unwrap_or_else(|| panic!("--jobs {absurd} did not end"));
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains("at most 256 instances"),
            "{}",
            text(&out)
        );
    }
}

#[test]
fn deadlines_that_are_no_duration_are_refused() {
    for deadline in ["1e20", "-1", "NaN", "inf", "0"] {
        let out = bcast(&["run", EXPAND, &format!("--deadline={deadline}")]);
        assert_eq!(out.status.code(), Some(2), "{deadline}: {}", text(&out));
        assert!(
            text(&out).contains("bcast: --deadline "),
            "{deadline}: {}",
            text(&out)
        );
    }
}

#[test]
fn pathological_globs_are_refused_naming_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let xfail = dir.path().join("xfail.txt");
    let nested = format!("{}x{}", "{a,".repeat(300), "}".repeat(300));
    let long = "?".repeat(200_000);
    let large = "?".repeat(16_000);
    for (pattern, why) in [
        (&nested, "nested more than 32 deep"),
        (&long, "bytes long (at most 16384 are read)"),
        (&large, "compiles too large"),
    ] {
        std::fs::write(&xfail, format!("expand/s1/3\n{pattern}  reason=values\n")).unwrap();
        let out = bcast(&["run", EXPAND, "--xfail", &arg(&xfail)]);
        assert_eq!(out.status.code(), Some(2), "{why}: {}", text(&out));
        assert!(text(&out).contains(": line 2: "), "{why}: {}", text(&out));
        assert!(text(&out).contains(why), "{}", text(&out));
        // A command line argument holds at most 128 KiB.
        let out = bcast(&[
            "run",
            EXPAND,
            "--id",
            &pattern[..pattern.len().min(100_000)],
        ]);
        assert_eq!(out.status.code(), Some(2), "{why}: {}", text(&out));
        assert!(
            text(&out).contains("bcast: --id: ") && text(&out).contains(why),
            "{why}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_xfail_file_or_report_costs_memory_near_its_size() {
    use super::gate::bcast_with_peak_rss;
    let dir = tempfile::tempdir().unwrap();
    let xfail = dir.path().join("big.xfail");
    let mut text = String::new();
    let entries = 500_000;
    for i in 0..entries {
        text.push_str(&format!(
            "gone/family/{i}  reason=values  # once failed as {i}\n"
        ));
    }
    std::fs::write(&xfail, &text).unwrap();
    let size = text.len() as u64;
    let (_, _, baseline) = bcast_with_peak_rss(&["run", EXPAND]);
    let (code, out, peak) = bcast_with_peak_rss(&["run", EXPAND, "--xfail", &arg(&xfail)]);
    assert_eq!(code, 0, "{}", &out[..out.len().min(4000)]);
    let notes = out
        .lines()
        .filter(|l| l.contains("matches no case"))
        .count();
    assert_eq!(notes, 20, "{}", &out[..out.len().min(4000)]);
    assert!(
        out.contains(&format!("and {} more xfail patterns", entries - 20)),
        "{out}"
    );
    let cost = peak.saturating_sub(baseline);
    assert!(
        cost < 6 * size,
        "a {} MB xfail file cost {} MB (peak {} MB over {} MB)",
        size >> 20,
        cost >> 20,
        peak >> 20,
        baseline >> 20
    );
    // A report of 50,000 cases, each with a long answer, merged alone.
    // Zero-padded, so that the merged order (by file, then id) is this one.
    let ids: Vec<String> = (0..50_000).map(|i| format!("big/{i:05}")).collect();
    let selection = bcast_conformance::runner::shard::Selection::of(ids.iter().map(String::as_str));
    let got = serde_json::json!({"error": {"type": "RuntimeError", "message": "x".repeat(800)}});
    let cases: Vec<serde_json::Value> = ids
        .iter()
        .map(|id| {
            serde_json::json!({"id": id, "file": "big.json", "op": "torch.add",
            "status": "pass", "got": got, "elapsed_ms": 0.5})
        })
        .collect();
    let report = serde_json::json!({
        "backend": "big", "levels": ["shapes"], "selection": selection, "shards": ["1/1"],
        "finished": true, "stopped": null, "complete": true,
        "counts": {"pass": ids.len(), "fail": 0, "xfail": 0, "xpass": 0, "skip": 0},
        "level_counts": {"shapes": {"passed": ids.len(), "applicable": ids.len()}},
        "cases": cases,
    });
    let part = dir.path().join("big.json");
    let text = serde_json::to_string_pretty(&report).unwrap();
    std::fs::write(&part, &text).unwrap();
    let size = text.len() as u64;
    let merged = dir.path().join("merged.json");
    let (code, out, peak) =
        bcast_with_peak_rss(&["merge-reports", &arg(&part), "-o", &arg(&merged)]);
    assert_eq!(code, 0, "{out}");
    assert!(
        json_file(&merged) == report,
        "merged alone, a whole run's report is itself"
    );
    let cost = peak.saturating_sub(baseline);
    assert!(
        cost < 2 * size,
        "merging a {} MB report cost {} MB (peak {} MB over {} MB)",
        size >> 20,
        cost >> 20,
        peak >> 20,
        baseline >> 20
    );
}

#[test]
fn outputs_that_are_inputs_are_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    let fixture = fixtures.join("expand.json");
    std::fs::copy(repo().join(EXPAND), &fixture).unwrap();
    let original = std::fs::read(&fixture).unwrap();
    let linked = dir.path().join("linked.json");
    std::fs::hard_link(&fixture, &linked).unwrap();
    let xfail = dir.path().join("known.xfail");
    std::fs::write(&xfail, "expand/s1/3\n").unwrap();
    let fresh = dir.path().join("out.txt");
    let marker = dir.path().join("adapter-started");
    let adapter = hostile("marker", &arg(&marker));
    let (f, l, x, o) = (arg(&fixture), arg(&linked), arg(&xfail), arg(&fresh));
    let d = arg(&fixtures);
    for (args, why) in [
        (
            vec![f.as_str(), "--json", f.as_str()],
            "is a fixture file the run reads",
        ),
        (
            vec![f.as_str(), "--write-xfail", f.as_str()],
            "is a fixture file the run reads",
        ),
        (
            vec![d.as_str(), "--junit", l.as_str()],
            "is a fixture file the run reads",
        ),
        (
            vec![f.as_str(), "--xfail", x.as_str(), "--json", x.as_str()],
            "is the --xfail file",
        ),
        (
            vec![f.as_str(), "--html", f.as_str()],
            "is a fixture file the run reads",
        ),
        (
            vec![f.as_str(), "--json", o.as_str(), "--html", o.as_str()],
            "are one file",
        ),
        (
            vec![
                f.as_str(),
                "--write-xfail",
                o.as_str(),
                "--json",
                o.as_str(),
            ],
            "are one file",
        ),
    ] {
        let mut all = vec!["run", "--backend", adapter.as_str()];
        all.extend(&args);
        let out = bcast(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(why), "{args:?}: {}", text(&out));
        assert!(!marker.exists(), "{args:?}: the adapter started");
        assert_eq!(
            std::fs::read(&fixture).unwrap(),
            original,
            "{args:?}: the fixture changed"
        );
        assert!(!fresh.exists(), "{args:?}: an output was written");
    }
    // The documented case: --write-xfail may rewrite the --xfail file.
    let out = bcast(&["run", &f, "--xfail", &x, "--write-xfail", &x]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    // merge-reports -o must not overwrite a report it merges.
    let part = dir.path().join("part.json");
    let out = bcast(&["run", &f, "-q", "--json", &arg(&part)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let before = std::fs::read(&part).unwrap();
    let out = merge(&[&arg(&part), "-o", &arg(&part)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("is a report it merges"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read(&part).unwrap(), before);
}

#[test]
fn shards_share_the_whole_runs_baseline_under_strict_xfail() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arg(&numel_fixture(dir.path(), 8));
    let baseline = dir.path().join("whole.xfail");
    let base = arg(&baseline);
    let out = bcast(&["run", &fixture, "-q", "--write-xfail", &base]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let entries = std::fs::read_to_string(&baseline).unwrap();
    assert_eq!(
        entries.lines().filter(|l| !l.starts_with('#')).count(),
        6,
        "{entries}"
    );
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = bcast(&[
            "run",
            &fixture,
            "-q",
            "--shard",
            &shard,
            "--xfail",
            &base,
            "--strict-xfail",
        ]);
        assert_eq!(out.status.code(), Some(0), "{shard}: {}", text(&out));
        assert!(
            !text(&out).contains("matches no case"),
            "{shard}: {}",
            text(&out)
        );
    }
    // Entries outside --id's selection are not judged either, as --write-xfail keeps them;
    // an entry that matches no case of the fixtures read is stale.
    let filtered = [
        "run",
        &fixture,
        "-q",
        "--id",
        "numel-copy/1*",
        "--xfail",
        &base,
        "--strict-xfail",
    ];
    let out = bcast(&filtered);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    std::fs::write(&baseline, format!("{entries}numel-copy/none-such\n")).unwrap();
    let out = bcast(&filtered);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let line = entries.lines().count() + 1;
    assert!(
        text(&out).contains(&format!(
            r#"FAIL: the xfail pattern "numel-copy/none-such" matches no case of this run (line {line})"#
        )),
        "{}",
        text(&out)
    );
}
