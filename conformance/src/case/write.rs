//! Writing fixture files the way `scripts/label.py` does: one case per line, so a diff of a
//! fixture file shows whole cases.

use super::FixtureFile;

/// The text of a fixture file: its header fields, then one case per line.
///
/// ```
/// use bcast_conformance::case::{fixture_json, FixtureFile};
/// let file = FixtureFile { schema: 1, torch_version: Some("2.13.0".into()), generator: None, cases: vec![] };
/// let back: FixtureFile = serde_json::from_str(&fixture_json(&file)).unwrap();
/// assert_eq!(back, file);
/// ```
pub fn fixture_json(file: &FixtureFile) -> String {
    let text = |s: &str| serde_json::Value::from(s).to_string();
    let mut head = format!("{{\"schema\": {}", file.schema);
    if let Some(v) = &file.torch_version {
        head += &format!(", \"torch_version\": {}", text(v));
    }
    if let Some(g) = &file.generator {
        head += &format!(", \"generator\": {}", text(g));
    }
    let cases: Vec<String> = file
        .cases
        .iter()
        .map(|c| serde_json::to_string(c).unwrap_or_default())
        .collect();
    if cases.is_empty() {
        return format!("{head}, \"cases\": []}}\n");
    }
    format!("{head}, \"cases\": [\n{}\n]}}\n", cases.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::reference::run_reference;
    use crate::case::load_file;
    use crate::gen::{find_family, generate};

    #[test]
    fn written_files_load_back_case_for_case() {
        let family = find_family("expand").expect("the expand family");
        let cases: Vec<_> = (0..5)
            .map(|i| {
                let mut c = generate(family, 2, i);
                c.expect = run_reference(&c).ok();
                c
            })
            .collect();
        let file = FixtureFile {
            schema: 1,
            torch_version: Some("2.13.0".into()),
            generator: Some("test \"quoted\"".into()),
            cases: cases.clone(),
        };
        let text = fixture_json(&file);
        assert_eq!(text.lines().count(), cases.len() + 2);
        let path = std::env::temp_dir().join(format!("bcast-write-{}.json", std::process::id()));
        std::fs::write(&path, &text).expect("write");
        let loaded = load_file(&path).expect("load");
        std::fs::remove_file(&path).ok();
        let back: Vec<_> = loaded.into_iter().map(|l| l.case).collect();
        assert_eq!(back, cases);
        assert_eq!(
            serde_json::from_str::<FixtureFile>(&text).expect("parse"),
            file
        );
    }
}
