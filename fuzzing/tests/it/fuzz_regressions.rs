//! Every finding of the fuzz targets, replayed through the oracle its target runs: each file
//! in `fuzz/regressions/TARGET/` is one minimised input (see `fuzz/README.md`). The seed
//! corpora in `fuzz/seeds/TARGET/` are replayed too, so a change that breaks an oracle on
//! inputs the fuzzers once found interesting fails here first.

use bcast_fuzzing::oracles::targets;
use std::path::{Path, PathBuf};

fn fuzz_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(kind)
}

/// Runs every input under `fuzz/KIND/TARGET/` through TARGET's oracle; returns how many ran.
fn replay(kind: &str) -> usize {
    let mut count = 0;
    let Ok(dirs) = std::fs::read_dir(fuzz_dir(kind)) else {
        return 0;
    };
    for dir in dirs.flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        let Some((_, oracle)) = targets().iter().find(|(t, _)| *t == name) else {
            // A target compiled only with a feature (differential_torch) is absent without it.
            assert!(
                name == "differential_torch",
                "fuzz/{kind}/{name} names no fuzz target"
            );
            continue;
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .expect("readable")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for file in files {
            let bytes = std::fs::read(&file).expect("readable");
            let outcome = std::panic::catch_unwind(|| oracle(&bytes));
            assert!(outcome.is_ok(), "{} fails its oracle", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn regressions_replay_clean() {
    let n = replay("regressions");
    assert!(n > 0, "no regression inputs found under fuzz/regressions");
}

#[test]
fn seed_corpora_replay_clean() {
    let n = replay("seeds");
    assert!(n >= 100, "only {n} seed inputs found under fuzz/seeds");
}
