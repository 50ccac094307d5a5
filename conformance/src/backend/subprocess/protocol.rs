//! The messages of the JSON-lines adapter protocol (version 1, documented in `PROTOCOL.md`):
//! the adapter's `hello`, the runner's requests, and the adapter's answers, each checked
//! strictly so that a misbehaving adapter is named precisely.

use crate::backend::Capabilities;
use crate::case::{with_element_budget, Case, Outcome, ResultValue, TensorResult};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The `hello` of the first line an adapter prints: who it is and what it claims.
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
/// let typo = parse_hello(r#"{"hello": {"name": "x", "protocol": 1, "capabilities":
///     {"ops": null, "dtypes": ["float23"], "levels": []}}}"#).unwrap_err();
/// assert!(typo.contains("its hello is refused (capabilities.dtypes: unknown dtype \"float23\""));
/// ```
pub fn parse_hello(line: &str) -> Result<Hello, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Framed<'a> {
        #[serde(borrow)]
        hello: &'a RawValue,
    }
    let framed: Framed = serde_json::from_str(line)
        .map_err(|e| format!("its first line is not a hello ({e}): {}", clip(line)))?;
    let hello: Hello = serde_json::from_str(framed.hello.get())
        .map_err(|e| format!("its hello is refused ({e}): {}", clip(line)))?;
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
    Outcome(Box<Outcome>),
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

/// The top-level fields of an answer line, each kept as the raw JSON text it was (no copy).
#[derive(Default)]
struct AnswerFields<'a> {
    id: Option<&'a RawValue>,
    outcome: Option<&'a RawValue>,
    failure: Option<&'a RawValue>,
    /// The first key that is none of those (its value is skipped without being stored).
    unknown: Option<String>,
}

impl<'de: 'a, 'a> Deserialize<'de> for AnswerFields<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Fields<'a> {
            type Value = AnswerFields<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut out = AnswerFields::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let slot = match key.as_ref() {
                        "id" => &mut out.id,
                        "outcome" => &mut out.outcome,
                        "failure" => &mut out.failure,
                        other => {
                            if out.unknown.is_none() {
                                out.unknown = Some(other.chars().take(200).collect());
                            }
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
                    }
                    *slot = Some(map.next_value()?);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Fields(PhantomData))
    }
}

/// How many element values an answer to `case` may hold: every value its expected results
/// and storages hold, a result that torch's expectation samples counted whole up to
/// [`MAX_SAMPLED_RESULT_VALUES`], and [`ANSWER_SLACK_VALUES`] more.
///
/// ```
/// use bcast_conformance::backend::subprocess::protocol::{answer_budget, ANSWER_SLACK_VALUES};
/// use bcast_conformance::case::Case;
/// let case: Case = serde_json::from_str(r#"{"id": "c", "call": {"fn": "torch.add"},
///     "expect": {"ok": {"result": {"tensor": {"shape": [2], "dtype": "int64",
///     "strides": [1], "values": [1, 2]}}}}}"#).unwrap();
/// assert_eq!(answer_budget(&case), 2 + ANSWER_SLACK_VALUES);
/// ```
pub fn answer_budget(case: &Case) -> usize {
    let tensor = |t: &TensorResult| match (&t.values, &t.samples) {
        (Some(v), _) => v.len(),
        (None, Some(_)) => {
            let numel = t
                .shape
                .iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?));
            numel.map_or(MAX_SAMPLED_RESULT_VALUES, |n| {
                n.min(MAX_SAMPLED_RESULT_VALUES)
            })
        }
        (None, None) => 0,
    };
    let expected = match &case.expect {
        Some(Outcome::Ok(ok)) => {
            let results = match &ok.result {
                ResultValue::Tensor(t) => tensor(t),
                ResultValue::Tensors(ts) => ts.iter().map(tensor).sum(),
                _ => 0,
            };
            let storages: usize = ok.storages.iter().flatten().map(|(_, v)| v.len()).sum();
            results + storages
        }
        _ => 0,
    };
    // An adapter may report storages even when torch's expectation has none.
    let inputs: usize = case
        .storages
        .values()
        .map(|s| s.values.as_ref().map_or(0, Vec::len) + s.fill.as_ref().map_or(0, |f| f.len))
        .sum();
    expected
        .saturating_add(inputs)
        .saturating_add(ANSWER_SLACK_VALUES)
}

