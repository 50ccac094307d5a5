//! The HTML report: one self-contained page (inline style and script, no network) that draws
//! a run, or the matrix of several backends, from data embedded as JSON. A run's page holds
//! the summary and per-level rates, an op x level heat map, and every case, failures with
//! their differences and a torch repro, behind filters by op, level, status and id; the
//! matrix page holds each backend's levels and op x level heat map. The facts come from
//! [`json_report`] and [`op_counts`], the same sources as the JSON and text reports; the
//! page itself is `html/page.html`, `html/page.css` and `html/page.js`.

use super::json::json_report;
use super::levels::{case_levels, op_counts, LevelCount, OpCounts};
use super::matrix::MatrixRow;
use super::summary::{level_line, summary_line};
use crate::backend::Level;
use crate::case::LoadedCase;
use crate::repro::python_snippet;
use crate::runner::suite::{Status, SuiteResult};
use crate::runner::Verdict;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

const PAGE: &str = include_str!("html/page.html");
const STYLE: &str = include_str!("html/page.css");
const SCRIPT: &str = include_str!("html/page.js");

// A case's levels are bits of a `u32` in `applies` and `failed`.
const _: () = assert!(Level::ALL.len() <= 32);

/// The id of the `<script type="application/json">` element that holds a page's data.
pub const DATA_ELEMENT_ID: &str = "report-data";

/// The page's data: what `page.js` draws.
#[derive(Debug, Serialize)]
struct PageData<'a> {
    /// `bcast run` or `bcast matrix`.
    command: &'static str,
    /// The cases given (a matrix: measured by every backend).
    cases_total: usize,
    /// The level columns, in order; every `cells` list follows it.
    levels: Vec<&'static str>,
    backends: Vec<PageBackend>,
    /// The cases of a run; absent from a matrix.
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<PageRun<'a>>,
}

/// A pass rate: `[passed, applicable, "97.3%"]`, the percentage `null` when nothing applied.
#[derive(Debug, Serialize)]
struct Cell(usize, usize, Option<String>);

impl From<LevelCount> for Cell {
    fn from(c: LevelCount) -> Cell {
        Cell(c.passed, c.applicable, c.percent())
    }
}

/// One backend: its rates level by level, in all and op by op.
#[derive(Debug, Serialize)]
struct PageBackend {
    name: String,
    /// How it was reached (`in-process`, `protocol: ...`); absent for a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<String>,
    run: usize,
    skipped: usize,
    /// Cases that passed every level checked, of those run.
    all: Cell,
    /// One per level column; `null` for a level not checked (not claimed).
    cells: Vec<Option<Cell>>,
    ops: Vec<PageOp>,
}

/// One op's row of the heat map.
#[derive(Debug, Serialize)]
struct PageOp {
    op: String,
    run: usize,
    skipped: usize,
    all: Cell,
    cells: Vec<Option<Cell>>,
}

/// The cases of a run, as columns (one entry a case, in run order) so that a page of 25,000
/// cases stays small and filters over plain arrays.
#[derive(Debug, Serialize)]
struct PageRun<'a> {
    /// The text report's last two lines, as it prints them.
    summary_line: String,
    level_line: String,
    /// Cases by status, as in the JSON report.
    counts: BTreeMap<&'static str, usize>,
    /// The status names; `status` holds indices into it.
    statuses: Vec<&'static str>,
    /// The op names; `op` holds indices into it.
    ops: Vec<&'a str>,
    /// The fixture files; a failure's `file` is an index into it.
    files: Vec<&'a str>,
    /// The skip reasons; `skip` holds indices into it.
    skip_reasons: Vec<&'a str>,
    id: Vec<&'a str>,
    op: Vec<usize>,
    status: Vec<usize>,
    /// Bit `i` set: level column `i` applies to the case (see [`case_levels`]).
    applies: Vec<u32>,
    /// Bit `i` set: the case failed level column `i`.
    failed: Vec<u32>,
    /// The skip reason of a skipped case, -1 for the others.
    skip: Vec<i64>,
    /// Every failure (fail and xfail), in run order.
    failures: Vec<PageFailure<'a>>,
}

/// One failure: the text report's account of it.
#[derive(Debug, Serialize)]
struct PageFailure<'a> {
    /// Index of the case in the columns.
    case: usize,
    file: usize,
    /// The backend failure (the JSON report's `detail`), for a failure without differences.
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    /// The backend failed to answer (crashed, timed out, garbage, ...).
    backend_failure: bool,
    /// `[level, place, expected, got]`, every difference at a level checked.
    mismatches: Vec<[&'a str; 4]>,
    /// For a listed case that fails for another reason than the xfail list pins.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// A Python script that runs the case in torch.
    repro: String,
}

