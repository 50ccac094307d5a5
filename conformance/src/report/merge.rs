//! Merging the JSON reports of the parts of one run (`bcast run --shard K/N --json PART`) into
//! the report of the whole: the cases of every part, the counts and per-level counts summed.
//!
//! What a part says is checked against what it holds, never trusted: its `counts` must be
//! those of its cases (the merged counts are counted again from the cases), its `level_counts`
//! must fit its cases (passed <= applicable <= cases that ran, and `shapes` applies to every
//! case that ran), every case must belong to the part's shards, and no case may be in two
//! parts. The parts must be of one run: one backend, one set of levels, one selection, shards
//! of one `N`, none twice. A set that lacks a part, or holds a part stopped before its last
//! case, is refused unless `allow_partial` says otherwise; the merged report says what it holds
//! (`shards`, `finished`, `complete`), and a complete one holds exactly its selection's cases.
//! Cases are kept as the parts wrote them, not decoded: merging costs little more memory than
//! the reports' text. The merged cases are ordered by file, then by id.
//!
//! ```
//! use bcast_conformance::report::merge::merge_reports;
//! use bcast_conformance::runner::shard::Selection;
//! use serde_json::json;
//! let ids = ["a", "b", "c", "d", "e", "f"];
//! let selection = Selection::of(ids);
//! // The report of part `shard` of a run in which case "b" failed and the others passed.
//! let part = |shard: &str| {
//!     let k: u64 = shard[..1].parse().unwrap();
//!     let s = bcast_conformance::runner::shard::Shard { index: k, count: 2 };
//!     let mine: Vec<&str> = ids.iter().copied().filter(|id| s.contains(id)).collect();
//!     let status = |id: &str| if id == "b" { "fail" } else { "pass" };
//!     let fail = mine.iter().filter(|id| status(id) == "fail").count();
//!     json!({
//!         "backend": "reference", "levels": ["shapes"], "selection": selection,
//!         "shards": [shard], "finished": true, "stopped": null, "complete": false,
//!         "counts": {"pass": mine.len() - fail, "fail": fail, "xfail": 0, "xpass": 0, "skip": 0},
//!         "level_counts": {"shapes": {"passed": mine.len() - fail, "applicable": mine.len()}},
//!         "cases": mine.iter().map(|id| json!({"id": id, "file": "f.json", "op": "torch.add",
//!             "status": status(id), "elapsed_ms": 1.0})).collect::<Vec<_>>(),
//!     }).to_string()
//! };
//! let (one, two) = (part("1/2"), part("2/2"));
//! let named = |texts: &[&String]| -> Vec<(String, String)> {
//!     texts.iter().enumerate().map(|(n, t)| (format!("part{n}.json"), t.to_string())).collect()
//! };
//! let parts = named(&[&two, &one]);
//! let borrowed: Vec<(&str, &str)> = parts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
//! let whole = serde_json::to_value(merge_reports(&borrowed, false).unwrap()).unwrap();
//! assert_eq!(whole["counts"]["pass"], 5);
//! assert_eq!(whole["counts"]["fail"], 1);
//! assert_eq!(whole["level_counts"]["shapes"], json!({"passed": 5, "applicable": 6}));
//! assert_eq!(whole["cases"][0]["id"], "a");
//! assert_eq!((whole["complete"].clone(), whole["shards"].clone()), (json!(true), json!(["1/2", "2/2"])));
//! // A part twice, or a part missing, is no whole run.
//! let twice = named(&[&one, &one]);
//! let twice: Vec<(&str, &str)> = twice.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
//! assert!(merge_reports(&twice, false).unwrap_err().contains("part 1/2 is in two reports"));
//! let alone = [("part0.json", one.as_str())];
//! assert!(merge_reports(&alone, false).unwrap_err().contains("part 2/2 is missing"));
//! let partial = serde_json::to_value(merge_reports(&alone, true).unwrap()).unwrap();
//! assert_eq!(partial["complete"], false);
//! ```

