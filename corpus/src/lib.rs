//! The corpus of the bcast conformance suite inside the binary: every file of the repository's
//! `fixtures/` (the cases of the seed documents, the generated corpus and the regressions, all
//! labelled by torch, and the README that describes their schema), compressed into this crate
//! when it is built (`build.rs`), so that `bcast run` needs no checkout and a Rust backend can
//! be gated from `cargo test` with this crate and `bcast-case` alone.
//!
//! ```
//! use bcast_corpus::Corpus;
//! let corpus = Corpus::embedded().unwrap();
//! let cases = corpus.cases().unwrap();
//! let expand = cases.iter().find(|c| c.case.id == "expand/s1/0").unwrap();
//! assert_eq!(expand.file.to_str(), Some("fixtures/torch/expand.json"));
//! assert_eq!(corpus.summary().unwrap().cases, cases.len());
//! ```

#![warn(missing_docs)]

mod archive;

use bcast_case::{check_unique_ids, load_text, read_header, LoadError, LoadedCase};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The archive of the files, deflated (see `build.rs`).
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/corpus.deflate"));
/// Its length unpacked: no more is ever unpacked.
const UNPACKED_BYTES: usize = include!(concat!(env!("OUT_DIR"), "/unpacked_bytes.rs"));

/// The directory the embedded files are named under: a case's [`LoadedCase::file`] reads
/// `fixtures/torch/expand.json`, as when the checkout's files are loaded, and
/// `bcast corpus export fixtures` writes the files under those very names.
pub const ROOT: &str = "fixtures";

/// The embedded corpus, unpacked: its files by path below [`ROOT`] (`/`-separated), in the
/// order `bcast_case::load_dir` reads a directory.
#[derive(Debug, Clone)]
pub struct Corpus {
    files: Vec<(String, Vec<u8>)>,
}

/// What the corpus holds, read from its files (`bcast --version` prints it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Fixture files (`*.json`).
    pub files: usize,
    /// Cases in them.
    pub cases: usize,
    /// The schema versions the files are written in.
    pub schemas: BTreeSet<u32>,
    /// The torch versions that labelled them.
    pub torch_versions: BTreeSet<String>,
    /// The bytes of every embedded file, as files.
    pub unpacked_bytes: usize,
    /// The bytes the binary holds for them, compressed.
    pub packed_bytes: usize,
}

impl fmt::Display for Summary {
    /// `25744 cases in 46 files (schema 1 and 2), labelled by torch 2.13.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: Vec<String>| match items.split_last() {
            None => "none".to_string(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        };
        write!(
            f,
            "{} cases in {} files (schema {}), labelled by torch {}",
            self.cases,
            self.files,
            list(self.schemas.iter().map(u32::to_string).collect()),
            list(self.torch_versions.iter().cloned().collect())
        )
    }
}

impl Corpus {
    /// Unpacks the corpus this crate was built with (about a quarter of a second for the whole
    /// of `fixtures/`).
    pub fn embedded() -> Result<Corpus, LoadError> {
        let broken = |why: String| LoadError {
            path: PathBuf::from(ROOT),
            message: format!("the embedded corpus does not unpack: {why}"),
        };
        let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(PACKED, UNPACKED_BYTES)
            .map_err(|e| broken(e.to_string()))?;
        let files = archive::decode(&raw).map_err(broken)?;
        if let Some((path, _)) = files.iter().find(|(p, _)| relative_path(p).is_none()) {
            return Err(broken(format!("a file named {path:?}")));
        }
        Ok(Corpus { files })
    }

    /// Every embedded file: its path below [`ROOT`] and its bytes.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(p, b)| (p.as_str(), b.as_slice()))
    }

    /// The fixture files (`*.json`), each as `ROOT/path` and its text.
    fn fixture_texts(&self) -> impl Iterator<Item = Result<(PathBuf, &str), LoadError>> {
        self.files
            .iter()
            .filter(|(p, _)| p.ends_with(".json"))
            .map(|(p, bytes)| {
                let path = Path::new(ROOT).join(p);
                match std::str::from_utf8(bytes) {
                    Ok(text) => Ok((path, text)),
                    Err(e) => Err(LoadError {
                        path,
                        message: format!("not UTF-8: {e}"),
                    }),
                }
            })
    }

    /// Every case, loaded and validated as `bcast_case::load_dir` loads the checkout's
    /// `fixtures/` (the same cases in the same order, with the same file names).
    pub fn cases(&self) -> Result<Vec<LoadedCase>, LoadError> {
        let mut out = Vec::new();
        for file in self.fixture_texts() {
            let (path, text) = file?;
            out.extend(load_text(&path, text)?);
        }
        check_unique_ids(&out)?;
        Ok(out)
    }

    /// What the corpus holds, from each file's own fields (its cases are counted, not decoded).
    pub fn summary(&self) -> Result<Summary, LoadError> {
        let mut summary = Summary {
            files: 0,
            cases: 0,
            schemas: BTreeSet::new(),
            torch_versions: BTreeSet::new(),
            unpacked_bytes: self.files.iter().map(|(_, b)| b.len()).sum(),
            packed_bytes: PACKED.len(),
        };
        for file in self.fixture_texts() {
            let (path, text) = file?;
            let header = read_header(&path, text)?;
            summary.files += 1;
            summary.cases += header.cases;
            summary.schemas.insert(header.schema);
            summary
                .torch_versions
                .insert(header.torch_version.unwrap_or_else(|| "(none)".to_string()));
        }
        Ok(summary)
    }

    /// Writes every embedded file below `dir` (created if need be) under its path below
    /// [`ROOT`], and returns how many it wrote. Unless `overwrite`, a file already there is an
    /// error, found before anything is written.
    pub fn export(&self, dir: &Path, overwrite: bool) -> Result<usize, String> {
        let targets: Vec<(PathBuf, &[u8])> = self
            .files()
            .map(|(p, bytes)| (dir.join(relative_path(p).unwrap_or_default()), bytes))
            .collect();
        if !overwrite {
            let present: Vec<String> = targets
                .iter()
                .filter(|(t, _)| t.symlink_metadata().is_ok())
                .map(|(t, _)| t.display().to_string())
                .collect();
            if let Some(first) = present.first() {
                return Err(format!(
                    "{first} exists ({} of the {} files are there already); \
                     give --force to overwrite them",
                    present.len(),
                    targets.len()
                ));
            }
        }
        for (target, bytes) in &targets {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(target, bytes).map_err(|e| format!("{}: {e}", target.display()))?;
        }
        Ok(targets.len())
    }
}

/// An archive path as a relative path of plain components, or `None` for one that could
/// leave the directory it is written to (`..`, an absolute path, an empty name).
fn relative_path(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    let plain = !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    plain.then(|| p.to_path_buf())
}
