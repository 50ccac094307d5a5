//! Expected failures: a file of case ids or id patterns (see [`IdPattern`]), one a line, with
//! `#` comments. A listed case that fails is an expected failure (xfail); one that passes is an
//! unexpected pass (xpass).

use super::select::IdPattern;
use std::path::Path;

/// The expected failures of a run.
///
/// ```
/// use bcast_conformance::runner::xfail::XfailList;
/// let list = XfailList::parse("# known gaps\nexpand/s1/3\nre:^docs/  # all docs cases\n").unwrap();
/// assert_eq!(list.len(), 2);
/// assert!(list.expects_failure("expand/s1/3"));
/// assert!(list.expects_failure("docs/002/L163"));
/// assert!(!list.expects_failure("expand/s1/30"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct XfailList {
    patterns: Vec<IdPattern>,
}

impl XfailList {
    /// Parses the file format; an error names the line.
    pub fn parse(text: &str) -> Result<XfailList, String> {
        let mut patterns = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            patterns.push(IdPattern::parse(line).map_err(|e| format!("line {}: {e}", n + 1))?);
        }
        Ok(XfailList { patterns })
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<XfailList, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        XfailList::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The number of patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the case is expected to fail.
    pub fn expects_failure(&self, id: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(id))
    }

    /// The patterns, as written, that match none of `ids`: stale entries that would otherwise
    /// pass silently.
    ///
    /// ```
    /// use bcast_conformance::runner::xfail::XfailList;
    /// let list = XfailList::parse("expand/s1/3\nexpand/s9/*\n").unwrap();
    /// assert_eq!(list.unmatched(["expand/s1/3", "add/1"]), ["expand/s9/*"]);
    /// ```
    pub fn unmatched<'a>(&self, ids: impl IntoIterator<Item = &'a str> + Clone) -> Vec<String> {
        self.patterns
            .iter()
            .filter(|p| !ids.clone().into_iter().any(|id| p.matches(id)))
            .map(|p| p.to_string())
            .collect()
    }
}