/// The page of a run (`bcast run --html`).
///
/// ```
/// use bcast_conformance::backend::reference::ReferenceBackend;
/// use bcast_conformance::case::load_file;
/// use bcast_conformance::report::html::run_page;
/// use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// let cases = load_file(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numel.json").as_ref()).unwrap();
/// let result = run_suite(&mut ReferenceBackend, &cases, &SuiteOptions::default(), |_, _| {});
/// let page = run_page(&result, &cases).unwrap();
/// assert!(page.starts_with("<!DOCTYPE html>") && page.contains(r#""id":["numel/0""#));
/// ```
pub fn run_page(result: &SuiteResult, cases: &[LoadedCase]) -> Result<String, String> {
    let json = json_report(result, cases);
    let columns: Vec<Level> = result.levels.iter().copied().collect();
    let backend = PageBackend {
        name: result.backend.clone(),
        via: None,
        run: result.executed(),
        skipped: result.count(Status::Skip),
        all: Cell::from(LevelCount {
            passed: result.count(Status::Pass) + result.count(Status::Xpass),
            applicable: result.executed(),
        }),
        cells: cells(&columns, &level_counts_of(&json.level_counts)),
        ops: op_rows(&columns, op_counts(result, cases)),
    };
    let mut ops = Interner::default();
    let mut files = Interner::default();
    let mut skip_reasons = Interner::default();
    let n = json.cases.len();
    let mut run = PageRun {
        summary_line: summary_line(result),
        level_line: level_line(result, cases),
        counts: json.counts.clone(),
        statuses: Status::ALL.iter().map(|s| s.name()).collect(),
        ops: Vec::new(),
        files: Vec::new(),
        skip_reasons: Vec::new(),
        id: Vec::with_capacity(n),
        op: Vec::with_capacity(n),
        status: Vec::with_capacity(n),
        applies: Vec::with_capacity(n),
        failed: Vec::with_capacity(n),
        skip: Vec::with_capacity(n),
        failures: Vec::new(),
    };
    for (index, (case, entry)) in json.cases.iter().zip(&result.entries).enumerate() {
        run.id.push(case.id);
        run.op.push(ops.index(case.op));
        run.status.push(
            Status::ALL
                .iter()
                .position(|s| *s == case.status)
                .unwrap_or(0),
        );
        let (mut applies, mut failed) = (0u32, 0u32);
        for (level, passed) in case_levels(result, entry, cases) {
            if let Some(bit) = columns.iter().position(|l| *l == level) {
                applies |= 1 << bit;
                failed |= u32::from(!passed) << bit;
            }
        }
        run.applies.push(applies);
        run.failed.push(failed);
        run.skip.push(match &entry.report.verdict {
            Verdict::Skip(why) => skip_reasons.index(why) as i64,
            _ => -1,
        });
        if matches!(case.status, Status::Fail | Status::Xfail) {
            run.failures.push(PageFailure {
                case: index,
                file: files.index(&case.file),
                detail: case
                    .mismatches
                    .is_empty()
                    .then(|| case.detail.clone())
                    .flatten(),
                backend_failure: matches!(entry.report.verdict, Verdict::BackendFailure(_)),
                mismatches: case
                    .mismatches
                    .iter()
                    .map(|m| [m.level, &m.place, &m.expected, &m.got])
                    .collect(),
                note: entry.pinned_note(),
                repro: python_snippet(&cases[entry.index].case),
            });
        }
    }
    run.ops = ops.names;
    run.files = files.names;
    run.skip_reasons = skip_reasons.names;
    let data = PageData {
        command: "bcast run",
        cases_total: result.selected,
        levels: columns.iter().map(|l| l.name()).collect(),
        backends: vec![backend],
        run: Some(run),
    };
    page(&format!("bcast run: {}", result.backend), &data)
}

