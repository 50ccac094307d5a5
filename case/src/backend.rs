//! What an implementation under test provides: a [`Backend`] runs a case and reports the
//! outcome in the schema's terms, and declares in its [`Capabilities`] which ops, dtypes and
//! check levels it claims; a [`BackendFailure`] says why it produced no outcome.

use crate::ops::{lookup, Form};
use crate::{Arg, Case, DType, Level, Outcome};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

/// What a backend claims to implement. Cases outside it are skipped, not failed: a case whose
/// op or one of whose dtypes is not claimed is skipped whole; a level not claimed is not checked.
///
/// This is also the `capabilities` object of the subprocess protocol's handshake:
///
/// ```
/// use bcast_case::{Capabilities, Level};
/// let caps: Capabilities = serde_json::from_str(
///     r#"{"ops": ["torch.add"], "dtypes": ["float32"], "levels": ["shapes", "values"]}"#,
/// ).unwrap();
/// assert!(caps.runs_op("torch.add") && !caps.runs_op("torch.sub"));
/// assert!(caps.claims_dtype("float32") && !caps.claims_dtype("int64"));
/// assert!(caps.levels.contains(&Level::Values));
/// let typo = serde_json::from_str::<Capabilities>(
///     r#"{"ops": null, "dtypes": ["float32"], "levels": ["shape"]}"#,
/// );
/// assert!(typo.unwrap_err().to_string().contains("capabilities.levels: unknown level \"shape\""));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CapabilitiesClaim")]
pub struct Capabilities {
    /// The `fn` names it runs (`torch.add`, `Tensor.expand`, ...); `None` (JSON `null`) means
    /// every op. Required in JSON, so that no adapter claims every op by omission.
    pub ops: Option<BTreeSet<String>>,
    /// The dtypes it supports; a case touching another dtype is skipped.
    pub dtypes: BTreeSet<String>,
    /// The check levels it claims.
    pub levels: BTreeSet<Level>,
    /// Argument forms and inputs it cannot take; cases that need them are skipped.
    #[serde(default, skip_serializing_if = "Declines::is_empty")]
    pub declines: Declines,
}

/// What a backend declines although it claims the op: cases that need one of these are
/// skipped with the reason, never failed. JSON: `"declines": {"forms": ["in_place"],
/// "kwargs": ["out", "alpha"], "python_numbers": true, "strided_inputs": true,
/// "max_input_elements": 16777216, "stride_dependent": true, "huge_results": true}`, every
/// field optional. A declined keyword matches however the call passes it (by keyword, by
/// position, under a NumPy spelling), as torch's parser binds it; a name that is no
/// parameter's is refused.
///
/// ```
/// use bcast_case::{Capabilities, Case};
/// let caps: Capabilities = serde_json::from_str(r#"{"ops": null, "dtypes": ["float32"],
///     "levels": ["shapes"], "declines": {"kwargs": ["out"], "python_numbers": true}}"#).unwrap();
/// let case: Case = serde_json::from_str(r#"{"id": "c", "storages": {"s": {"dtype": "float32",
///     "values": [1.0]}}, "tensors": {"t": {"storage": "s", "shape": [1], "strides": [1]}},
///     "call": {"fn": "torch.add", "args": [{"tensor": "t"}, {"int": 2}]}}"#).unwrap();
/// assert_eq!(caps.declined(&case).unwrap(), "declines Python-number operands (argument other)");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declines {
    /// Call forms it has no spelling for: `function` (`torch.X`), `method` (`Tensor.X`),
    /// `in_place` (`Tensor.X_`), `getitem`.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub forms: BTreeSet<String>,
    /// Parameters it does not take (`out`, `alpha`, `dtype`, `dim`, `keepdim`, ...), however
    /// they are passed.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub kwargs: BTreeSet<String>,
    /// Python numbers standing for an operand of an element-wise op (`torch.add(t, 2)`,
    /// `torch.add(t, other=2)`): a number given to a parameter that may be given by position.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub python_numbers: bool,
    /// Input tensors that are not plain row-major views from the storage's start (transposed,
    /// expanded, sliced or offset views).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strided_inputs: bool,
    /// Input views of more elements than this (a library that copies each view into dense
    /// memory cannot build a stride-0 view of 2^61 elements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input_elements: Option<u64>,
    /// Cases whose outcome depends on the inputs' strides, not only on their values: a
    /// `STRIDE_DEPENDENT_OPS` op given a strided input (`Tensor.view` of a transposed view
    /// raises), and a write (in place, `out=`) into a view whose elements overlap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stride_dependent: bool,
    /// Cases tagged `huge-result` (a result of more than 2^32 elements).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub huge_results: bool,
}