use super::json::JsonReport;
use super::levels::LevelCount;
use crate::backend::Level;
use crate::runner::shard::{Selection, Shard};
use crate::runner::suite::Status;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// A part as read: the report's fields, its cases kept as the JSON text they are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Part<'a> {
    #[serde(borrow)]
    backend: Cow<'a, str>,
    #[serde(borrow)]
    levels: Vec<Cow<'a, str>>,
    selection: Selection,
    shards: Vec<Shard>,
    finished: bool,
    stopped: Option<String>,
    /// Recomputed from the parts, not read.
    #[allow(dead_code)]
    complete: bool,
    #[serde(borrow)]
    counts: BTreeMap<Cow<'a, str>, u64>,
    #[serde(borrow)]
    level_counts: BTreeMap<Cow<'a, str>, LevelCount>,
    #[serde(borrow)]
    cases: Vec<&'a RawValue>,
}

/// What merging reads of a case.
#[derive(Deserialize)]
struct CaseHead<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    status: Status,
}

/// A level's name as the report writes it, or why it is none.
fn level_name(name: &str) -> Result<&'static str, String> {
    Level::ALL
        .into_iter()
        .map(Level::name)
        .find(|l| *l == name)
        .ok_or_else(|| format!("unknown level {name:?}"))
}

/// The shards as text, `1/3, 2/3`.
fn shards_text(shards: &[Shard]) -> String {
    let texts: Vec<String> = shards.iter().map(Shard::to_string).collect();
    texts.join(", ")
}

