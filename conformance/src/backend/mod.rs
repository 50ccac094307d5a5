//! What an implementation under test provides: a [`Backend`] runs a case and reports the
//! outcome in the schema's terms, and declares which ops, dtypes and check levels it claims.
//!
//! Backends: the reference engine ([`reference`](mod@reference)), any program that speaks the JSON-lines
//! protocol of `PROTOCOL.md` ([`subprocess`]), and other Rust tensor crates compiled in by a
//! cargo feature ([`foreign`]). [`registry`] turns a `--backend` spec into one of them.

pub mod foreign;
pub mod reference;
pub mod registry;
pub mod subprocess;
#[cfg(feature = "torch")]
pub mod tch;

use crate::case::{Case, Outcome};
use bcast_engine::DType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// One kind of check the runner makes (see `fixtures/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// ok vs error, result shapes, sizes and ints.
    Shapes,
    /// Result dtypes.
    Dtypes,
    /// Result values, with the case's tolerance.
    Values,
    /// The exception class of an error.
    Errors,
    /// The exact message of an error.
    Messages,
    /// Storages after in-place and `out=` calls; no writes elsewhere.
    Inplace,
    /// Whether a result views an input storage, and its offset.
    Aliasing,
    /// Result strides.
    Strides,
}

impl Level {
    /// Every level.
    pub const ALL: [Level; 8] = [
        Level::Shapes,
        Level::Dtypes,
        Level::Values,
        Level::Errors,
        Level::Messages,
        Level::Inplace,
        Level::Aliasing,
        Level::Strides,
    ];

    /// The level's name, as in fixtures, reports and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Level::Shapes => "shapes",
            Level::Dtypes => "dtypes",
            Level::Values => "values",
            Level::Errors => "errors",
            Level::Messages => "messages",
            Level::Inplace => "inplace",
            Level::Aliasing => "aliasing",
            Level::Strides => "strides",
        }
    }

    /// Parses [`Level::name`].
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Parses a comma-separated list of level names (`all` means every level).
    ///
    /// ```
    /// use bcast_conformance::backend::Level;
    /// let levels = Level::parse_list("values, shapes").unwrap();
    /// assert_eq!(levels.into_iter().collect::<Vec<_>>(), [Level::Shapes, Level::Values]);
    /// assert_eq!(Level::parse_list("all").unwrap().len(), 8);
    /// assert!(Level::parse_list("shapes,colour").is_err());
    /// ```
    pub fn parse_list(text: &str) -> Result<BTreeSet<Level>, String> {
        let mut out = BTreeSet::new();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if word == "all" {
                out.extend(Level::ALL);
                continue;
            }
            let level = Level::from_name(word).ok_or_else(|| {
                let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
                format!("unknown level {word:?} (levels: {})", names.join(", "))
            })?;
            out.insert(level);
        }
        Ok(out)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a backend claims to implement. Cases outside it are skipped, not failed: a case whose
/// op or one of whose dtypes is not claimed is skipped whole; a level not claimed is not checked.
///
/// This is also the `capabilities` object of the subprocess protocol's handshake:
///
/// ```
/// use bcast_conformance::backend::{Capabilities, Level};
/// let caps: Capabilities = serde_json::from_str(
///     r#"{"ops": ["torch.add"], "dtypes": ["float32"], "levels": ["shapes", "values"]}"#,
/// ).unwrap();
/// assert!(caps.runs_op("torch.add") && !caps.runs_op("torch.sub"));
/// assert!(caps.claims_dtype("float32") && !caps.claims_dtype("int64"));
/// assert!(caps.levels.contains(&Level::Values));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    /// The `fn` names it runs (`torch.add`, `Tensor.expand`, ...); `None` (JSON `null`) means
    /// every op. Required in JSON, so that no adapter claims every op by omission.
    #[serde(deserialize_with = "Option::deserialize")]
    pub ops: Option<BTreeSet<String>>,
    /// The dtypes it supports; a case touching another dtype is skipped.
    pub dtypes: BTreeSet<String>,
    /// The check levels it claims.
    pub levels: BTreeSet<Level>,
}

impl Capabilities {
    /// Every op, dtype and level.
    pub fn everything() -> Capabilities {
        Capabilities {
            ops: None,
            dtypes: DType::ALL.iter().map(|d| d.name().to_string()).collect(),
            levels: Level::ALL.into_iter().collect(),
        }
    }

    /// Whether the backend runs this op.
    pub fn runs_op(&self, fn_name: &str) -> bool {
        self.ops.as_ref().is_none_or(|ops| ops.contains(fn_name))
    }

    /// Whether the backend supports this dtype.
    pub fn claims_dtype(&self, dtype: &str) -> bool {
        self.dtypes.contains(dtype)
    }
}

/// A backend failure that is not an outcome: it crashed, hung, or answered nonsense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendFailure(pub String);

impl BackendFailure {
    /// How the message of an [`unsupported`](BackendFailure::unsupported) failure begins.
    pub const UNSUPPORTED: &'static str = "unsupported: ";

    /// The backend cannot express this case at all (an op it lacks, a behaviour that exists
    /// only in Python), as opposed to failing on it.
    ///
    /// ```
    /// use bcast_conformance::backend::BackendFailure;
    /// let f = BackendFailure::unsupported("no op torch.frobnicate");
    /// assert!(f.is_unsupported());
    /// assert!(!BackendFailure("crashed".into()).is_unsupported());
    /// ```
    pub fn unsupported(reason: impl fmt::Display) -> BackendFailure {
        BackendFailure(format!("{}{reason}", BackendFailure::UNSUPPORTED))
    }

    /// Whether this failure says the case cannot be expressed (see [`BackendFailure::unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        self.0.starts_with(BackendFailure::UNSUPPORTED)
    }
}

impl fmt::Display for BackendFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An implementation under test.
pub trait Backend {
    /// A short name for reports.
    fn name(&self) -> String;
    /// What it claims.
    fn capabilities(&self) -> Capabilities;
    /// Runs one case (its `expect` is ignored) and reports what happened.
    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure>;
}