/// The ops whose outcome depends on their input's strides and storage, not only on its values
/// (by base name): `view` succeeds only where the strides allow it, `as_strided` reads the
/// storage under the view.
pub const STRIDE_DEPENDENT_OPS: [&str; 2] = ["view", "as_strided"];

impl Declines {
    /// The form names of `forms`.
    pub const FORMS: [&'static str; 5] = ["function", "method", "in_place", "getitem", "reflected"];

    /// Whether it declines nothing.
    pub fn is_empty(&self) -> bool {
        *self == Declines::default()
    }

    fn form_name(form: Form) -> &'static str {
        match form {
            Form::Function => "function",
            Form::Method => "method",
            Form::InPlace => "in_place",
            Form::Getitem => "getitem",
            Form::Reflected => "reflected",
        }
    }
}

/// The `capabilities` object as JSON gives it, before its names are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CapabilitiesClaim {
    #[serde(deserialize_with = "Option::deserialize")]
    ops: Option<BTreeSet<String>>,
    dtypes: Vec<String>,
    levels: Vec<String>,
    #[serde(default)]
    declines: Declines,
}

impl TryFrom<CapabilitiesClaim> for Capabilities {
    type Error = String;

    /// Refuses an unknown dtype or level name, naming the field: a claim the runner cannot
    /// check must not silently narrow what it checks.
    fn try_from(claim: CapabilitiesClaim) -> Result<Capabilities, String> {
        let mut dtypes = BTreeSet::new();
        for name in claim.dtypes {
            if DType::from_name(&name).is_none() {
                let known: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
                return Err(format!(
                    "capabilities.dtypes: unknown dtype {name:?} (dtypes: {})",
                    known.join(", ")
                ));
            }
            dtypes.insert(name);
        }
        let mut levels = BTreeSet::new();
        for name in claim.levels {
            let level = Level::from_name(&name).ok_or_else(|| {
                let known: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
                format!(
                    "capabilities.levels: unknown level {name:?} (levels: {})",
                    known.join(", ")
                )
            })?;
            levels.insert(level);
        }
        if let Some(kw) = claim
            .declines
            .kwargs
            .iter()
            .find(|k| !crate::pyargs::is_parameter_name(k))
        {
            return Err(format!(
                "capabilities.declines.kwargs: unknown keyword {kw:?} (no op of the catalogue \
                 has a parameter of that name; see OPS.md)"
            ));
        }
        if let Some(form) = claim
            .declines
            .forms
            .iter()
            .find(|f| !Declines::FORMS.contains(&f.as_str()))
        {
            return Err(format!(
                "capabilities.declines.forms: unknown form {form:?} (forms: {})",
                Declines::FORMS.join(", ")
            ));
        }
        Ok(Capabilities {
            ops: claim.ops,
            dtypes,
            levels,
            declines: claim.declines,
        })
    }
}

impl Capabilities {
    /// Every op, dtype and level.
    pub fn everything() -> Capabilities {
        Capabilities {
            ops: None,
            dtypes: DType::ALL.iter().map(|d| d.name().to_string()).collect(),
            levels: Level::ALL.into_iter().collect(),
            declines: Declines::default(),
        }
    }

    /// Why the backend declines this case, if it does (see [`Declines`]).
    pub fn declined(&self, case: &Case) -> Option<String> {
        let d = &self.declines;
        let call = &case.call;
        let op = lookup(&call.fn_);
        if let Some((_, form)) = op
            && d.forms.contains(Declines::form_name(form))
        {
            return Some(format!("declines the {} form", Declines::form_name(form)));
        }
        if !d.kwargs.is_empty() {
            let declined: BTreeSet<&str> = d
                .kwargs
                .iter()
                .map(|k| crate::pyargs::parameter_of_keyword(k))
                .collect();
            let passed = crate::pyargs::passed_parameters(case);
            if let Some(kw) = passed.iter().find(|p| declined.contains(p.as_str())) {
                return Some(format!("declines the keyword {kw}="));
            }
        }
        let elementwise = op.is_some_and(|(op, _)| op.family.is_elementwise());
        if d.python_numbers
            && elementwise
            && let Some(which) = python_number_operand(case)
        {
            return Some(format!("declines Python-number operands ({which})"));
        }
        if d.huge_results && case.tags.iter().any(|t| t == crate::HUGE_RESULT_TAG) {
            return Some(format!(
                "declines huge results (tag {})",
                crate::HUGE_RESULT_TAG
            ));
        }
        if let Some(max) = d.max_input_elements {
            let big = case.tensors.iter().find_map(|(name, t)| {
                let numel = t
                    .shape
                    .iter()
                    .fold(1u128, |n, &s| n.saturating_mul(s as u128));
                (numel > u128::from(max)).then_some((name, numel))
            });
            if let Some((name, numel)) = big {
                return Some(format!(
                    "declines inputs of more than {max} elements (tensor {name}: {numel})"
                ));
            }
        }
        if d.stride_dependent
            && let Some(why) = stride_dependent(case)
        {
            return Some(format!("declines stride-dependent outcomes ({why})"));
        }
        if d.strided_inputs
            && let Some((name, _)) = case.tensors.iter().find(|(_, t)| !plain_view(t))
        {
            return Some(format!("declines strided inputs (tensor {name})"));
        }
        None
    }

