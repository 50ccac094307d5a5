//! The check levels: what the runner compares (see "Check levels" in `fixtures/README.md`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// One kind of check the runner makes (see `fixtures/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The outcome: ok vs error, the kind of result, result shapes, sizes and ints. Always
    /// checked, whatever a backend claims (see [`Level::ALWAYS`]).
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
    /// Gradients (cases with `grad`, schema 3): the backward's outcome (gradients or the error
    /// it raised), each gradient's presence, shape, dtype and values, and where an error was
    /// raised (setting `requires_grad`, the call, the backward). A gradient's strides and
    /// aliasing are checked when `strides` and `aliasing` are claimed too, an error's class
    /// and message when `errors` and `messages` are. A backend that does not claim it is not
    /// sent the cases with `grad`.
    Grads,
}

impl Level {
    /// Every level.
    pub const ALL: [Level; 9] = [
        Level::Shapes,
        Level::Dtypes,
        Level::Values,
        Level::Errors,
        Level::Messages,
        Level::Inplace,
        Level::Aliasing,
        Level::Strides,
        Level::Grads,
    ];

    /// The level checked for every case that runs, claimed or not: a pass always means at
    /// least that the call returned or raised as in torch, with a result of the same kind and
    /// shape.
    pub const ALWAYS: Level = Level::Shapes;

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
            Level::Grads => "grads",
        }
    }

    /// Parses [`Level::name`].
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Parses a comma-separated list of level names (`all` means every level).
    ///
    /// ```
    /// use bcast_case::Level;
    /// let levels = Level::parse_list("values, shapes").unwrap();
    /// assert_eq!(levels.into_iter().collect::<Vec<_>>(), [Level::Shapes, Level::Values]);
    /// assert_eq!(Level::parse_list("all").unwrap().len(), 9);
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
