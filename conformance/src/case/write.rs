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
    let mut head = serde_json::Map::new();
    head.insert("schema".into(), file.schema.into());
    if let Some(v) = &file.torch_version {
        head.insert("torch_version".into(), v.clone().into());
    }
    if let Some(g) = &file.generator {
        head.insert("generator".into(), g.clone().into());
    }
    let head = serde_json::Value::Object(head).to_string();
    let cases: Vec<String> = file
        .cases
        .iter()
        .map(|c| serde_json::to_string(c).unwrap_or_default())
        .collect();
    let open = &head[..head.len() - 1];
    if cases.is_empty() {
        return format!("{open},\"cases\":[]}}\n");
    }
    format!("{open},\"cases\":[\n{}\n]}}\n", cases.join(",\n"))
}