    /// Whether the backend runs this op.
    pub fn runs_op(&self, fn_name: &str) -> bool {
        self.ops.as_ref().is_none_or(|ops| ops.contains(fn_name))
    }

    /// Whether the backend supports this dtype.
    pub fn claims_dtype(&self, dtype: &str) -> bool {
        self.dtypes.contains(dtype)
    }
}

/// Whether a view is row-major from its storage's start (sizes 0 and 1 take any stride).
fn plain_view(t: &crate::TensorSpec) -> bool {
    let mut expected = 1;
    let row_major = t.shape.iter().zip(&t.strides).rev().all(|(&n, &s)| {
        let ok = n <= 1 || s == expected;
        expected *= n.max(1);
        ok
    });
    t.offset == 0 && row_major
}

/// Which argument of the call is a Python number standing for an operand, if one is: a
/// number bound to a parameter that may be given by position, however it was given
/// (`other=2` too); where torch's parser has no binding for the call, a positional number.
fn python_number_operand(case: &Case) -> Option<String> {
    let number = |a: &Arg| {
        matches!(
            a,
            Arg::Int(_) | Arg::Float(_) | Arg::Bool(_) | Arg::Complex(_)
        )
    };
    let call = &case.call;
    if let Ok(Some(accepted)) = crate::pyargs::check_call(case) {
        let first = usize::from(call.fn_.starts_with("Tensor."));
        let params = accepted
            .binding
            .params
            .iter()
            .zip(&accepted.signature.params);
        return params
            .filter(|(_, p)| !p.keyword_only)
            .find_map(|((name, source), _)| {
                let value = match source {
                    crate::pyargs::Source::Positional(i) => call.args.get(first + i),
                    crate::pyargs::Source::Keyword(k) => call.kwargs.get(k),
                    _ => None,
                };
                value
                    .filter(|a| number(a))
                    .map(|_| format!("argument {name}"))
            });
    }
    let i = call.args.iter().position(number)?;
    Some(format!("argument {}", i + 1))
}

/// Why a case's outcome depends on its inputs' strides, if it does (see
/// [`Declines::stride_dependent`]).
fn stride_dependent(case: &Case) -> Option<String> {
    let call = &case.call;
    let (op, form) = lookup(&call.fn_)?;
    if STRIDE_DEPENDENT_OPS.contains(&op.name)
        && let Some((name, _)) = case.tensors.iter().find(|(_, t)| !plain_view(t))
    {
        return Some(format!("{} of the strided view {name}", call.fn_));
    }
    let written = match (form, call.kwargs.get("out"), call.args.first()) {
        (_, Some(Arg::Tensor(out)), _) => Some(out),
        (Form::InPlace, _, Some(Arg::Tensor(this))) => Some(this),
        _ => None,
    }?;
    let t = case.tensors.get(written)?;
    let overlaps = t
        .shape
        .iter()
        .zip(&t.strides)
        .any(|(&n, &s)| n > 1 && s == 0);
    overlaps.then(|| format!("a write into {written}, whose elements overlap"))
}

/// What kind of backend failure happened; a caller branches on it (the runner stops a run
/// after too many [`FailureKind::TimedOut`] in a row, the differential counts
/// [`FailureKind::Unsupported`] apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// The backend cannot express this case at all (an op it lacks, a behaviour that exists
    /// only in Python), as opposed to failing on it.
    Unsupported,
    /// It crashed or exited before answering.
    Crashed,
    /// It did not answer in time.
    TimedOut,
    /// It answered something that is not an outcome of this case.
    BadAnswer,
    /// It panicked (an in-process backend).
    Panicked,
    /// It could not build the case's inputs, or said it could not run the case.
    BadInput,
}

