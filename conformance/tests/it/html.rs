//! The HTML report's page: its embedded data holds every failure of the run with the text
//! report's differences and repro, its heat-map cells are the per-level counts, and no text of
//! a case or of an adapter's answer becomes markup.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities, FailureKind, Level};
use bcast_conformance::case::{load_file, Case, ErrorOutcome, LoadedCase, Outcome, ResultValue};
use bcast_conformance::report::html::{embedded_data, matrix_page, run_page};
use bcast_conformance::report::levels::{case_levels, level_counts, op_counts};
use bcast_conformance::report::matrix::MatrixRow;
use bcast_conformance::repro::python_snippet;
use bcast_conformance::runner::suite::{run_suite, Status, SuiteOptions, SuiteResult};
use bcast_conformance::runner::xfail::XfailList;
use bcast_conformance::runner::Verdict;
use serde_json::Value;
use std::path::Path;

const MARKUP: &str = "</script><img src=x onerror=\"window.pwned=1\"><!--";

/// The reference engine, wrong on purpose: every result stride off by one, every fourth case
/// a backend failure, every fifth answered with an error whose message is markup; claims no
/// aliasing. Its name is markup too.
struct Wrong {
    seen: usize,
}

impl Backend for Wrong {
    fn name(&self) -> String {
        format!("wrong {MARKUP}")
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::everything();
        caps.levels.remove(&Level::Aliasing);
        caps
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        self.seen += 1;
        if self.seen.is_multiple_of(4) {
            return Err(BackendFailure::new(FailureKind::Crashed, MARKUP));
        }
        if self.seen.is_multiple_of(5) {
            return Ok(Outcome::Error(ErrorOutcome {
                kind: "RuntimeError".into(),
                message: MARKUP.into(),
                stage: None,
            }));
        }
        let mut outcome = ReferenceBackend.run(case)?;
        if let Outcome::Ok(ok) = &mut outcome
            && let ResultValue::Tensor(t) = &mut ok.result
        {
            t.strides.iter_mut().for_each(|s| *s += 1);
        }
        Ok(outcome)
    }
}

/// The expand fixtures, one case's id made markup, run through [`Wrong`] with the first
/// three failures listed as expected.
fn wrong_run() -> (Vec<LoadedCase>, SuiteResult) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/expand.json");
    let mut cases = load_file(&path).unwrap();
    cases[1].case.id = format!("expand/{MARKUP}");
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    let first = run_suite(&mut Wrong { seen: 0 }, &cases, &options, |_, _| {});
    let listed: Vec<String> = first
        .entries
        .iter()
        .filter(|e| e.status == Status::Fail)
        .take(3)
        .map(|e| glob_literal(&e.report.id))
        .collect();
    let options = SuiteOptions {
        xfail: XfailList::parse(&listed.join("\n")).unwrap(),
        ..options
    };
    let result = run_suite(&mut Wrong { seen: 0 }, &cases, &options, |_, _| {});
    (cases, result)
}

/// An id as an xfail pattern that matches it alone (glob characters bracketed).
fn glob_literal(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' => format!("[{c}]"),
            c => c.to_string(),
        })
        .collect()
}

