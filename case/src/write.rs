//! Writing fixture files the way `scripts/label.py` does: one case per line, so a diff of a
//! fixture file shows whole cases.

use super::FixtureFile;

/// The text of a fixture file: its header fields, then one case per line.
///
/// ```
/// use bcast_case::{fixture_json, FixtureFile};
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
