//! The corpus inside the binary: with no path, `bcast run`, `matrix` and `ops` read the
//! embedded corpus from any directory; `bcast --version` names it; `bcast corpus export` writes
//! it out.

use bcast_case::read_header;
use bcast_conformance::case::{load_dir, load_file};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `bcast` in `dir`.
fn bcast_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("bcast runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_version_names_the_corpus_read_from_its_files() {
    let empty = tempfile::tempdir().unwrap();
    let cases = load_dir(&repo().join("fixtures")).unwrap();
    let torch: BTreeSet<&str> = cases
        .iter()
        .map(|c| c.torch_version.as_deref().unwrap())
        .collect();
    assert_eq!(torch.len(), 1, "{torch:?}");
    let files: BTreeSet<&Path> = cases.iter().map(|c| c.file.as_path()).collect();
    let schemas: BTreeSet<String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            read_header(f, &text).unwrap().schema.to_string()
        })
        .collect();
    let schemas: Vec<String> = schemas.into_iter().collect();
    for flag in ["--version", "-V"] {
        let out = bcast_in(empty.path(), &[flag]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(concat!("bcast ", env!("CARGO_PKG_VERSION")))
        );
        let corpus = lines.next().unwrap_or_default();
        assert!(
            corpus.starts_with(&format!(
                "corpus: {} cases in {} files ",
                cases.len(),
                files.len()
            )),
            "{text}"
        );
        let schema = match schemas.split_last() {
            Some((last, [])) => format!("(schema {last})"),
            Some((last, rest)) => format!("(schema {} and {last})", rest.join(", ")),
            None => unreachable!("the corpus has files"),
        };
        assert!(corpus.contains(&schema), "{text}");
        let labelled = format!("labelled by torch {}; ", torch.first().unwrap());
        assert!(corpus.contains(&labelled), "{text}");
    }
}

#[test]
fn with_no_path_ops_matrix_and_failures_read_the_embedded_corpus_from_any_directory() {
    let empty = tempfile::tempdir().unwrap();
    // `bcast ops` counts the same cases as from the checkout: OPS.md is its output.
    let out = bcast_in(empty.path(), &["ops", "--markdown"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let committed = std::fs::read_to_string(repo().join("OPS.md")).unwrap();
    assert!(
        stdout(&out) == committed,
        "OPS.md differs from the embedded corpus's"
    );
    // `bcast matrix` loads the corpus before it starts a backend.
    let out = bcast_in(empty.path(), &["matrix", "--backend", "/no/such/adapter"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/adapter"),
        "{}",
        stderr(&out)
    );
    // Ids select embedded cases, and a failure names the file it comes from in the checkout.
    let hostile = format!(
        "python3 {} claim '[\"shapes\"]'",
        repo().join("cli/tests/adapters/hostile.py").display()
    );
    let out = bcast_in(
        empty.path(),
        &["run", "--backend", &hostile, "--id", "expand/s1/1?"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains(": 10 cases"), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l.starts_with("FAIL case expand/s1/1")
            && l.ends_with(" (fixtures/torch/expand.json)")),
        "{err}"
    );
    // Filters that select nothing say where they looked.
    let out = bcast_in(empty.path(), &["run", "--id", "no/such/case"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cases in the embedded corpus matches the filters"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn corpus_export_writes_the_fixtures_and_overwrites_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("exported");
    let target = out_dir.display().to_string();
    let out = bcast_in(dir.path(), &["corpus", "export", &target]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("wrote "), "{}", stderr(&out));
    for file in [
        "README.md",
        "torch/expand.json",
        "docs/000_b3e26f96d9d67b28.json",
    ] {
        let exported = std::fs::read(out_dir.join(file)).unwrap();
        assert!(
            exported == std::fs::read(repo().join("fixtures").join(file)).unwrap(),
            "{file}"
        );
    }
    // The files written run as files.
    let expand = out_dir.join("torch/expand.json");
    let n = load_file(&expand).unwrap().len();
    let out = bcast_in(
        dir.path(),
        &["run", "exported/torch/expand.json", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("reference: {n} cases")),
        "{}",
        stdout(&out)
    );
    // A second export finds them there: nothing written, exit 2, --force named.
    std::fs::write(&expand, "edited").unwrap();
    let out = bcast_in(dir.path(), &["corpus", "export", &target]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&expand).unwrap(), b"edited");
    let out = bcast_in(dir.path(), &["corpus", "export", &target, "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(load_file(&expand).unwrap().len(), n);
}
