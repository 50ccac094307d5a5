//! Compresses the corpus into the crate: every file below `fixtures/` (the `*.json` fixture
//! files and the README that describes them; not dot-files) is written into one archive
//! (`src/archive.rs`), deflated, and left in `OUT_DIR` for `src/lib.rs` to include.
//!
//! `fixtures/` is the package's own: in the repository a symbolic link to the repository's
//! `fixtures/` (so nothing is kept twice), in the packaged crate a copy cargo made of it.
//! Where a checkout has no symbolic links (Windows without them), the link is a file and the
//! repository's `../fixtures` is read instead.

#[allow(dead_code)]
#[path = "src/archive.rs"]
mod archive;

use std::path::{Path, PathBuf};

/// miniz_oxide's best level: a third of a second more to unpack than level 6 costs nothing,
/// and it is 2% smaller.
const LEVEL: u8 = 9;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = [manifest.join("fixtures"), manifest.join("../fixtures")]
        .into_iter()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no fixtures/ directory in {}", manifest.display()));
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    // Component by component, as `bcast_case::load_dir` orders a directory's files.
    files.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    let raw = archive::encode(&files);
    let packed = miniz_oxide::deflate::compress_to_vec(&raw, LEVEL);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("corpus.deflate"), &packed).expect("OUT_DIR is writable");
    std::fs::write(out.join("unpacked_bytes.rs"), format!("{}", raw.len()))
        .expect("OUT_DIR is writable");
}

/// Every file below `dir` (its path relative to `root`, `/`-separated), and a rerun trigger for
/// each file and directory, so an edited, added or removed fixture rebuilds the crate.
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out);
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let relative: Vec<String> = path
            .strip_prefix(root)
            .expect("below the root")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push((relative.join("/"), bytes));
    }
}
