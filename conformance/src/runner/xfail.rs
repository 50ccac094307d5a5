//! Expected failures: a file of case ids or id patterns (see [`IdPattern`]), one a line, with
//! `#` comments. A listed case that fails is an expected failure (xfail); one that passes is an
//! unexpected pass (xpass).
//!
//! An entry may pin why the case fails with a last field `reason=R`, `R` being a check level
//! (`values`: the first difference is at that level) or `backend` (any backend failure) or
//! `backend:KIND` (`backend:crashed`, `backend:timed-out`, ...). A case listed only with
//! other reasons than the one it now fails for is an unexpected failure, reported with both.
//! [`XfailList::baseline`] writes the file that `bcast run --write-xfail` leaves.

use super::select::IdPattern;
use super::suite::{Status, SuiteResult};
use super::Verdict;
use crate::backend::{FailureKind, Level};
use crate::case::LoadedCase;
use std::fmt;
use std::fmt::Write as _;
use std::path::Path;

/// Why a case fails, as an xfail entry pins it.
///
/// ```
/// use bcast_conformance::runner::xfail::Reason;
/// use bcast_conformance::backend::{FailureKind, Level};
/// assert_eq!(Reason::parse("values"), Ok(Reason::Level(Level::Values)));
/// assert_eq!(Reason::parse("backend:timed-out"), Ok(Reason::Backend(Some(FailureKind::TimedOut))));
/// assert_eq!(Reason::Backend(Some(FailureKind::BadAnswer)).to_string(), "backend:bad-answer");
/// assert!(Reason::Backend(None).covers(Reason::Backend(Some(FailureKind::Crashed))));
/// assert!(!Reason::Level(Level::Values).covers(Reason::Level(Level::Shapes)));
/// assert!(Reason::parse("colour").unwrap_err().contains("unknown reason"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The first difference is at this level.
    Level(Level),
    /// The backend failed to answer: of this kind, or of any kind (`None`).
    Backend(Option<FailureKind>),
}

/// Every backend failure kind, for parsing `backend:KIND`.
const FAILURE_KINDS: [FailureKind; 6] = [
    FailureKind::Unsupported,
    FailureKind::Crashed,
    FailureKind::TimedOut,
    FailureKind::BadAnswer,
    FailureKind::Panicked,
    FailureKind::BadInput,
];

/// A failure kind's name in an xfail file: its report name, hyphenated (`timed-out`).
pub(crate) fn kind_token(kind: FailureKind) -> String {
    kind.name().replace(' ', "-")
}

/// The failure kind a [`kind_token`] spells, if any.
pub(crate) fn kind_of_token(token: &str) -> Option<FailureKind> {
    FAILURE_KINDS.into_iter().find(|k| kind_token(*k) == token)
}

impl Reason {
    /// The reason a verdict fails for: the level of its first difference, or its backend
    /// failure's kind; `None` for a pass or a skip.
    pub fn of(verdict: &Verdict) -> Option<Reason> {
        match verdict {
            Verdict::Fail(ms) => ms.first().map(|m| Reason::Level(m.level)),
            Verdict::BackendFailure(f) => Some(Reason::Backend(Some(f.kind))),
            Verdict::Pass | Verdict::Skip(_) => None,
        }
    }

    /// Parses `LEVEL`, `backend` or `backend:KIND`.
    pub fn parse(text: &str) -> Result<Reason, String> {
        if text == "backend" {
            return Ok(Reason::Backend(None));
        }
        if let Some(kind) = text.strip_prefix("backend:") {
            return kind_of_token(kind)
                .map(|k| Reason::Backend(Some(k)))
                .ok_or_else(|| {
                    let known: Vec<String> = FAILURE_KINDS.into_iter().map(kind_token).collect();
                    format!(
                        "unknown backend failure kind {kind:?} (known: {})",
                        known.join(", ")
                    )
                });
        }
        Level::ALL
            .into_iter()
            .find(|l| l.name() == text)
            .map(Reason::Level)
            .ok_or_else(|| {
                format!(
                    "unknown reason {text:?}: give a level ({}), backend or backend:KIND",
                    Level::ALL.map(|l| l.name()).join(", ")
                )
            })
    }

    /// Whether a case that fails for `actual` fails for this reason.
    pub fn covers(self, actual: Reason) -> bool {
        match (self, actual) {
            (Reason::Backend(None), Reason::Backend(_)) => true,
            _ => self == actual,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Level(l) => f.write_str(l.name()),
            Reason::Backend(None) => f.write_str("backend"),
            Reason::Backend(Some(k)) => write!(f, "backend:{}", kind_token(*k)),
        }
    }
}