/// The page of a matrix (`bcast matrix --html`): every backend's level and op x level rates
/// over `cases`.
pub fn matrix_page(rows: &[MatrixRow], cases: &[LoadedCase]) -> Result<String, String> {
    let columns = Level::ALL.to_vec();
    let backends = rows
        .iter()
        .map(|row| PageBackend {
            name: row.name.clone(),
            via: Some(row.via.clone()),
            run: row.run,
            skipped: row.skipped,
            all: Cell::from(LevelCount {
                passed: row.passed,
                applicable: row.run,
            }),
            cells: cells(&columns, &row.levels),
            ops: op_rows(&columns, row.by_op.clone()),
        })
        .collect();
    let data = PageData {
        command: "bcast matrix",
        cases_total: cases.len(),
        levels: columns.iter().map(|l| l.name()).collect(),
        backends,
        run: None,
    };
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    page(&format!("bcast matrix: {}", names.join(", ")), &data)
}

/// Strings numbered in order of first use.
#[derive(Default)]
struct Interner<'a> {
    names: Vec<&'a str>,
    numbers: HashMap<&'a str, usize>,
}

impl<'a> Interner<'a> {
    fn index(&mut self, name: &'a str) -> usize {
        *self.numbers.entry(name).or_insert_with(|| {
            self.names.push(name);
            self.names.len() - 1
        })
    }
}

fn level_counts_of(by_name: &BTreeMap<&'static str, LevelCount>) -> BTreeMap<Level, LevelCount> {
    by_name
        .iter()
        .filter_map(|(name, count)| Level::from_name(name).map(|l| (l, *count)))
        .collect()
}

/// One cell per column, `None` where the level is not counted.
fn cells(columns: &[Level], counts: &BTreeMap<Level, LevelCount>) -> Vec<Option<Cell>> {
    columns
        .iter()
        .map(|l| counts.get(l).map(|c| Cell::from(*c)))
        .collect()
}

fn op_rows(columns: &[Level], by_op: BTreeMap<String, OpCounts>) -> Vec<PageOp> {
    by_op
        .into_iter()
        .map(|(op, counts)| PageOp {
            all: Cell::from(LevelCount {
                passed: counts.passed,
                applicable: counts.run,
            }),
            cells: cells(columns, &counts.levels),
            op,
            run: counts.run,
            skipped: counts.skipped,
        })
        .collect()
}

/// The page: the template with its style, script, title and data.
fn page(title: &str, data: &PageData) -> Result<String, String> {
    let json = script_json(data)?;
    Ok(fill(
        PAGE,
        &[
            ("title", &escape_html(title)),
            ("style", STYLE),
            ("script", SCRIPT),
            ("data", &json),
        ],
    ))
}

/// JSON that can stand inside a `<script>` element: `<`, `>` and `&` (only ever inside JSON
/// strings) written as `\u` escapes, so no text of a case id, message or adapter answer can
/// close the element or start markup; `JSON.parse` reads the same strings back.
///
/// ```
/// # use bcast_conformance::report::html::script_json;
/// let json = script_json(&["</script><img src=x onerror=alert(1)>"]).unwrap();
/// assert_eq!(json, r#"["\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e"]"#);
/// let back: Vec<String> = serde_json::from_str(&json).unwrap();
/// assert_eq!(back[0], "</script><img src=x onerror=alert(1)>");
/// ```
pub fn script_json(value: &impl Serialize) -> Result<String, String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Text as HTML text content.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The template with each `{{name}}` replaced by its value, in one pass over the template (a
/// value is never searched for names).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let value = rest[start + 2..].find("}}").and_then(|len| {
            let name = &rest[start + 2..start + 2 + len];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v, start + 2 + len + 2))
        });
        match value {
            Some((value, end)) => {
                out.push_str(&rest[..start]);
                out.push_str(value);
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[..start + 2]);
                rest = &rest[start + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The data a page embeds, parsed back: for tests and checkers of a written page.
///
/// ```
/// # use bcast_conformance::report::html::{embedded_data, run_page};
/// # use bcast_conformance::backend::reference::ReferenceBackend;
/// # use bcast_conformance::case::load_file;
/// # use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// # let cases = load_file(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numel.json").as_ref()).unwrap();
/// # let result = run_suite(&mut ReferenceBackend, &cases, &SuiteOptions::default(), |_, _| {});
/// let data = embedded_data(&run_page(&result, &cases).unwrap()).unwrap();
/// assert_eq!(data["backends"][0]["name"], "reference");
/// ```
pub fn embedded_data(page: &str) -> Result<serde_json::Value, String> {
    let open = format!(r#"<script type="application/json" id="{DATA_ELEMENT_ID}">"#);
    let start = page.find(&open).ok_or("the page has no data element")? + open.len();
    let len = page[start..]
        .find("</script>")
        .ok_or("the data element is not closed")?;
    serde_json::from_str(&page[start..start + len]).map_err(|e| e.to_string())
}
