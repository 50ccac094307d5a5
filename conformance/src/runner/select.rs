//! Which cases a run takes: filters by op, tag and id pattern. Id patterns are globs
//! (`expand/s1/*`) or, with a `re:` prefix, regular expressions (`re:^expand/s1/[0-9]$`).

use crate::case::Case;
use globset::Glob;
use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use std::fmt;

/// A pattern over case ids: an id written out, a glob, or a regular expression written
/// `re:...`. A glob or a regular expression is compiled within bounds (see
/// [`IdPattern::MAX_BYTES`], [`IdPattern::MAX_COMPILED_BYTES`]): one past them is refused,
/// never a panic or an unbounded allocation.
///
/// ```
/// use bcast_conformance::runner::select::IdPattern;
/// let glob = IdPattern::parse("expand/s1/*").unwrap();
/// assert!(glob.matches("expand/s1/17") && !glob.matches("docs/002/L163"));
/// let re = IdPattern::parse("re:^expand/s1/[0-9]$").unwrap();
/// assert!(re.matches("expand/s1/7") && !re.matches("expand/s1/17"));
/// let id = IdPattern::parse("docs/002/L163").unwrap();
/// assert_eq!(id.exact_id(), Some("docs/002/L163"));
/// assert!(IdPattern::parse("re:(").is_err());
/// // Globs that compile to a regular expression past the bounds are refused.
/// let nested = format!("{}x{}", "{a,".repeat(300), "}".repeat(300));
/// assert!(IdPattern::parse(&nested).unwrap_err().contains("nested"));
/// assert!(IdPattern::parse(&"?".repeat(200_000)).unwrap_err().contains("bytes long"));
/// assert!(IdPattern::parse(&"?".repeat(16_000)).unwrap_err().contains("too large"));
/// ```
#[derive(Debug, Clone)]
pub struct IdPattern {
    /// The pattern as written.
    text: Box<str>,
    /// Its compiled form; `None` for an id written out, matched by equality.
    compiled: Option<Regex>,
}

impl IdPattern {
    /// The longest pattern accepted, in bytes (case ids are a few dozen).
    pub const MAX_BYTES: usize = 16 << 10;
    /// The most heap one glob or regular expression may take compiled.
    pub const MAX_COMPILED_BYTES: usize = 256 << 10;
    /// The deepest nesting of a glob's `{a,b}` alternations.
    pub const MAX_NESTING: usize = 32;

    /// Parses a glob, or a regular expression after `re:`; text without a glob metacharacter
    /// (`*?[]{}\`) is an id, matched as it is.
    pub fn parse(text: &str) -> Result<IdPattern, String> {
        if text.len() > Self::MAX_BYTES {
            return Err(format!(
                "a pattern {} bytes long (at most {} are read): {}",
                text.len(),
                Self::MAX_BYTES,
                shown(text)
            ));
        }
        let compiled = match text.strip_prefix("re:") {
            Some(re) => Some(
                compile(re, syntax::Config::new())
                    .map_err(|e| format!("bad regular expression {}: {e}", shown(re)))?,
            ),
            None if text.contains(GLOB_META) => {
                let bad = |e: String| format!("bad glob {}: {e}", shown(text));
                if nesting(text) > Self::MAX_NESTING {
                    return Err(bad(format!(
                        "alternations nested more than {} deep",
                        Self::MAX_NESTING
                    )));
                }
                let glob = Glob::new(text).map_err(|e| bad(e.to_string()))?;
                // As globset compiles a glob, but within bounds and without its panic.
                let syntax = syntax::Config::new().utf8(false).dot_matches_new_line(true);
                Some(compile(glob.regex(), syntax).map_err(bad)?)
            }
            None => None,
        };
        Ok(IdPattern {
            text: text.into(),
            compiled,
        })
    }

    /// Whether `id` matches (an id or a glob matches the whole id; a regex anywhere unless
    /// anchored).
    pub fn matches(&self, id: &str) -> bool {
        match &self.compiled {
            Some(re) => re.is_match(id),
            None => *self.text == *id,
        }
    }

    /// The id this pattern is, when it is one written out (no glob, no `re:`).
    pub fn exact_id(&self) -> Option<&str> {
        self.compiled.is_none().then_some(&*self.text)
    }

    /// The heap its compiled form takes, in bytes (0 for an id).
    pub fn compiled_bytes(&self) -> usize {
        self.compiled.as_ref().map_or(0, Regex::memory_usage)
    }
}

/// A pattern quoted in a message: its first 60 characters.
fn shown(text: &str) -> String {
    let head: String = text.chars().take(60).collect();
    let more = if head.len() < text.len() { "..." } else { "" };
    format!("{head:?}{more}")
}

/// The characters that make a pattern a glob.
const GLOB_META: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

/// How deep `{` nests in `text`, counting every brace (escaped or in a class too: an
/// overestimate only for patterns no id needs).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A regular expression compiled with bounded memory: an NFA of at most
/// [`IdPattern::MAX_COMPILED_BYTES`], and no lazy or full DFA (ids are short; a pattern's
/// memory stays what [`Regex::memory_usage`] says, plus a small per-thread search cache).
fn compile(pattern: &str, syntax: syntax::Config) -> Result<Regex, String> {
    let config = Regex::config()
        .utf8_empty(false)
        .nfa_size_limit(Some(IdPattern::MAX_COMPILED_BYTES))
        .hybrid(false)
        .dfa(false)
        .onepass(false);
    Regex::builder()
        .syntax(syntax)
        .configure(config)
        .build(pattern)
        .map_err(|e| match e.size_limit() {
            Some(limit) => format!("it compiles too large (over {limit} bytes)"),
            None => super::one_line(&e.to_string()),
        })
}

impl fmt::Display for IdPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
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