/// One line of an xfail file.
#[derive(Debug, Clone)]
pub struct XfailEntry {
    pub pattern: IdPattern,
    /// The reason pinned with `reason=`, if any.
    pub reason: Option<Reason>,
    /// The line's comment, without its `#`.
    pub comment: Option<String>,
    /// Its line number in the file, from 1.
    pub line: usize,
}

impl XfailEntry {
    /// Parses one line of the file (`n`: its number), `None` for a blank or comment line.
    fn parse(raw: &str, n: usize) -> Result<Option<XfailEntry>, String> {
        let (body, comment) = match raw.split_once('#') {
            Some((body, comment)) => {
                let mut kept: String = comment.chars().take(XfailList::MAX_COMMENT_CHARS).collect();
                if kept.len() < comment.len() {
                    kept.push_str("...");
                }
                (body, Some(kept))
            }
            None => (raw, None),
        };
        let mut body = body.trim();
        if body.is_empty() {
            return Ok(None);
        }
        let mut reason = None;
        if let Some((pattern, last)) = body.rsplit_once(char::is_whitespace)
            && let Some(r) = last.strip_prefix("reason=")
        {
            reason = Some(Reason::parse(r)?);
            body = pattern.trim_end();
        }
        Ok(Some(XfailEntry {
            pattern: IdPattern::parse(body)?,
            reason,
            comment,
            line: n,
        }))
    }

    /// Whether a case that failed with `verdict` fails as this entry expects.
    fn holds_for(&self, verdict: &Verdict) -> bool {
        verdict.is_failure()
            && match (self.reason, Reason::of(verdict)) {
                (None, _) => true,
                (Some(pinned), Some(actual)) => pinned.covers(actual),
                (Some(_), None) => false,
            }
    }

    /// The entry as a line of the file (`pattern  reason=R  # comment`).
    pub fn to_line(&self) -> String {
        let mut s = self.pattern.to_string();
        if let Some(r) = self.reason {
            let _ = write!(s, "  reason={r}");
        }
        if let Some(c) = &self.comment {
            let _ = write!(s, "  #{c}");
        }
        s
    }
}

/// How the xfail list takes a case's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// No entry lists the case.
    NotListed,
    /// An entry lists it (and, if it failed, for the reason it failed).
    Listed,
    /// It failed, and every entry listing it pins other reasons: these.
    OtherReason(Vec<Reason>),
}

/// What a run says of each entry of the list.
#[derive(Debug, Default)]
pub struct Review<'a> {
    /// Entries some case of the run still fails under, as they expect.
    pub holding: Vec<&'a XfailEntry>,
    /// Entries whose cases ran and all passed: stale. With the number of those cases.
    pub passing: Vec<(&'a XfailEntry, usize)>,
    /// Entries whose cases ran and failed, none for the reason the entry pins.
    pub other_reason: Vec<&'a XfailEntry>,
    /// Entries that matched no case that ran (skipped, not selected, not reached): this run
    /// says nothing of them.
    pub unjudged: Vec<&'a XfailEntry>,
}

/// The expected failures of a run.
///
/// Memory stays near the file's size, whatever it holds: an entry that is a case id written
/// out costs its text and a few words (ids are looked up in a sorted index, not compiled); the
/// globs and `re:` patterns of one file may take [`XfailList::MAX_COMPILED_BYTES`] compiled
/// in all, and a comment is kept to its first [`XfailList::MAX_COMMENT_CHARS`] characters.
///
/// ```
/// use bcast_conformance::runner::xfail::XfailList;
/// let list = XfailList::parse("# known gaps\nexpand/s1/3\nre:^docs/  # all docs cases\n").unwrap();
/// assert_eq!(list.len(), 2);
/// assert!(list.expects_failure("expand/s1/3"));
/// assert!(list.expects_failure("docs/002/L163"));
/// assert!(!list.expects_failure("expand/s1/30"));
/// let pinned = XfailList::parse("expand/s1/3  reason=values  # got 2").unwrap();
/// assert_eq!(pinned.entries()[0].reason.unwrap().to_string(), "values");
/// assert!(XfailList::parse("expand/s1/3 reason=colour").unwrap_err().starts_with("line 1: "));
/// let nested = format!("ok/1\n{}x{}\n", "{a,".repeat(300), "}".repeat(300));
/// assert!(XfailList::parse(&nested).unwrap_err().starts_with("line 2: bad glob"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct XfailList {
    entries: Vec<XfailEntry>,
    /// The entries that are ids written out (indices into `entries`), sorted by id.
    exact: Vec<usize>,
    /// The other entries (globs and regular expressions), in file order.
    compiled: Vec<usize>,
}