#[test]
fn markup_in_ids_messages_and_names_stays_text() {
    let (cases, result) = wrong_run();
    let page = run_page(&result, &cases).unwrap();
    // The template's two script elements close, and nothing else does; no element of the data.
    assert_eq!(page.matches("</script>").count(), 2, "{page}");
    assert!(!page.contains("<img"), "markup from the data in the page");
    assert!(!page.contains("<!--"));
    assert!(page.contains("<title>bcast run: wrong &lt;/script&gt;&lt;img"));
    let data = embedded_data(&page).unwrap();
    assert_eq!(data["backends"][0]["name"], format!("wrong {MARKUP}"));
    let ids: Vec<&str> = data["run"]["id"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(ids.contains(&format!("expand/{MARKUP}").as_str()));
    let failures = data["run"]["failures"].as_array().unwrap();
    let crashed = format!("backend failure (crashed): {MARKUP}");
    assert!(failures.iter().any(|f| f["detail"] == crashed.as_str()));
    assert!(
        failures
            .iter()
            .flat_map(|f| f["mismatches"].as_array().unwrap())
            .any(|m| m[3].as_str().unwrap().contains(&format!("{MARKUP:?}"))),
        "a message of the backend's is kept whole (quoted, as the text report quotes it)"
    );
}

#[test]
fn every_failure_of_the_run_is_in_the_page_as_the_text_report_gives_it() {
    let (cases, result) = wrong_run();
    let data = embedded_data(&run_page(&result, &cases).unwrap()).unwrap();
    let run = &data["run"];
    let failed: Vec<_> = result
        .entries
        .iter()
        .filter(|e| matches!(e.status, Status::Fail | Status::Xfail))
        .collect();
    assert!(failed.iter().any(|e| e.status == Status::Xfail));
    assert!(failed
        .iter()
        .any(|e| matches!(e.report.verdict, Verdict::BackendFailure(_))));
    let failures = run["failures"].as_array().unwrap();
    assert_eq!(failures.len(), failed.len());
    for (f, e) in failures.iter().zip(&failed) {
        let i = f["case"].as_u64().unwrap() as usize;
        assert_eq!(run["id"][i], e.report.id.as_str());
        assert_eq!(
            run["statuses"][run["status"][i].as_u64().unwrap() as usize],
            e.status.name()
        );
        let want: Vec<Value> = match &e.report.verdict {
            Verdict::Fail(ms) => ms
                .iter()
                .map(|m| serde_json::json!([m.level.name(), m.place, m.expected, m.got]))
                .collect(),
            _ => Vec::new(),
        };
        assert_eq!(f["mismatches"].as_array().unwrap(), &want);
        if want.is_empty() {
            assert_eq!(f["detail"], e.report.verdict.headline());
        }
        assert_eq!(
            f["backend_failure"],
            matches!(e.report.verdict, Verdict::BackendFailure(_))
        );
        assert_eq!(f["repro"], python_snippet(&cases[e.index].case));
        let file = &run["files"][f["file"].as_u64().unwrap() as usize];
        assert_eq!(file, cases[e.index].file.display().to_string().as_str());
    }
    // Every case is in the columns, in run order, with its status.
    let statuses: Vec<&str> = run["status"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            run["statuses"][s.as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    let want: Vec<&str> = result.entries.iter().map(|e| e.status.name()).collect();
    assert_eq!(statuses, want);
    for status in Status::ALL {
        assert_eq!(run["counts"][status.name()], result.count(status));
    }
}

/// `[passed, applicable]` of a page's cell.
fn pair(cell: &Value) -> (usize, usize) {
    (
        cell[0].as_u64().unwrap() as usize,
        cell[1].as_u64().unwrap() as usize,
    )
}

#[test]
fn the_heat_map_cells_are_the_per_level_counts() {
    let (cases, result) = wrong_run();
    let data = embedded_data(&run_page(&result, &cases).unwrap()).unwrap();
    let levels: Vec<Level> = data["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| Level::from_name(l.as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(levels, result.levels.iter().copied().collect::<Vec<_>>());
    assert!(!levels.contains(&Level::Aliasing), "not claimed, no column");
    let totals = level_counts(&result, &cases);
    let backend = &data["backends"][0];
    let run = &data["run"];
    for (k, level) in levels.iter().enumerate() {
        let want = totals[level];
        assert_eq!(
            pair(&backend["cells"][k]),
            (want.passed, want.applicable),
            "{level}"
        );
        // The ops' cells add up to the level's count, and so do the cases' bits.
        let ops = backend["ops"].as_array().unwrap();
        let summed = ops
            .iter()
            .map(|o| pair(&o["cells"][k]))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(summed, (want.passed, want.applicable), "{level}");
        let bit = 1u64 << k;
        let n = run["id"].as_array().unwrap().len();
        let bits = |name: &str, i: usize| run[name][i].as_u64().unwrap() & bit != 0;
        let applies = (0..n).filter(|&i| bits("applies", i)).count();
        let passed = (0..n)
            .filter(|&i| bits("applies", i) && !bits("failed", i))
            .count();
        assert_eq!((passed, applies), (want.passed, want.applicable), "{level}");
    }
    assert!(
        totals.values().filter(|c| c.passed < c.applicable).count() >= 2,
        "the run fails more than one level: {totals:?}"
    );
    // Op by op, as op_counts has them, and each cell as the cases count it.
    let by_op = op_counts(&result, &cases);
    let ops = backend["ops"].as_array().unwrap();
    assert_eq!(ops.len(), by_op.len());
    for (row, (op, counts)) in ops.iter().zip(&by_op) {
        assert_eq!(row["op"], op.as_str());
        assert_eq!(pair(&row["all"]), (counts.passed, counts.run));
        for (k, level) in levels.iter().enumerate() {
            let mut want = (0, 0);
            for e in result
                .entries
                .iter()
                .filter(|e| cases[e.index].case.call.fn_ == *op)
            {
                for (l, passed) in case_levels(&result, e, &cases) {
                    if l == *level {
                        want.1 += 1;
                        want.0 += usize::from(passed);
                    }
                }
            }
            assert_eq!(pair(&row["cells"][k]), want, "{op} {level}");
            let pct = &row["cells"][k][2];
            assert_eq!(pct.is_null(), want.1 == 0, "{op} {level}: n/a is no rate");
        }
    }
}

#[test]
fn the_matrix_page_holds_every_backend_and_its_unclaimed_levels() {
    let (cases, wrong) = wrong_run();
    let reference = run_suite(
        &mut ReferenceBackend,
        &cases,
        &SuiteOptions {
            levels: Level::ALL.into_iter().collect(),
            ..SuiteOptions::default()
        },
        |_, _| {},
    );
    let rows = [
        MatrixRow::measure("in-process", &reference, &cases),
        MatrixRow::measure("in-process", &wrong, &cases),
    ];
    let page = matrix_page(&rows, &cases).unwrap();
    assert_eq!(page.matches("</script>").count(), 2);
    let data = embedded_data(&page).unwrap();
    assert!(data.get("run").is_none());
    assert_eq!(data["levels"].as_array().unwrap().len(), Level::ALL.len());
    for (row, b) in rows.iter().zip(data["backends"].as_array().unwrap()) {
        assert_eq!(b["name"], row.name.as_str());
        assert_eq!(pair(&b["all"]), (row.passed, row.run));
        for (k, level) in Level::ALL.iter().enumerate() {
            match row.levels.get(level) {
                Some(c) => assert_eq!(pair(&b["cells"][k]), (c.passed, c.applicable)),
                None => assert!(b["cells"][k].is_null(), "{level} is not claimed"),
            }
        }
        assert_eq!(b["ops"].as_array().unwrap().len(), row.by_op.len());
    }
    assert!(data["backends"][1]["cells"][Level::ALL
        .iter()
        .position(|l| *l == Level::Aliasing)
        .unwrap()]
    .is_null());
}