/// The report of the whole run from its parts, each `(name, text)` (the name, a path, is for
/// messages), or why they do not make one (see the module's documentation). With
/// `allow_partial`, a set that lacks parts or holds stopped parts is merged, and says so.
pub fn merge_reports<'a>(
    parts: &[(&str, &'a str)],
    allow_partial: bool,
) -> Result<JsonReport<'a, &'a RawValue>, String> {
    if parts.is_empty() {
        return Err("no report to merge".to_string());
    }
    let mut merged: Option<JsonReport<'a, &'a RawValue>> = None;
    let mut holder: BTreeMap<Shard, usize> = BTreeMap::new();
    let mut heads: Vec<(CaseHead<'a>, &'a RawValue)> = Vec::new();
    let mut ids: BTreeSet<Cow<'a, str>> = BTreeSet::new();
    let mut stopped: Vec<String> = Vec::new();
    for (n, (name, text)) in parts.iter().enumerate() {
        let which = format!("report {} ({name})", n + 1);
        let part: Part<'a> = serde_json::from_str(text)
            .map_err(|e| format!("{which}: not a report of `bcast run --json` ({e})"))?;
        let levels = (part.levels.iter())
            .map(|l| level_name(l))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{which}: {e}"))?;
        let whole = merged.get_or_insert_with(|| JsonReport {
            backend: part.backend.clone(),
            levels: levels.clone(),
            selection: part.selection.clone(),
            shards: Vec::new(),
            finished: true,
            stopped: None,
            complete: false,
            counts: Status::ALL.into_iter().map(|s| (s.name(), 0)).collect(),
            level_counts: levels.iter().map(|l| (*l, LevelCount::default())).collect(),
            cases: Vec::new(),
        });
        let differs = |what: &str, this: String, first: String| {
            format!("{which}: {what} {this} differs from {first} of report 1: not a part of the same run")
        };
        if part.backend != whole.backend {
            return Err(differs(
                "backend",
                format!("{:?}", part.backend),
                format!("{:?}", whole.backend),
            ));
        }
        if levels != whole.levels {
            return Err(differs(
                "levels",
                format!("{levels:?}"),
                format!("{:?}", whole.levels),
            ));
        }
        if part.selection != whole.selection {
            return Err(differs(
                "selection",
                format!("{:?}", part.selection),
                format!("{:?}", whole.selection),
            ));
        }
        if part.shards.is_empty() {
            return Err(format!("{which}: it holds no shard"));
        }
        for shard in &part.shards {
            if let Some(first) = whole.shards.first().filter(|f| f.count != shard.count) {
                return Err(format!(
                    "{which}: part {shard} is not a part of the {} of report 1 (its {first})",
                    first.count
                ));
            }
            if let Some(other) = holder.insert(*shard, n + 1) {
                return Err(format!(
                    "part {shard} is in two reports ({other} and {}): each part once",
                    n + 1
                ));
            }
            whole.shards.push(*shard);
        }
        if !part.finished {
            let why = part.stopped.as_deref().unwrap_or("reason unknown");
            if !allow_partial {
                return Err(format!(
                    "{which}: part {} stopped before its last case ({why}); run it again, or \
                     merge with --allow-partial (the merged report then says it is incomplete)",
                    shards_text(&part.shards)
                ));
            }
            whole.finished = false;
            stopped.push(format!("{}: {why}", shards_text(&part.shards)));
        }
        // Counted from the cases, and checked against what the part says.
        let mut counts: BTreeMap<Status, usize> = BTreeMap::new();
        for raw in &part.cases {
            let head: CaseHead<'a> = serde_json::from_str(raw.get())
                .map_err(|e| format!("{which}: a case that is not a report's case ({e})"))?;
            if !part.shards.iter().any(|s| s.contains(&head.id)) {
                return Err(format!(
                    "{which}: case {} is not in its part {}",
                    head.id,
                    shards_text(&part.shards)
                ));
            }
            if !ids.insert(head.id.clone()) {
                return Err(format!(
                    "{which}: case {} is in two reports (the parts of one run never overlap)",
                    head.id
                ));
            }
            *counts.entry(head.status).or_default() += 1;
            heads.push((head, raw));
        }
        for status in Status::ALL {
            let held = counts.get(&status).copied().unwrap_or(0);
            let said = part.counts.get(status.name()).copied();
            if said != Some(held as u64) {
                let said = said.map_or("nothing".to_string(), |s| s.to_string());
                return Err(format!(
                    "{which}: its counts say {} {said}, its cases hold {held}: a report's counts \
                     are those of its cases",
                    status.name()
                ));
            }
            let sum = whole.counts.entry(status.name()).or_default();
            *sum = sum
                .checked_add(held)
                .ok_or(format!("{which}: too many cases"))?;
        }
        if let Some(extra) = part
            .counts
            .keys()
            .find(|k| !Status::ALL.iter().any(|s| s.name() == k.as_ref()))
        {
            return Err(format!(
                "{which}: its counts hold an unknown status {extra:?}"
            ));
        }
        let ran = part.cases.len() - counts.get(&Status::Skip).copied().unwrap_or(0);
        let counted: Vec<&str> = part.level_counts.keys().map(|k| k.as_ref()).collect();
        if counted != {
            let mut sorted = whole.levels.clone();
            sorted.sort_unstable();
            sorted
        } {
            return Err(format!(
                "{which}: its level_counts hold {counted:?}, its levels are {:?}",
                whole.levels
            ));
        }
        for (level, count) in &part.level_counts {
            let fits = count.passed <= count.applicable
                && count.applicable <= ran
                && (level != "shapes" || count.applicable == ran);
            if !fits {
                return Err(format!(
                    "{which}: its level_counts.{level} ({} passed of {} applicable) do not fit its \
                     {ran} cases that ran",
                    count.passed, count.applicable
                ));
            }
            let name = level_name(level).map_err(|e| format!("{which}: {e}"))?;
            let sum = whole.level_counts.entry(name).or_default();
            let add =
                |a: usize, b: usize| a.checked_add(b).ok_or(format!("{which}: too many cases"));
            sum.passed = add(sum.passed, count.passed)?;
            sum.applicable = add(sum.applicable, count.applicable)?;
        }
    }
    let mut whole = merged.ok_or("no report to merge")?;
    whole.shards.sort_by_key(|s| s.index);
    let count = whole.shards[0].count;
    let missing: Vec<Shard> = (1..=count)
        .map(|index| Shard { index, count })
        .filter(|s| !holder.contains_key(s))
        .take(10)
        .collect();
    if !missing.is_empty() && !allow_partial {
        let more = if missing.len() == 10 { " and more" } else { "" };
        let are = if missing.len() == 1 { "is" } else { "are" };
        return Err(format!(
            "part {}{more} {are} missing: merge every part of the run, or merge with \
             --allow-partial (the merged report then says it is incomplete)",
            shards_text(&missing)
        ));
    }
    whole.stopped = (!stopped.is_empty()).then(|| stopped.join("; "));
    whole.complete = missing.is_empty() && whole.finished;
    if whole.complete && Selection::of(ids.iter().map(|id| id.as_ref())) != whole.selection {
        return Err(format!(
            "every part is here and finished, but their {} cases are not the {} cases of their \
             selection: a part lost or gained cases",
            ids.len(),
            whole.selection.cases
        ));
    }
    heads.sort_by(|(a, _), (b, _)| (&a.file, &a.id).cmp(&(&b.file, &b.id)));
    whole.cases = heads.into_iter().map(|(_, raw)| raw).collect();
    Ok(whole)
}