impl XfailList {
    /// The most heap the globs and `re:` patterns of one file may take compiled, together.
    pub const MAX_COMPILED_BYTES: usize = 64 << 20;
    /// The longest comment kept, in characters (a longer one is clipped).
    pub const MAX_COMMENT_CHARS: usize = 1000;

    /// Parses the file format; an error names the line.
    pub fn parse(text: &str) -> Result<XfailList, String> {
        XfailList::read(text.as_bytes())
    }

    /// Parses the file format from a reader, a line at a time; an error names the line.
    pub fn read(mut reader: impl std::io::BufRead) -> Result<XfailList, String> {
        let mut list = XfailList::default();
        let mut compiled_bytes = 0usize;
        let mut raw = Vec::new();
        for n in 1.. {
            raw.clear();
            let read = reader
                .read_until(b'\n', &mut raw)
                .map_err(|e| format!("line {n}: {e}"))?;
            if read == 0 {
                break;
            }
            let at = |e: String| format!("line {n}: {e}");
            let line = std::str::from_utf8(&raw).map_err(|e| at(format!("not UTF-8 ({e})")))?;
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            let Some(entry) = XfailEntry::parse(line, n).map_err(at)? else {
                continue;
            };
            compiled_bytes = compiled_bytes.saturating_add(entry.pattern.compiled_bytes());
            if compiled_bytes > Self::MAX_COMPILED_BYTES {
                return Err(at(format!(
                    "the globs and re: patterns up to here take more than {} MiB compiled; \
                     list case ids instead",
                    Self::MAX_COMPILED_BYTES >> 20
                )));
            }
            list.entries.push(entry);
        }
        for (i, entry) in list.entries.iter().enumerate() {
            match entry.pattern.exact_id() {
                Some(_) => list.exact.push(i),
                None => list.compiled.push(i),
            }
        }
        let entries = &list.entries;
        list.exact.sort_by(|&a, &b| {
            entries[a]
                .pattern
                .exact_id()
                .cmp(&entries[b].pattern.exact_id())
        });
        Ok(list)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<XfailList, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        XfailList::read(std::io::BufReader::new(file))
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[XfailEntry] {
        &self.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries that list the case `id` (indices into [`XfailList::entries`], in file
    /// order).
    fn matching(&self, id: &str) -> Vec<usize> {
        let exact_id = |i: &usize| self.entries[*i].pattern.exact_id().unwrap_or_default();
        let from = self.exact.partition_point(|i| exact_id(i) < id);
        let equal = self.exact[from..].partition_point(|i| exact_id(i) == id);
        let mut found: Vec<usize> = self.exact[from..from + equal].to_vec();
        found.extend(
            (self.compiled.iter().copied()).filter(|&i| self.entries[i].pattern.matches(id)),
        );
        found.sort_unstable();
        found
    }

    /// Whether some entry lists the case, whatever reason it pins.
    pub fn expects_failure(&self, id: &str) -> bool {
        !self.matching(id).is_empty()
    }

    /// How the list takes the case `id` that ended with `verdict`: a case that failed counts as
    /// expected when an entry lists it without a reason or with the reason it failed for.
    ///
    /// ```
    /// use bcast_conformance::runner::xfail::{Judgement, Reason, XfailList};
    /// use bcast_conformance::runner::Verdict;
    /// use bcast_conformance::backend::{BackendFailure, FailureKind};
    /// let list = XfailList::parse("a/1  reason=values\nb/*  reason=backend\n").unwrap();
    /// let crashed = Verdict::BackendFailure(BackendFailure::new(FailureKind::Crashed, "exit 3"));
    /// assert_eq!(list.judge("b/7", &crashed), Judgement::Listed);
    /// assert_eq!(list.judge("c/1", &crashed), Judgement::NotListed);
    /// assert_eq!(list.judge("a/1", &crashed), Judgement::OtherReason(vec![Reason::parse("values").unwrap()]));
    /// assert_eq!(list.judge("a/1", &Verdict::Pass), Judgement::Listed);
    /// ```
    pub fn judge(&self, id: &str, verdict: &Verdict) -> Judgement {
        let listing: Vec<&XfailEntry> = self
            .matching(id)
            .into_iter()
            .map(|i| &self.entries[i])
            .collect();
        if listing.is_empty() {
            return Judgement::NotListed;
        }
        if !verdict.is_failure() || listing.iter().any(|e| e.holds_for(verdict)) {
            return Judgement::Listed;
        }
        let mut pinned: Vec<Reason> = Vec::new();
        for r in listing.iter().filter_map(|e| e.reason) {
            if !pinned.contains(&r) {
                pinned.push(r);
            }
        }
        Judgement::OtherReason(pinned)
    }

    /// The entries that match none of `ids`, in file order: stale entries that would
    /// otherwise pass silently.
    ///
    /// ```
    /// use bcast_conformance::runner::xfail::XfailList;
    /// let list = XfailList::parse("expand/s1/3\nexpand/s9/*\n").unwrap();
    /// let stale = list.unmatched(["expand/s1/3", "add/1"]);
    /// assert_eq!(stale.iter().map(|e| (e.pattern.to_string(), e.line)).collect::<Vec<_>>(),
    ///            [("expand/s9/*".to_string(), 2)]);
    /// ```
    pub fn unmatched<'a, 'b>(
        &'a self,
        ids: impl IntoIterator<Item = &'b str>,
    ) -> Vec<&'a XfailEntry> {
        let mut matched = vec![false; self.entries.len()];
        for id in ids {
            for i in self.matching(id) {
                matched[i] = true;
            }
        }
        (self.entries.iter().zip(matched))
            .filter(|(_, matched)| !matched)
            .map(|(e, _)| e)
            .collect()
    }

    /// Sorts the entries by what the run says of them (see [`Review`]).
    pub fn review<'a>(&'a self, result: &SuiteResult) -> Review<'a> {
        /// What the run's judged cases say of one entry.
        #[derive(Debug, Default, Clone, Copy)]
        struct Seen {
            judged: usize,
            holding: bool,
            failed: bool,
        }
        let mut seen = vec![Seen::default(); self.entries.len()];
        for e in result.entries.iter().filter(|e| e.status != Status::Skip) {
            let verdict = &e.report.verdict;
            for i in self.matching(&e.report.id) {
                let s = &mut seen[i];
                s.judged += 1;
                s.holding |= self.entries[i].holds_for(verdict);
                s.failed |= verdict.is_failure();
            }
        }
        let mut review = Review::default();
        for (entry, s) in self.entries.iter().zip(seen) {
            if s.judged == 0 {
                review.unjudged.push(entry);
            } else if s.holding {
                review.holding.push(entry);
            } else if !s.failed {
                review.passing.push((entry, s.judged));
            } else {
                review.other_reason.push(entry);
            }
        }
        review
    }

