//! The documents' references to the tree: every file ARCHITECTURE.md names in backticks, and
//! every relative link of README.md and ARCHITECTURE.md, exists, so a rename or a removal
//! that leaves them stale fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file and directory of the repository, as `/`-separated paths from its root, leaving
/// out build outputs and git's own directory; a symbolic link (`corpus/fixtures`) is listed,
/// not followed.
fn tree() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(repo().join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            if [".git", "target", "node_modules"].contains(&name.as_str()) {
                continue;
            }
            let path = dir.join(&name);
            found.insert(path.to_string_lossy().replace('\\', "/"));
            if kind.is_dir() && !kind.is_symlink() {
                stack.push(path);
            }
        }
    }
    found
}

/// The spans of `text` between backticks that read as a path in the tree: no space, a `/` or
/// a known extension, and no glob, placeholder or URL. `file.rs::item` keeps `file.rs`.
fn path_spans(text: &str) -> Vec<String> {
    const EXTENSIONS: [&str; 8] = [".rs", ".md", ".py", ".json", ".toml", ".sh", ".yml", ".cpp"];
    let mut spans = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        let span = span.split("::").next().unwrap_or_default();
        let looks_like_path = span.contains('/') || EXTENSIONS.iter().any(|e| span.ends_with(e));
        let odd = |c: char| c.is_whitespace() || "*?<>{}[]()=$,:'\"|".contains(c);
        if i % 2 == 1
            && looks_like_path
            && !span.chars().any(odd)
            && !span.contains("TARGET")
            && !span.starts_with('-')
            && !span.starts_with("re:")
            && !span.contains("//")
            && span.chars().any(|c| c.is_ascii_alphabetic())
        {
            spans.push(span.trim_end_matches('/').to_string());
        }
    }
    spans
}

/// Whether `reference` names something in the tree: from the root, or (as ARCHITECTURE.md
/// names a crate's modules, `runner/shard.rs` for `conformance/src/runner/shard.rs`) as the
/// tail of a path.
fn resolves(tree: &BTreeSet<String>, reference: &str) -> bool {
    let reference = reference.trim_start_matches("./");
    tree.contains(reference) || tree.iter().any(|p| p.ends_with(&format!("/{reference}")))
}

#[test]
fn every_file_architecture_names_exists() {
    let tree = tree();
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let spans = path_spans(&text);
    assert!(spans.len() > 50, "too few paths found: {spans:?}");
    let missing: Vec<&String> = spans.iter().filter(|s| !resolves(&tree, s)).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what the tree does not have: {missing:?}"
    );
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let tree = tree();
    for doc in ["README.md", "ARCHITECTURE.md"] {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        let mut missing = Vec::new();
        for piece in text.split("](").skip(1) {
            let target = piece.split(')').next().unwrap_or_default();
            let file = target.split('#').next().unwrap_or_default();
            if file.is_empty() || file.contains("://") {
                continue;
            }
            if !tree.contains(file.trim_end_matches('/')) {
                missing.push(file.to_string());
            }
        }
        assert!(missing.is_empty(), "{doc} links to {missing:?}");
    }
}

#[test]
fn the_reference_check_catches_a_missing_file() {
    let tree = tree();
    let spans = path_spans("see `runner/shard.rs` and `engine/src/no_such_file.rs`, `a b/c`");
    assert_eq!(spans, ["runner/shard.rs", "engine/src/no_such_file.rs"]);
    assert!(resolves(&tree, &spans[0]));
    assert!(!resolves(&tree, &spans[1]));
}
