//! What a document claims about a case beside what torch did: every field of a
//! [`Claim`] that disagrees with the case's `expect` is a [`Discrepancy`].
//!
//! ```
//! use bcast_conformance::case::{Claim, ClaimOutcome, ErrorOutcome, Outcome};
//! use bcast_tooling::claims::discrepancies;
//! let claim = Claim {
//!     outcome: ClaimOutcome::Error,
//!     message: Some("The expanded size of the tensor (1) must match".into()),
//!     ..Claim::default()
//! };
//! let torch = Outcome::Error(ErrorOutcome::new(
//!     "RuntimeError",
//!     "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]",
//! ));
//! let found = discrepancies(&claim, &torch);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].field, "message");
//! ```

mod report;

pub use report::{build_report, call_context, ClaimReport, DocCounts, Finding};

use bcast_conformance::case::{
    Claim, ClaimOutcome, ErrorOutcome, Num, OkOutcome, Outcome, ResultValue,
};
use bcast_conformance::case::{TensorResult, Tolerance};
use bcast_conformance::compare::values_agree;
use bcast_engine::shape::format_tuple;
use std::fmt;

/// Printed values in documents are rounded (`tensor([1.2891, ...])`): they agree with torch's
/// within this tolerance.
pub const PRINTED_TOLERANCE: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 5e-5,
};

/// One field where a document and torch disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discrepancy {
    /// The claim field: `outcome`, `shape`, `error_type`, `message`, `values`, `strides`,
    /// `shares_storage` or `warning`.
    pub field: &'static str,
    /// What the document says.
    pub claimed: String,
    /// What torch does.
    pub actual: String,
}

impl fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: document says {}; torch does {}",
            self.field, self.claimed, self.actual
        )
    }
}

fn found(field: &'static str, claimed: String, actual: String) -> Discrepancy {
    Discrepancy {
        field,
        claimed,
        actual,
    }
}

fn shape_text(shape: &[i64]) -> String {
    format_tuple(shape)
}

fn claim_shape_text(shape: &[usize]) -> String {
    format_tuple(shape)
}

/// A one-line account of what a claim says, e.g. `works, shape (3, 4)`.
///
/// ```
/// use bcast_conformance::case::{Claim, ClaimOutcome};
/// use bcast_tooling::claims::describe_claim;
/// let c = Claim { outcome: ClaimOutcome::Ok, shape: Some(vec![3, 4]), ..Claim::default() };
/// assert_eq!(describe_claim(&c), "works, shape (3, 4)");
/// ```
pub fn describe_claim(c: &Claim) -> String {
    let mut parts = Vec::new();
    match c.outcome {
        ClaimOutcome::Ok => parts.push("works".to_string()),
        ClaimOutcome::Error => parts.push(match (&c.error_type, &c.message) {
            (Some(t), Some(m)) => format!("raises {t}: {m:?}"),
            (Some(t), None) => format!("raises {t}"),
            (None, Some(m)) => format!("raises {m:?}"),
            (None, None) => "raises an error".to_string(),
        }),
    }
    if let Some(s) = &c.shape {
        parts.push(format!("shape {}", claim_shape_text(s)));
    }
    if let Some(v) = &c.values {
        parts.push(format!("values {}", values_text(v)));
    }
    if let Some(s) = &c.strides {
        parts.push(format!("strides {}", claim_shape_text(s)));
    }
    if let Some(b) = c.shares_storage {
        parts.push(if b { "shares storage" } else { "copies" }.to_string());
    }
    if let Some(w) = &c.warning {
        parts.push(format!("warns {w:?}"));
    }
    parts.join(", ")
}

/// A one-line account of what torch did, e.g. `returns a float32 tensor of shape (4, 4)`.
pub fn describe_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Error(e) => describe_error(e),
        Outcome::Ok(ok) => match &ok.result {
            ResultValue::Tensor(t) => format!(
                "returns a {} tensor of shape {}",
                t.dtype,
                shape_text(&t.shape)
            ),
            ResultValue::Tensors(ts) => format!(
                "returns {} tensors of shapes {}",
                ts.len(),
                ts.iter()
                    .map(|t| shape_text(&t.shape))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ResultValue::Size(s) => format!("returns torch.Size({s:?})"),
            ResultValue::Int(i) => format!("returns {i}"),
            ResultValue::Bool(b) => format!("returns {}", if *b { "True" } else { "False" }),
            ResultValue::NotImplemented => "returns NotImplemented".into(),
        },
    }
}

fn describe_error(e: &ErrorOutcome) -> String {
    format!("raises {}: {:?}", e.kind, e.message)
}

fn values_text(v: &[Num]) -> String {
    let shown: Vec<String> = v.iter().take(8).map(num_text).collect();
    let more = if v.len() > 8 {
        format!(", ... ({} values)", v.len())
    } else {
        String::new()
    };
    format!("[{}{more}]", shown.join(", "))
}

fn num_text(n: &Num) -> String {
    match n {
        Num::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Num::Int(i) => i.to_string(),
        Num::Float(f) => format!("{f:?}"),
        Num::Complex(re, im) => format!("complex({re:?}, {im:?})"),
    }
}

