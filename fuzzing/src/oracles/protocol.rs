//! The subprocess protocol's decoders on arbitrary lines: an adapter's `hello`, its answers,
//! and cases (what a request carries) never panic, and what they accept survives a round
//! trip: a decoded outcome or case, encoded again, decodes to the same encoding, and a
//! decoded case always makes a request line.

use bcast_conformance::backend::subprocess::protocol::{
    parse_answer, parse_hello, request_line, Answer,
};
use bcast_conformance::case::{Case, Outcome};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Encodes `value`, decodes that, and encodes again: both encodings must be equal.
pub(crate) fn round_trips<T: Serialize + DeserializeOwned>(value: &T, what: &str) {
    let first = serde_json::to_string(value)
        .unwrap_or_else(|e| panic!("a decoded {what} does not encode: {e}"));
    let again: T = serde_json::from_str(&first).unwrap_or_else(|e| {
        panic!("the encoding of a decoded {what} does not decode ({e}): {first}")
    });
    let second = serde_json::to_string(&again).expect("encodes");
    assert_eq!(first, second, "a {what} changed in a round trip");
}

/// Feeds `bytes` (as text) to every decoder: as a `hello` line, as an answer to the id the
/// line itself names and to a fixed id, and as a case. Panics on a decoder panic or a broken
/// round trip.
///
/// ```
/// use bcast_fuzzing::oracles::protocol::check;
/// check(br#"{"id": "c/1", "outcome": {"ok": {"result": {"int": 3}}}}"#);
/// check(br#"{"hello": {"name": "x", "protocol": 1, "capabilities": {"ops": null, "dtypes": [], "levels": []}}}"#);
/// check(b"\xff not text");
/// ```
pub fn check(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = parse_hello(&text);
    let named = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str().map(str::to_string)));
    for id in [Some("c/1".to_string()), named].into_iter().flatten() {
        match parse_answer(&text, &id, 1 << 16) {
            Ok(Answer::Outcome(outcome)) => round_trips::<Outcome>(&outcome, "outcome"),
            Ok(Answer::Failure(_)) => {}
            Err(bad) => assert!(!bad.message.is_empty(), "an empty complaint"),
        }
    }
    if let Ok(case) = serde_json::from_str::<Case>(&text) {
        round_trips(&case, "case");
        let line = request_line(&case)
            .unwrap_or_else(|e| panic!("a decoded case makes no request line: {e}"));
        assert!(!line.contains('\n'), "a request line spans lines: {line}");
    }
}