impl FailureKind {
    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Unsupported => "unsupported",
            FailureKind::Crashed => "crashed",
            FailureKind::TimedOut => "timed out",
            FailureKind::BadAnswer => "bad answer",
            FailureKind::Panicked => "panicked",
            FailureKind::BadInput => "bad input",
        }
    }
}

/// A backend failure that is not an outcome: it crashed, hung, or answered nonsense.
///
/// ```
/// use bcast_case::{BackendFailure, FailureKind};
/// let f = BackendFailure::new(FailureKind::TimedOut, "no answer within 5000 ms");
/// assert_eq!(f.kind, FailureKind::TimedOut);
/// assert_eq!(f.to_string(), "no answer within 5000 ms");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendFailure {
    /// What kind of failure, for callers that branch on it.
    pub kind: FailureKind,
    /// What happened, for people.
    pub message: String,
}

impl BackendFailure {
    /// How the message of an [`unsupported`](BackendFailure::unsupported) failure begins.
    pub const UNSUPPORTED: &'static str = "unsupported: ";

    /// A failure of this kind.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> BackendFailure {
        BackendFailure {
            kind,
            message: message.into(),
        }
    }

    /// A [`FailureKind::BadInput`] failure: the case could not be built or run.
    pub fn bad_input(message: impl Into<String>) -> BackendFailure {
        BackendFailure::new(FailureKind::BadInput, message)
    }

    /// The backend cannot express this case at all (an op it lacks, a behaviour that exists
    /// only in Python), as opposed to failing on it.
    ///
    /// ```
    /// use bcast_case::BackendFailure;
    /// let f = BackendFailure::unsupported("no op torch.frobnicate");
    /// assert!(f.is_unsupported());
    /// assert_eq!(f.to_string(), "unsupported: no op torch.frobnicate");
    /// assert!(!BackendFailure::bad_input("crashed").is_unsupported());
    /// ```
    pub fn unsupported(reason: impl fmt::Display) -> BackendFailure {
        BackendFailure::new(
            FailureKind::Unsupported,
            format!("{}{reason}", BackendFailure::UNSUPPORTED),
        )
    }

    /// Whether this failure says the case cannot be expressed (see [`BackendFailure::unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        self.kind == FailureKind::Unsupported
    }

    /// How the message of an [`outside_schema`](BackendFailure::outside_schema) failure
    /// begins, after [`BackendFailure::UNSUPPORTED`].
    pub const OUTSIDE_SCHEMA: &'static str = "outside the schema: ";

    /// An unsupported failure because the outcome itself has no form in the schema (a
    /// quantized or bit result): no other backend can express it either.
    ///
    /// ```
    /// use bcast_case::BackendFailure;
    /// let f = BackendFailure::outside_schema("a QInt8 result");
    /// assert!(f.is_unsupported() && f.is_outside_schema());
    /// assert!(!BackendFailure::unsupported("a Python-only call").is_outside_schema());
    /// ```
    pub fn outside_schema(reason: impl fmt::Display) -> BackendFailure {
        BackendFailure::unsupported(format!("{}{reason}", BackendFailure::OUTSIDE_SCHEMA))
    }

    /// Whether this failure is an [`outside_schema`](BackendFailure::outside_schema) one.
    pub fn is_outside_schema(&self) -> bool {
        self.is_unsupported()
            && self
                .message
                .strip_prefix(BackendFailure::UNSUPPORTED)
                .is_some_and(|m| m.starts_with(BackendFailure::OUTSIDE_SCHEMA))
    }
}

impl fmt::Display for BackendFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An implementation under test.
pub trait Backend {
    /// A short name for reports.
    fn name(&self) -> String;
    /// What it claims.
    fn capabilities(&self) -> Capabilities;
    /// [`Backend::capabilities`], borrowed where the backend keeps them: the runner asks
    /// before every case, and a catalogue's op names are hundreds of strings to copy.
    fn claims(&self) -> Cow<'_, Capabilities> {
        Cow::Owned(self.capabilities())
    }
    /// Runs one case (its `expect` is ignored) and reports what happened.
    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure>;
    /// Why a case that uses `dtype`, which [`Backend::capabilities`] does not claim, is
    /// skipped: `dtype X not claimed` unless the backend says more.
    fn unclaimed_dtype(&self, dtype: DType) -> String {
        format!("dtype {} not claimed", dtype.name())
    }
    /// Why the backend declines this one case that its capabilities cover, if it does: a case
    /// it knows it cannot compute is skipped with the reason, never failed or passed.
    fn declines(&self, _case: &Case) -> Option<String> {
        None
    }
}