    /// The xfail file that makes this run's failures expected: the entries some case still
    /// fails under as they expect, those this run did not judge, and one line per unexpected
    /// failure, `ID  reason=R  # first difference`. Entries whose cases now pass, or fail
    /// for another reason than pinned, are left out. `header` lines open the file as comments.
    pub fn baseline(
        &self,
        result: &SuiteResult,
        cases: &[LoadedCase],
        header: &[String],
    ) -> String {
        let review = self.review(result);
        let mut s = String::new();
        for line in header {
            let _ = writeln!(s, "# {line}");
        }
        let kept: Vec<&&XfailEntry> = {
            let mut kept: Vec<&&XfailEntry> =
                review.holding.iter().chain(&review.unjudged).collect();
            kept.sort_by_key(|e| e.line);
            kept
        };
        for entry in kept {
            let _ = writeln!(s, "{}", entry.to_line());
        }
        for e in result.entries.iter().filter(|e| e.status == Status::Fail) {
            let id = &cases[e.index].case.id;
            let mut line = pattern_for_id(id);
            if let Some(r) = Reason::of(&e.report.verdict) {
                let _ = write!(line, "  reason={r}");
            }
            let first = match &e.report.verdict {
                Verdict::Fail(ms) => ms.first().map(|m| m.to_string()).unwrap_or_default(),
                other => other.headline(),
            };
            let _ = writeln!(line, "  # {}", super::one_line(&first));
            s.push_str(&line);
        }
        s
    }
}

/// An xfail pattern that matches exactly `id`: the id itself, unless it holds a glob
/// metacharacter, `#` or white space; then an anchored regular expression.
///
/// ```
/// use bcast_conformance::runner::select::IdPattern;
/// use bcast_conformance::runner::xfail::pattern_for_id;
/// assert_eq!(pattern_for_id("expand/s1/3"), "expand/s1/3");
/// for id in ["a[1]*", "odd # id", "x{y}?"] {
///     let p = IdPattern::parse(&pattern_for_id(id)).unwrap();
///     assert!(p.matches(id) && !p.matches(&format!("{id}0")), "{id}");
///     assert!(!pattern_for_id(id).contains(['#', ' ']));
/// }
/// ```
pub fn pattern_for_id(id: &str) -> String {
    let plain = |c: char| {
        !matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '#') && !c.is_whitespace()
    };
    if id.chars().all(plain) && !id.starts_with("re:") {
        return id.to_string();
    }
    let mut re = String::from("re:^");
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | ':' | ',' | '=') {
            re.push(c);
        } else {
            let _ = write!(re, "\\x{{{:x}}}", c as u32);
        }
    }
    re.push('$');
    re
}