/// Every field where `claim` disagrees with torch's `expect`. When the outcome itself
/// differs (works vs raises), that one discrepancy says it all.
pub fn discrepancies(claim: &Claim, expect: &Outcome) -> Vec<Discrepancy> {
    match (claim.outcome, expect) {
        (ClaimOutcome::Ok, Outcome::Error(e)) => {
            vec![found("outcome", describe_claim(claim), describe_error(e))]
        }
        (ClaimOutcome::Error, Outcome::Ok(_)) => {
            vec![found(
                "outcome",
                describe_claim(claim),
                describe_outcome(expect),
            )]
        }
        (ClaimOutcome::Error, Outcome::Error(e)) => error_fields(claim, e),
        (ClaimOutcome::Ok, Outcome::Ok(ok)) => ok_fields(claim, ok),
    }
}

fn error_fields(claim: &Claim, e: &ErrorOutcome) -> Vec<Discrepancy> {
    let mut out = Vec::new();
    if let Some(t) = &claim.error_type
        && *t != e.kind
    {
        out.push(found("error_type", t.clone(), e.kind.clone()));
    }
    if let Some(m) = &claim.message
        && *m != e.message
    {
        out.push(found(
            "message",
            format!("{m:?}"),
            format!("{:?}", e.message),
        ));
    }
    out
}

/// The tensors of a result, for fields that speak of tensors.
fn tensors_of(r: &ResultValue) -> Vec<&TensorResult> {
    match r {
        ResultValue::Tensor(t) => vec![t],
        ResultValue::Tensors(ts) => ts.iter().collect(),
        _ => Vec::new(),
    }
}

fn ok_fields(claim: &Claim, ok: &OkOutcome) -> Vec<Discrepancy> {
    let mut out = Vec::new();
    if let Some(shape) = &claim.shape {
        let want: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let actual: Vec<Vec<i64>> = match &ok.result {
            ResultValue::Size(s) => vec![s.clone()],
            r => tensors_of(r).iter().map(|t| t.shape.clone()).collect(),
        };
        if actual.is_empty() || actual.iter().any(|s| *s != want) {
            let text = if actual.is_empty() {
                describe_outcome(&Outcome::Ok(ok.clone()))
            } else {
                actual
                    .iter()
                    .map(|s| shape_text(s))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(found("shape", claim_shape_text(shape), text));
        }
    }
    if let Some(values) = &claim.values
        && let Some(d) = values_field(values, &ok.result)
    {
        out.push(d);
    }
    let tensors = tensors_of(&ok.result);
    if let Some(strides) = &claim.strides {
        for t in &tensors {
            if t.strides != *strides {
                out.push(found(
                    "strides",
                    claim_shape_text(strides),
                    claim_shape_text(&t.strides),
                ));
            }
        }
    }
    if let Some(shares) = claim.shares_storage {
        for t in &tensors {
            if t.storage.is_some() != shares {
                let text = |b: bool| if b { "shares storage" } else { "copies" }.to_string();
                out.push(found(
                    "shares_storage",
                    text(shares),
                    text(t.storage.is_some()),
                ));
            }
        }
    }
    if let Some(w) = &claim.warning {
        let emitted = ok.warnings.as_deref().unwrap_or(&[]);
        if !emitted.iter().any(|e| e == w) {
            let actual = if emitted.is_empty() {
                "no warning".to_string()
            } else {
                format!("{emitted:?}")
            };
            out.push(found("warning", format!("{w:?}"), actual));
        }
    }
    out
}

/// Compares claimed values with a result: every value of a tensor (or the sampled ones of a
/// large tensor), or the single value of an int or bool result.
fn values_field(values: &[Num], result: &ResultValue) -> Option<Discrepancy> {
    let pairs: Vec<(Num, Num)> = match result {
        ResultValue::Int(i) => vec![(values.first().copied()?, Num::Int(*i))],
        ResultValue::Bool(b) => vec![(values.first().copied()?, Num::Bool(*b))],
        ResultValue::Tensor(t) => match (&t.values, &t.samples) {
            (Some(v), _) if v.len() == values.len() => {
                values.iter().copied().zip(v.iter().copied()).collect()
            }
            (None, Some(s)) => s
                .iter()
                .filter_map(|&(i, v)| values.get(i).map(|&c| (c, v)))
                .collect(),
            (Some(v), _) => {
                return Some(found(
                    "values",
                    format!("{} values", values.len()),
                    format!("{} values", v.len()),
                ))
            }
            (None, None) => return None,
        },
        _ => return None,
    };
    let single = values.len() == 1 && !matches!(result, ResultValue::Tensor(_));
    let bad = pairs
        .iter()
        .position(|&(c, a)| !values_agree(a, c, Some(PRINTED_TOLERANCE)))?;
    let (c, a) = pairs[bad];
    Some(if single {
        found("values", num_text(&c), num_text(&a))
    } else {
        let actual: Vec<Num> = pairs.iter().map(|&(_, a)| a).collect();
        found(
            "values",
            values_text(values),
            format!("{} (first difference at {bad})", values_text(&actual)),
        )
    })
}
