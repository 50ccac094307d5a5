//! README.md's counts of the corpus: its fixture table and its conformance matrix are of the
//! corpus the repository ships (`fixtures/`, which `bcast` embeds), so a corpus that grows or
//! shrinks without README following fails here. Re-measure with `bcast-dev matrix`.

use bcast_case::load_dir;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A number as README writes it, `35,913`.
fn number(text: &str) -> usize {
    text.trim()
        .replace(',', "")
        .parse()
        .unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn readme_counts_the_corpus_it_ships() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let cases = load_dir(&repo().join("fixtures")).expect("the fixtures load");
    let in_set = |set: &str| {
        cases
            .iter()
            .filter(|c| c.file.components().any(|p| p.as_os_str() == set))
            .count()
    };
    // The fixture table: `| `fixtures/docs/` | 196 | ...`.
    for set in ["docs", "torch", "regressions"] {
        let row = format!("| `fixtures/{set}/` | ");
        // The row whose second cell is a count (the layout table above it names the sets too).
        let written = readme
            .lines()
            .filter_map(|l| l.strip_prefix(row.as_str()))
            .find_map(|rest| {
                let cell = rest.split('|').next()?.trim().replace(',', "");
                cell.parse::<usize>().ok()
            })
            .unwrap_or_else(|| panic!("README has no row {row}with a count"));
        assert_eq!(written, in_set(set), "README's count of fixtures/{set}/");
    }
    // The matrix: measured over every case, each row's cases run and skipped adding up to them.
    let start = readme
        .find("<!-- matrix:start -->")
        .expect("the matrix's markers");
    let end = readme
        .find("<!-- matrix:end -->")
        .expect("the matrix's markers");
    let matrix = &readme[start..end];
    let over = matrix
        .split(" over ")
        .nth(1)
        .and_then(|t| t.split(" cases of ").next())
        .expect("Measured by ... over N cases of M op forms");
    assert_eq!(number(over), cases.len(), "the matrix's case count");
    let forms: BTreeSet<&str> = cases.iter().map(|c| c.case.call.fn_.as_str()).collect();
    let of = matrix.split(" cases of ").nth(1).unwrap();
    assert_eq!(number(of.split(" op forms").next().unwrap()), forms.len());
    let rows: Vec<&str> = matrix
        .lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| implementation") && !l.starts_with("| ---")
        })
        .collect();
    assert!(rows.len() >= 8, "every implementation has a row: {rows:?}");
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | implementation | via | cases run | skipped | ...
        let (run, skipped) = (number(cells[3]), number(cells[4]));
        assert_eq!(run + skipped, cases.len(), "{row}");
    }
}
