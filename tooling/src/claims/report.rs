//! The discrepancy report: every document claim that torch contradicts, with per-document
//! counts, as text for a terminal or as a Markdown fragment for the README.

use super::{describe_claim, describe_outcome, discrepancies, Discrepancy};
use bcast_conformance::case::{Case, LoadedCase};
use bcast_conformance::repro::call_expression;
use bcast_engine::shape::format_tuple;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Cases, claims and contradicted claims of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocCounts {
    pub doc: String,
    pub cases: usize,
    pub claims: usize,
    pub discrepancies: usize,
}

/// One claim torch contradicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub doc: String,
    pub line: Option<u32>,
    pub case_id: String,
    /// The call, with the shapes of its tensors: `x.dim()  [x: float32 (0,)]`.
    pub call: String,
    pub quote: String,
    /// The whole claim, in words.
    pub claim: String,
    /// The whole outcome in torch, in words.
    pub torch: String,
    pub fields: Vec<Discrepancy>,
}

/// Everything `bcast-dev discrepancies` prints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimReport {
    /// The torch version that labelled the cases (from the fixture files).
    pub torch_version: String,
    pub docs: Vec<DocCounts>,
    pub findings: Vec<Finding>,
}

/// Compares every claim of `cases` with its expectation; documents and findings are sorted by
/// document and line.
///
/// ```
/// use bcast_tooling::claims::build_report;
/// let report = build_report(&[]);
/// assert!(report.findings.is_empty());
/// assert!(report.to_markdown().contains("| Document |"));
/// ```
pub fn build_report(cases: &[LoadedCase]) -> ClaimReport {
    let mut docs: BTreeMap<String, DocCounts> = BTreeMap::new();
    let mut findings = Vec::new();
    let mut versions: Vec<String> = Vec::new();
    for loaded in cases {
        let case = &loaded.case;
        let doc = case
            .source
            .doc
            .clone()
            .unwrap_or_else(|| "(no document)".into());
        let counts = docs.entry(doc.clone()).or_insert_with(|| DocCounts {
            doc: doc.clone(),
            ..DocCounts::default()
        });
        counts.cases += 1;
        if let Some(v) = &loaded.torch_version
            && !versions.contains(v)
        {
            versions.push(v.clone());
        }
        let (Some(claim), Some(expect)) = (&case.doc, &case.expect) else {
            continue;
        };
        counts.claims += 1;
        let fields = discrepancies(&claim.claim, expect);
        if fields.is_empty() {
            continue;
        }
        counts.discrepancies += 1;
        findings.push(Finding {
            doc,
            line: claim.line.or(case.source.line),
            case_id: case.id.clone(),
            call: call_context(case),
            quote: claim.quote.clone(),
            claim: describe_claim(&claim.claim),
            torch: describe_outcome(expect),
            fields,
        });
    }
    findings.sort_by(|a, b| (&a.doc, a.line, &a.case_id).cmp(&(&b.doc, b.line, &b.case_id)));
    ClaimReport {
        torch_version: if versions.is_empty() {
            "(unknown)".into()
        } else {
            versions.join(", ")
        },
        docs: docs.into_values().collect(),
        findings,
    }
}

/// The call of a case with its tensors' dtypes and shapes.
pub fn call_context(case: &Case) -> String {
    let shapes: Vec<String> = case
        .tensors
        .iter()
        .map(|(name, t)| {
            let dtype = case
                .storages
                .get(&t.storage)
                .map_or("?", |s| s.dtype.as_str());
            format!("{name}: {dtype} {}", format_tuple(&t.shape))
        })
        .collect();
    if shapes.is_empty() {
        call_expression(case)
    } else {
        format!("{}  [{}]", call_expression(case), shapes.join(", "))
    }
}

fn at(f: &Finding) -> String {
    match f.line {
        Some(l) => format!("{}:{l}", f.doc),
        None => f.doc.clone(),
    }
}

impl ClaimReport {
    /// Total cases, claims and contradicted claims.
    pub fn totals(&self) -> DocCounts {
        self.docs.iter().fold(
            DocCounts {
                doc: "total".into(),
                ..DocCounts::default()
            },
            |mut t, d| {
                t.cases += d.cases;
                t.claims += d.claims;
                t.discrepancies += d.discrepancies;
                t
            },
        )
    }

    /// The report for a terminal: each finding with its quote and every differing field, then
    /// the counts.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let torch = format!("torch {}", self.torch_version);
        for f in &self.findings {
            let _ = writeln!(s, "{}  [{}]", at(f), f.case_id);
            for (i, line) in f.quote.lines().enumerate() {
                let label = if i == 0 { "quote:" } else { "" };
                let _ = writeln!(s, "  {label:<14}{line}");
            }
            let _ = writeln!(s, "  {:<14}{}", "call:", f.call);
            for d in &f.fields {
                let _ = writeln!(s, "  {:<14}{}: {}", "document:", d.field, d.claimed);
                let _ = writeln!(s, "  {:<14}{}: {}", format!("{torch}:"), d.field, d.actual);
            }
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "{:<28} {:>6} {:>7} {:>14}",
            "document", "cases", "claims", "discrepancies"
        );
        for d in self.docs.iter().chain(std::iter::once(&self.totals())) {
            let _ = writeln!(
                s,
                "{:<28} {:>6} {:>7} {:>14}",
                d.doc, d.cases, d.claims, d.discrepancies
            );
        }
        s
    }

    /// The report as a Markdown fragment: a counts table, then one table per document.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let torch = format!("torch {}", self.torch_version);
        let _ = writeln!(s, "## Where the seed documents disagree with {torch}\n");
        let _ = writeln!(
            s,
            "Generated by `bcast-dev discrepancies --markdown` from `fixtures/docs`. Every example of the \
             five seed documents is a case labelled by {torch}; where a document states an outcome \
             (a printed size, a comment, an error message, a stride, a warning), the claim is kept \
             beside torch's and compared field by field.\n"
        );
        let _ = writeln!(s, "| Document | Cases | Claims | Discrepancies |");
        let _ = writeln!(s, "| --- | ---: | ---: | ---: |");
        for d in self.docs.iter() {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} |",
                d.doc, d.cases, d.claims, d.discrepancies
            );
        }
        let t = self.totals();
        let _ = writeln!(
            s,
            "| **total** | {} | {} | {} |",
            t.cases, t.claims, t.discrepancies
        );
        let mut current = None;
        for f in &self.findings {
            if current != Some(&f.doc) {
                current = Some(&f.doc);
                let _ = writeln!(s, "\n### `{}`\n", f.doc);
                let _ = writeln!(
                    s,
                    "| Line | The document says | Call | It claims | {torch} |"
                );
                let _ = writeln!(s, "| ---: | --- | --- | --- | --- |");
            }
            let fields = |side: fn(&Discrepancy) -> &String| {
                f.fields
                    .iter()
                    .map(|d| format!("{}: {}", d.field, side(d)))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                f.line.map(|l| l.to_string()).unwrap_or_default(),
                quote_cell(&f.quote),
                code_cell(&f.call),
                cell(&fields(|d| &d.claimed)),
                cell(&fields(|d| &d.actual)),
            );
        }
        s
    }
}

/// A call as inline code in a table cell.
fn code_cell(text: &str) -> String {
    format!("`{}`", text.replace('|', "\\|").replace('`', "'"))
}

/// A quote as inline code, line by line, in a table cell.
fn quote_cell(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace('|', "\\|");
            if l.contains('`') {
                format!("`` {l} ``")
            } else {
                format!("`{l}`")
            }
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Text made safe for one Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('\n', "<br>")
}
