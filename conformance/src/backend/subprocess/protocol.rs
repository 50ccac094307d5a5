//! The messages of the JSON-lines adapter protocol (version 1, documented in `PROTOCOL.md`):
//! the adapter's `hello`, the runner's requests, and the adapter's answers, each checked
//! strictly so that a misbehaving adapter is named precisely.

use crate::backend::Capabilities;
use crate::case::{Case, Outcome};
use serde::{Deserialize, Serialize};

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The first line an adapter prints.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HelloLine {
    pub hello: Hello,
}

/// Who the adapter is and what it claims.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    pub name: String,
    pub protocol: u32,
    pub capabilities: Capabilities,
}

/// Parses and checks the handshake line.
///
/// ```
/// use bcast_conformance::backend::subprocess::protocol::parse_hello;
/// let hello = parse_hello(r#"{"hello": {"name": "numpy", "protocol": 1, "capabilities":
///     {"ops": null, "dtypes": ["float32"], "levels": ["shapes"]}}}"#).unwrap();
/// assert_eq!(hello.name, "numpy");
/// assert!(parse_hello(r#"{"hello": {"name": "x", "protocol": 2, "capabilities":
///     {"ops": null, "dtypes": [], "levels": []}}}"#).unwrap_err().contains("protocol 2"));
/// assert!(parse_hello("ready!").is_err());
/// ```
pub fn parse_hello(line: &str) -> Result<Hello, String> {
    let parsed: HelloLine = serde_json::from_str(line)
        .map_err(|e| format!("its first line is not a hello ({e}): {}", clip(line)))?;
    let hello = parsed.hello;
    if hello.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "it speaks protocol {}, this runner speaks {PROTOCOL_VERSION}",
            hello.protocol
        ));
    }
    Ok(hello)
}

/// One request: a case to run, without its expectation.
#[derive(Debug, Clone, Serialize)]
pub struct Request<'a> {
    pub id: &'a str,
    pub case: Case,
}

/// The request line for a case.
///
/// ```
/// use bcast_conformance::backend::subprocess::protocol::request_line;
/// use bcast_conformance::case::Case;
/// let case: Case = serde_json::from_str(r#"{"id": "c/1", "call": {"fn": "torch.add"},
///     "expect": {"error": {"type": "RuntimeError", "message": "m"}}}"#).unwrap();
/// let line = request_line(&case).unwrap();
/// assert!(line.starts_with(r#"{"id":"c/1","case":{"id":"c/1""#));
/// assert!(!line.contains("expect") && !line.contains('\n'));
/// ```
pub fn request_line(case: &Case) -> Result<String, String> {
    let mut case = case.clone();
    case.expect = None;
    serde_json::to_string(&Request {
        id: &case.id.clone(),
        case,
    })
    .map_err(|e| format!("cannot encode case: {e}"))
}

/// What the adapter said about one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The outcome of the call.
    Outcome(Outcome),
    /// The adapter could not run the case (it says why); a failure of that case.
    Failure(String),
}

/// Why an answer line is not acceptable, and whether the stream can still be trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadAnswer {
    pub message: String,
    /// The line was not a well-framed answer to this case: the adapter must be restarted.
    pub out_of_sync: bool,
}

/// Parses the answer line to the case `id`.
///
/// ```
/// use bcast_conformance::backend::subprocess::protocol::{parse_answer, Answer};
/// let ok = parse_answer(r#"{"id": "c/1", "outcome": {"ok": {"result": {"int": 3}}}}"#, "c/1");
/// assert!(matches!(ok, Ok(Answer::Outcome(_))));
/// let failure = parse_answer(r#"{"id": "c/1", "failure": "no such op"}"#, "c/1");
/// assert_eq!(failure, Ok(Answer::Failure("no such op".into())));
/// assert!(parse_answer(r#"{"id": "c/2", "outcome": {}}"#, "c/1").unwrap_err().out_of_sync);
/// assert!(parse_answer("hello?", "c/1").unwrap_err().out_of_sync);
/// let shape = parse_answer(r#"{"id": "c/1", "outcome": {"maybe": 1}}"#, "c/1").unwrap_err();
/// assert!(!shape.out_of_sync);
/// ```
pub fn parse_answer(line: &str, id: &str) -> Result<Answer, BadAnswer> {
    let bad = |message: String, out_of_sync: bool| BadAnswer {
        message,
        out_of_sync,
    };
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
        bad(
            format!("its answer is not JSON ({e}): {}", clip(line)),
            true,
        )
    })?;
    let serde_json::Value::Object(mut fields) = value else {
        return Err(bad(
            format!("its answer is not a JSON object: {}", clip(line)),
            true,
        ));
    };
    match fields.remove("id") {
        Some(serde_json::Value::String(got)) if got == id => {}
        Some(other) => {
            return Err(bad(
                format!(
                    "it answered id {} to case {id:?}",
                    other.to_string().chars().take(200).collect::<String>()
                ),
                true,
            ))
        }
        None => return Err(bad(format!("its answer has no id: {}", clip(line)), true)),
    }
    let outcome = fields.remove("outcome");
    let failure = fields.remove("failure");
    if let Some(extra) = fields.keys().next() {
        return Err(bad(
            format!("its answer has an unknown key {extra:?}"),
            false,
        ));
    }
    match (outcome, failure) {
        (Some(o), None) => serde_json::from_value::<Outcome>(o.clone())
            .map(Answer::Outcome)
            .map_err(|e| {
                bad(
                    format!(
                        "its outcome does not fit the schema ({e}): {}",
                        clip(&o.to_string())
                    ),
                    false,
                )
            }),
        (None, Some(serde_json::Value::String(why))) => Ok(Answer::Failure(why)),
        (None, Some(other)) => Err(bad(
            format!("its failure is not a string: {}", clip(&other.to_string())),
            false,
        )),
        (Some(_), Some(_)) => Err(bad(
            "its answer has both an outcome and a failure".to_string(),
            false,
        )),
        (None, None) => Err(bad(
            "its answer has neither an outcome nor a failure".to_string(),
            false,
        )),
    }
}

/// At most 200 characters of `text`, for messages.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(200).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    format!("{out:?}")
}
