//! Which cases a run takes: filters by op, tag and id pattern. Id patterns are globs
//! (`expand/s1/*`) or, with a `re:` prefix, regular expressions (`re:^expand/s1/[0-9]$`).

use crate::case::Case;
use globset::{Glob, GlobMatcher};
use regex::Regex;
use std::fmt;

/// A pattern over case ids: a glob, or a regular expression written `re:...`.
///
/// ```
/// use bcast_conformance::runner::select::IdPattern;
/// let glob = IdPattern::parse("expand/s1/*").unwrap();
/// assert!(glob.matches("expand/s1/17") && !glob.matches("docs/002/L163"));
/// let re = IdPattern::parse("re:^expand/s1/[0-9]$").unwrap();
/// assert!(re.matches("expand/s1/7") && !re.matches("expand/s1/17"));
/// assert!(IdPattern::parse("re:(").is_err());
/// ```
#[derive(Debug, Clone)]
pub enum IdPattern {
    Glob(String, GlobMatcher),
    Regex(Regex),
}

impl IdPattern {
    /// Parses a glob, or a regular expression after `re:`.
    pub fn parse(text: &str) -> Result<IdPattern, String> {
        match text.strip_prefix("re:") {
            Some(re) => Regex::new(re)
                .map(IdPattern::Regex)
                .map_err(|e| format!("bad regular expression {re:?}: {e}")),
            None => Glob::new(text)
                .map(|g| IdPattern::Glob(text.to_string(), g.compile_matcher()))
                .map_err(|e| format!("bad glob {text:?}: {e}")),
        }
    }

    /// The one id this pattern matches, when it is a glob without wildcards (an entry of a
    /// baseline written by `--write-xfail`), so that a list of them is looked up, not scanned.
    ///
    /// ```
    /// use bcast_conformance::runner::select::IdPattern;
    /// assert_eq!(IdPattern::parse("expand/s1/3").unwrap().exact(), Some("expand/s1/3"));
    /// for p in ["expand/*", "expand/s1/?", "a[12]", "{a,b}", "re:^a$", "a\\*"] {
    ///     assert_eq!(IdPattern::parse(p).unwrap().exact(), None, "{p}");
    /// }
    /// ```
    pub fn exact(&self) -> Option<&str> {
        match self {
            IdPattern::Glob(text, _) if !text.contains(['*', '?', '[', ']', '{', '}', '\\']) => {
                Some(text)
            }
            _ => None,
        }
    }

    /// Whether `id` matches (a glob matches the whole id; a regex anywhere unless anchored).
    pub fn matches(&self, id: &str) -> bool {
        match self {
            IdPattern::Glob(_, g) => g.is_match(id),
            IdPattern::Regex(r) => r.is_match(id),
        }
    }
}

impl fmt::Display for IdPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdPattern::Glob(text, _) => f.write_str(text),
            IdPattern::Regex(r) => write!(f, "re:{}", r.as_str()),
        }
    }
}

/// Which cases to run. Each non-empty list must match: the case's op is one of `ops`, it has
/// one of `tags`, and its id matches one of `ids`; and its op is none of `exclude_ops` and it
/// has none of `exclude_tags`.
///
/// ```
/// use bcast_conformance::case::Case;
/// use bcast_conformance::runner::select::{CaseFilter, IdPattern};
/// let case: Case = serde_json::from_str(
///     r#"{"id": "x/1", "tags": ["inplace"], "call": {"fn": "Tensor.add_"}}"#,
/// ).unwrap();
/// let mut filter = CaseFilter::default();
/// assert!(filter.accepts(&case));
/// filter.tags = vec!["inplace".into()];
/// filter.ids = vec![IdPattern::parse("x/*").unwrap()];
/// assert!(filter.accepts(&case));
/// filter.ops = vec!["torch.add".into()];
/// assert!(!filter.accepts(&case));
/// let mut filter = CaseFilter::default();
/// filter.exclude_ops = vec!["Tensor.add_".into()];
/// assert!(!filter.accepts(&case));
/// ```
#[derive(Debug, Clone, Default)]
pub struct CaseFilter {
    /// Only these ops (none: every op).
    pub ops: Vec<String>,
    /// Only cases with one of these tags (none: every case).
    pub tags: Vec<String>,
    /// Only cases whose id matches one of these (none: every case).
    pub ids: Vec<IdPattern>,
    /// Never these ops.
    pub exclude_ops: Vec<String>,
    /// Never cases with one of these tags.
    pub exclude_tags: Vec<String>,
}

impl CaseFilter {
    /// Whether the case is selected.
    pub fn accepts(&self, case: &Case) -> bool {
        (self.ops.is_empty() || self.ops.contains(&case.call.fn_))
            && (self.tags.is_empty() || case.tags.iter().any(|t| self.tags.contains(t)))
            && (self.ids.is_empty() || self.ids.iter().any(|p| p.matches(&case.id)))
            && !self.exclude_ops.contains(&case.call.fn_)
            && !case.tags.iter().any(|t| self.exclude_tags.contains(t))
    }
}