/// A result whose expectation holds samples may be answered with all its values, up to this
/// many (above it, give `samples`).
pub const MAX_SAMPLED_RESULT_VALUES: usize = 1 << 22;
/// Element values an answer may hold beyond what the case needs.
pub const ANSWER_SLACK_VALUES: usize = 4096;

/// Parses the answer line to the case `id`, decoding its outcome straight into the schema's
/// types with at most `budget` element values (see [`answer_budget`]): an answer never costs
/// much more memory than its line.
///
/// ```
/// use bcast_conformance::backend::subprocess::protocol::{parse_answer, Answer};
/// let ok = parse_answer(r#"{"id": "c/1", "outcome": {"ok": {"result": {"int": 3}}}}"#, "c/1", 10);
/// assert!(matches!(ok, Ok(Answer::Outcome(_))));
/// let failure = parse_answer(r#"{"id": "c/1", "failure": "no such op"}"#, "c/1", 10);
/// assert_eq!(failure, Ok(Answer::Failure("no such op".into())));
/// assert!(parse_answer(r#"{"id": "c/2", "outcome": {}}"#, "c/1", 10).unwrap_err().out_of_sync);
/// assert!(parse_answer("hello?", "c/1", 10).unwrap_err().out_of_sync);
/// let shape = parse_answer(r#"{"id": "c/1", "outcome": {"maybe": 1}}"#, "c/1", 10).unwrap_err();
/// assert!(!shape.out_of_sync);
/// let big = r#"{"id": "c/1", "outcome": {"ok": {"result": {"tensor": {"shape": [3],
///     "dtype": "int64", "strides": [1], "values": [1, 2, 3]}}}}}"#;
/// assert!(parse_answer(big, "c/1", 2).unwrap_err().message.contains("more than 2 element values"));
/// ```
pub fn parse_answer(line: &str, id: &str, budget: usize) -> Result<Answer, BadAnswer> {
    let bad = |message: String, out_of_sync: bool| BadAnswer {
        message,
        out_of_sync,
    };
    let fields: AnswerFields = serde_json::from_str(line).map_err(|e| {
        let what = if e.classify() == serde_json::error::Category::Data {
            "is not a JSON object"
        } else {
            "is not JSON"
        };
        bad(format!("its answer {what} ({e}): {}", clip(line)), true)
    })?;
    match fields
        .id
        .map(|raw| serde_json::from_str::<String>(raw.get()))
    {
        Some(Ok(got)) if got == id => {}
        Some(_) => {
            let raw = fields.id.map_or("", |r| r.get());
            return Err(bad(
                format!("it answered id {} to case {id:?}", clip_raw(raw)),
                true,
            ));
        }
        None => return Err(bad(format!("its answer has no id: {}", clip(line)), true)),
    }
    if let Some(extra) = fields.unknown {
        return Err(bad(
            format!("its answer has an unknown key {extra:?}"),
            false,
        ));
    }
    match (fields.outcome, fields.failure) {
        (Some(o), None) => with_element_budget(budget, || serde_json::from_str::<Outcome>(o.get()))
            .map(|o| Answer::Outcome(Box::new(o)))
            .map_err(|e| {
                bad(
                    format!(
                        "its outcome does not fit the schema ({e}): {}",
                        clip_raw(o.get())
                    ),
                    false,
                )
            }),
        (None, Some(f)) => match serde_json::from_str::<String>(f.get()) {
            Ok(why) => Ok(Answer::Failure(why)),
            Err(_) => Err(bad(
                format!("its failure is not a string: {}", clip_raw(f.get())),
                false,
            )),
        },
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

/// At most 200 characters of raw JSON, as they are.
fn clip_raw(text: &str) -> String {
    let mut out: String = text.chars().take(200).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    out
}

/// At most 200 characters of `text`, for messages.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(200).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    format!("{out:?}")
}
