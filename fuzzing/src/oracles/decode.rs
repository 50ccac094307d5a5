//! Untrusted input never panics: malformed fixture JSON is an error, and any case that
//! decodes runs through the reference backend to an outcome or a clear failure.

use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::FixtureFile;

/// Parses `bytes` as a fixture file and runs every case it holds through the reference
/// engine. Any panic is a bug.
///
/// ```
/// use bcast_fuzzing::oracles::decode::fixture_bytes;
/// fixture_bytes(br#"{"schema": 1, "cases": [{"id": "x", "call": {"fn": "Tensor.t", "args": [{"tensor": "nope"}]}}]}"#);
/// fixture_bytes(b"not json");
/// ```
pub fn fixture_bytes(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(file) = serde_json::from_str::<FixtureFile>(text) else {
        return;
    };
    for case in &file.cases {
        let _ = run_reference(case);
    }
}
