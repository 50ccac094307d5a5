//! Every error message the engine can emit, checked against torch.
//!
//! The engine builds each error from a literal message template at the place it raises it.
//! This test reads those templates out of `engine/src`, and for each one:
//! - requires at least one torch-labelled fixture whose message matches it (so every message
//!   the engine can produce has been compared with text obtained from torch 2.13.0), and
//! - snapshots the engine's message on the first such case (one snapshot per error path,
//!   reviewed with `cargo insta review`; CI runs with `INSTA_UPDATE=no`).

use bcast_conformance::backend::reference::{run_reference, ReferenceBackend};
use bcast_conformance::backend::Backend;
use bcast_conformance::case::{load_dir, LoadedCase, Outcome};
use bcast_conformance::runner::skip_reason;
use regex::Regex;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A message template at one place in the engine's source.
struct Template {
    place: String,
    kind: String,
    text: String,
    pattern: Regex,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("engine/src is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A `format!` string as an anchored regex: `{...}` matches any text, `{{`/`}}` are braces.
fn template_regex(text: &str) -> Regex {
    let unescaped = text.replace("\\\"", "\"").replace("\\\\", "\\");
    let mut pattern = String::from("^");
    let mut rest = unescaped.as_str();
    while let Some(i) = rest.find(['{', '}']) {
        pattern.push_str(&regex::escape(&rest[..i]));
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            pattern.push_str(&regex::escape(&tail[..1]));
            rest = &tail[2..];
        } else if let Some(end) = tail.find('}').filter(|_| tail.starts_with('{')) {
            pattern.push_str("(.+?)");
            rest = &tail[end + 1..];
        } else {
            pattern.push_str(&regex::escape(&tail[..1]));
            rest = &tail[1..];
        }
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    Regex::new(&pattern).expect("template regex")
}

fn engine_templates() -> (Vec<Template>, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let literal = Regex::new(
        r#"Error::(runtime|value|index|type_error|not_implemented)\(\s*(?:format!\(\s*)?"((?:[^"\\]|\\.)*)""#,
    )
    .unwrap();
    let check = Regex::new(r#"check!\([^;]*?,\s*"((?:[^"\\]|\\.)*)""#).unwrap();
    let any_site =
        Regex::new(r"Error::(runtime|value|index|type_error|not_implemented)\(").unwrap();
    let mut templates = Vec::new();
    let mut dynamic = Vec::new();
    // error.rs defines the constructors and `check!`; every other file raises errors.
    for f in files.into_iter().filter(|f| !f.ends_with("error.rs")) {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        let line_of = |offset: usize| text[..offset].lines().count();
        for c in literal.captures_iter(&text) {
            let m = c.get(0).unwrap();
            templates.push(Template {
                place: format!("{rel}:{}", line_of(m.start())),
                kind: c[1].to_string(),
                text: c[2].to_string(),
                pattern: template_regex(&c[2]),
            });
        }
        for c in check.captures_iter(&text) {
            templates.push(Template {
                place: format!("{rel}:{}", line_of(c.get(0).unwrap().start())),
                kind: "runtime".into(),
                text: c[1].to_string(),
                pattern: template_regex(&c[1]),
            });
        }
        let literal_starts: Vec<usize> = literal.find_iter(&text).map(|m| m.start()).collect();
        for m in any_site.find_iter(&text) {
            // Sites in doc comments are examples, not error paths.
            let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let line = &text[line_start..];
            if line.trim_start().starts_with("//") || literal_starts.contains(&m.start()) {
                continue;
            }
            dynamic.push(format!("{rel}:{}", line_of(m.start())));
        }
    }
    (templates, dynamic)
}

/// The fixtures the engine can run: a case of a dtype it does not have yet (skipped by the
/// reference backend) says nothing about the engine's messages.
fn fixtures() -> Vec<LoadedCase> {
    let caps = ReferenceBackend.capabilities();
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"))
        .expect("fixtures load")
        .into_iter()
        .filter(|c| skip_reason(&c.case, &caps).is_none())
        .collect()
}

/// The error torch raised for a case: in the call (or when `requires_grad` was set), or in
/// the backward of a gradient case.
fn error_message(case: &LoadedCase) -> Option<(&str, &str)> {
    match &case.case.expect {
        Some(Outcome::Error(e)) => Some((e.kind.as_str(), e.message.as_str())),
        Some(Outcome::Ok(ok)) => ok
            .backward_error
            .as_ref()
            .map(|e| (e.kind.as_str(), e.message.as_str())),
        None => None,
    }
}

/// The engine's error on a case, as `Kind: message`, wherever the engine raised it.
fn engine_error(case: &LoadedCase) -> String {
    match run_reference(&case.case) {
        Ok(Outcome::Error(e)) => format!("{}: {}", e.kind, e.message),
        Ok(Outcome::Ok(ok)) => match ok.backward_error {
            Some(e) => format!("{}: {}", e.kind, e.message),
            None => format!("no error: {ok:?}"),
        },
        other => format!("no error: {other:?}"),
    }
}

/// The length of a template without its placeholders.
fn literal_len(text: &str) -> usize {
    Regex::new(r"\{[^{}]*\}")
        .unwrap()
        .replace_all(text, "")
        .len()
}

fn snapshot_name(text: &str, taken: &mut BTreeMap<String, usize>) -> String {
    let slug: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect::<String>()
        .split('_')
        .filter(|w| !w.is_empty())
        .take(10)
        .collect::<Vec<_>>()
        .join("_");
    let n = taken.entry(slug.clone()).or_insert(0);
    *n += 1;
    if *n == 1 {
        slug
    } else {
        format!("{slug}_{n}")
    }
}

/// torch's messages for errors the fixture schema cannot express, from the engine's
/// torch-written table `engine/tests/data/api_messages.json`.
fn api_only_messages() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/data/api_messages.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: serde_json::Value = serde_json::from_str(&text).expect("the table is JSON");
    table["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|row| row["message"].as_str().map(String::from))
        .collect()
}

#[test]
fn every_engine_message_is_covered_by_torch_and_snapshotted() {
    let (templates, dynamic) = engine_templates();
    assert!(
        templates.len() > 10,
        "found only {} templates: is the scanner broken?",
        templates.len()
    );
    assert!(
        dynamic.is_empty(),
        "errors built from a non-literal message cannot be checked; use a literal template at: {dynamic:?}"
    );
    let cases = fixtures();
    // Each torch message belongs to the most specific template that matches it (the one with
    // the most literal text), so a short template never claims another's messages.
    let mut assigned: Vec<Vec<&LoadedCase>> = vec![Vec::new(); templates.len()];
    for c in &cases {
        let Some((_, message)) = error_message(c) else {
            continue;
        };
        let best = (0..templates.len())
            .filter(|&i| templates[i].pattern.is_match(message))
            .max_by_key(|&i| literal_len(&templates[i].text));
        if let Some(i) = best {
            assigned[i].push(c);
        }
    }
    let mut uncovered = Vec::new();
    let mut names = BTreeMap::new();
    let mut report = Vec::new();
    let api_only = api_only_messages();
    for (t, matching) in templates.iter().zip(&assigned) {
        // A forward case where there is one, so that gradient cases added to the corpus do
        // not move the snapshot of a message the forward call raises.
        let first = matching
            .iter()
            .find(|c| c.case.grad.is_none())
            .or_else(|| matching.first());
        let Some(first) = first else {
            // A message only the Rust API can reach (an argument the schema cannot write) is
            // covered by torch's text in the engine's table, which `engine/tests/it/api_messages.rs`
            // checks the engine against.
            if let Some(m) = api_only.iter().find(|m| t.pattern.is_match(m)) {
                report.push(format!(
                    "   api  {}  {}  (engine/tests/data/api_messages.json: {m})",
                    t.place, t.text
                ));
                continue;
            }
            uncovered.push(format!("{} ({}): {}", t.place, t.kind, t.text));
            continue;
        };
        report.push(format!("{:>6}  {}  {}", matching.len(), t.place, t.text));
        let engine_message = engine_error(first);
        let name = snapshot_name(&t.text, &mut names);
        insta::with_settings!({ description => format!("{} on case {}", t.text, first.case.id), omit_expression => true }, {
            insta::assert_snapshot!(name, engine_message);
        });
    }
    println!(
        "error templates with their torch-labelled case counts:\n{}",
        report.join("\n")
    );
    assert!(
        uncovered.is_empty(),
        "{} engine messages have no torch-labelled fixture:\n{}",
        uncovered.len(),
        uncovered.join("\n")
    );
}
