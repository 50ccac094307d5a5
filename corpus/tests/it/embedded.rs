//! The embedded corpus is the repository's `fixtures/`, file for file and case for case, and
//! writes itself out.

use bcast_case::{load_dir, read_header};
use bcast_corpus::{Corpus, ROOT};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Every file below `dir` but dot-files, by its `/`-separated path below `dir`.
fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel: Vec<String> = path
                    .strip_prefix(root)
                    .unwrap()
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.insert(rel.join("/"), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn the_embedded_files_are_the_fixtures_directory_byte_for_byte() {
    let corpus = Corpus::embedded().unwrap();
    let embedded: BTreeMap<String, Vec<u8>> = corpus
        .files()
        .map(|(p, b)| (p.to_string(), b.to_vec()))
        .collect();
    let on_disk = files_below(&fixtures());
    assert_eq!(
        embedded.keys().collect::<Vec<_>>(),
        on_disk.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &on_disk {
        assert!(
            embedded[path] == *bytes,
            "{path} differs from fixtures/{path}"
        );
    }
    assert!(embedded.contains_key("README.md"));
    assert!(embedded.contains_key("torch/expand.json"));
}

#[test]
fn its_cases_are_those_load_dir_reads_in_the_same_order_with_the_same_names() {
    let embedded = Corpus::embedded().unwrap().cases().unwrap();
    let on_disk = load_dir(&fixtures()).unwrap();
    assert_eq!(embedded.len(), on_disk.len());
    for (e, d) in embedded.iter().zip(&on_disk) {
        assert_eq!(e.case.id, d.case.id);
        assert_eq!(e.torch_version, d.torch_version);
        let below = d.file.strip_prefix(fixtures()).unwrap();
        assert_eq!(e.file, Path::new(ROOT).join(below), "{}", e.case.id);
    }
}

#[test]
fn the_summary_is_read_from_the_files() {
    let summary = Corpus::embedded().unwrap().summary().unwrap();
    let mut cases = 0;
    let mut files = 0;
    let mut schemas = std::collections::BTreeSet::new();
    let mut torch = std::collections::BTreeSet::new();
    for (path, bytes) in files_below(&fixtures()) {
        if !path.ends_with(".json") {
            continue;
        }
        let header = read_header(Path::new(&path), std::str::from_utf8(&bytes).unwrap()).unwrap();
        files += 1;
        cases += header.cases;
        schemas.insert(header.schema);
        torch.insert(header.torch_version.unwrap());
    }
    assert_eq!(summary.cases, load_dir(&fixtures()).unwrap().len());
    assert_eq!(
        (
            summary.cases,
            summary.files,
            &summary.schemas,
            &summary.torch_versions
        ),
        (cases, files, &schemas, &torch)
    );
    assert!(
        summary.packed_bytes * 4 < summary.unpacked_bytes,
        "{summary:?}"
    );
    let text = summary.to_string();
    assert!(
        text.starts_with(&format!("{cases} cases in {files} files (schema ")),
        "{text}"
    );
    for v in &torch {
        assert!(
            text.ends_with(&format!("labelled by torch {v}")) || torch.len() > 1,
            "{text}"
        );
    }
}

#[test]
fn export_writes_every_file_and_overwrites_only_when_told() {
    let corpus = Corpus::embedded().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new/fixtures");
    let n = corpus.export(&out, false).unwrap();
    assert_eq!(n, corpus.files().count());
    assert!(files_below(&out) == files_below(&fixtures()));
    // A second export finds the files there and writes nothing.
    std::fs::write(out.join("torch/expand.json"), "edited").unwrap();
    let err = corpus.export(&out, false).unwrap_err();
    assert!(err.contains("exists") && err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read(out.join("torch/expand.json")).unwrap(),
        b"edited"
    );
    corpus.export(&out, true).unwrap();
    assert!(files_below(&out) == files_below(&fixtures()));
}
