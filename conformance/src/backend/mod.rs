//! What an implementation under test provides: a [`Backend`] runs a case and reports the
//! outcome in the schema's terms, and declares which ops, dtypes and check levels it claims.
//!
//! Backends: the reference engine ([`reference`](mod@reference)), any program that speaks the JSON-lines
//! protocol of `PROTOCOL.md` ([`subprocess`]), and other Rust tensor crates compiled in by a
//! cargo feature ([`foreign`]). [`registry`] turns a `--backend` spec into one of them.

pub mod foreign;
pub mod reference;
pub mod registry;
pub mod subprocess;
#[cfg(feature = "torch")]
pub mod tch;

pub use bcast_case::{Backend, BackendFailure, Capabilities, FailureKind, Level};

use serde_json::Value;

/// Where two hellos differ, as `FIELD: A against B` (the first field that differs, with both
/// values), or `None` when they are the same: every process of one run must say the same hello,
/// name and capabilities (PROTOCOL.md, "The conversation").
///
/// ```
/// use bcast_conformance::backend::{hello_difference, Capabilities};
/// let caps = |levels: &str| -> Capabilities { serde_json::from_str(&format!(
///     r#"{{"ops": null, "dtypes": ["float32"], "levels": {levels}}}"#)).unwrap() };
/// let all = caps(r#"["shapes", "values"]"#);
/// assert_eq!(hello_difference(("a", &all), ("a", &all)), None);
/// assert_eq!(
///     hello_difference(("a", &all), ("a", &caps(r#"["shapes"]"#))).unwrap(),
///     r#"capabilities.levels: ["shapes","values"] against ["shapes"]"#
/// );
/// assert_eq!(hello_difference(("a", &all), ("b", &all)).unwrap(), r#"name: "a" against "b""#);
/// ```
pub fn hello_difference(
    first: (&str, &Capabilities),
    other: (&str, &Capabilities),
) -> Option<String> {
    let hello = |(name, caps): (&str, &Capabilities)| serde_json::json!({"name": name, "capabilities": caps});
    let (first, other) = (hello(first), hello(other));
    let (path, a, b) = first_difference(&first, &other, "")?;
    let show = |v: Option<&Value>| {
        v.map_or("nothing".to_string(), |v| {
            crate::quote::clip_text(&v.to_string())
        })
    };
    Some(format!("{path}: {} against {}", show(a), show(b)))
}

/// The first place where two JSON values differ: its path, and the value on each side
/// (`None` where a key is missing).
fn first_difference<'a>(
    a: &'a Value,
    b: &'a Value,
    path: &str,
) -> Option<(String, Option<&'a Value>, Option<&'a Value>)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|key| {
                let here = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => first_difference(u, v, &here),
                    (u, v) => Some((here, u, v)),
                }
            })
        }
        _ if a == b => None,
        _ => Some((path.to_string(), Some(a), Some(b))),
    }
}
