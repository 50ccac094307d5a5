//! Running cases through a backend and judging each one (reports read what it produces; it
//! reads no report): [`run_case`] judges one case,
//! [`suite`] runs a selection of cases with expected failures, [`jobs`] runs it through several
//! instances of a backend at once, [`select`], [`shard`] and [`xfail`] say which cases run and
//! which are expected to fail.

pub mod jobs;
pub mod select;
pub mod shard;
pub mod suite;
pub mod xfail;

use crate::backend::{Backend, BackendFailure, Capabilities, FailureKind, Level};
use crate::case::{Arg, Case, LoadedCase, Outcome};
use crate::compare::{compare_case, Mismatch};
use crate::repro::python_snippet;
use bcast_case::{storage_dtype, DType};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// How one case went.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every claimed check agreed.
    Pass,
    /// Some claimed check disagreed.
    Fail(Vec<Mismatch>),
    /// The backend failed to produce an outcome (crash, hang, garbage, unsupported call).
    BackendFailure(BackendFailure),
    /// Outside the backend's capabilities.
    Skip(String),
}

impl Verdict {
    /// Whether this counts against the backend.
    pub fn is_failure(&self) -> bool {
        matches!(self, Verdict::Fail(_) | Verdict::BackendFailure(_))
    }

    /// A one-line account: the first difference, the backend failure, or the skip reason.
    ///
    /// ```
    /// use bcast_conformance::runner::Verdict;
    /// assert_eq!(Verdict::Pass.headline(), "pass");
    /// use bcast_conformance::backend::{BackendFailure, FailureKind};
    /// let hung = BackendFailure::new(FailureKind::TimedOut, "no answer");
    /// assert_eq!(Verdict::BackendFailure(hung).headline(), "backend failure (timed out): no answer");
    /// ```
    pub fn headline(&self) -> String {
        match self {
            Verdict::Pass => "pass".to_string(),
            Verdict::Fail(ms) => match ms.as_slice() {
                [] => "fail".to_string(),
                [m] => m.to_string(),
                [m, rest @ ..] => format!("{m} (and {} more differences)", rest.len()),
            },
            Verdict::BackendFailure(f) => format!("backend failure ({}): {f}", f.kind.name()),
            Verdict::Skip(reason) => format!("skipped: {reason}"),
        }
    }
}

/// The outcome of one case, with what the backend answered.
#[derive(Debug, Clone)]
pub struct CaseReport {
    pub id: String,
    pub verdict: Verdict,
    pub got: Option<Outcome>,
}

/// Why a backend does not claim a case, if it does not: its op, a dtype of its storages, of
/// its `dtype` arguments or of torch's result (a `float16` tensor with a complex number gives
/// `complex32`), or something it declines.
///
/// ```
/// use bcast_conformance::backend::Capabilities;
/// use bcast_conformance::case::Case;
/// use bcast_conformance::runner::skip_reason;
/// let caps: Capabilities = serde_json::from_str(
///     r#"{"ops": null, "dtypes": ["float32"], "levels": ["shapes"]}"#).unwrap();
/// let case = |storage: &str, dtype_arg: &str| -> Case { serde_json::from_str(&format!(
///     r#"{{"id": "c", "storages": {{"s": {{"dtype": "{storage}", "values": [1]}}}},
///     "tensors": {{"t": {{"storage": "s", "shape": [1], "strides": [1]}}}},
///     "call": {{"fn": "torch.sum", "args": [{{"tensor": "t"}}],
///     "kwargs": {{"dtype": {{"dtype": "{dtype_arg}"}}}}}}}}"#)).unwrap() };
/// assert_eq!(skip_reason(&case("float32", "float32"), &caps), None);
/// assert_eq!(skip_reason(&case("uint8", "float32"), &caps).unwrap(), "dtype uint8 not claimed");
/// assert_eq!(skip_reason(&case("float32", "float16"), &caps).unwrap(), "dtype float16 not claimed");
/// let mut c = case("float32", "float32");
/// c.expect = Some(serde_json::from_str(r#"{"ok": {"result": {"tensor": {"shape": [],
///     "dtype": "complex32", "strides": [], "offset": 0, "storage": null,
///     "values": [[1, 0]]}}}}"#).unwrap());
/// assert_eq!(skip_reason(&c, &caps).unwrap(), "dtype complex32 not claimed");
/// ```
pub fn skip_reason(case: &Case, caps: &Capabilities) -> Option<String> {
    skip_reason_with(case, caps, |d| format!("dtype {} not claimed", d.name()))
}

/// [`skip_reason`], with the words for a dtype not claimed from `unclaimed`.
fn skip_reason_with(
    case: &Case,
    caps: &Capabilities,
    unclaimed: impl Fn(DType) -> String,
) -> Option<String> {
    if !caps.runs_op(&case.call.fn_) {
        return Some(format!("op {} not claimed", case.call.fn_));
    }
    if case.grad.is_some() && !caps.levels.contains(&Level::Grads) {
        return Some("gradients (level grads) not claimed".to_string());
    }
    let dtype_args =
        (case.call.args.iter().chain(case.call.kwargs.values())).filter_map(|a| match a {
            Arg::Dtype(name) => DType::from_name(name),
            // A Python complex (two doubles) is sent only to a backend claiming complex128.
            Arg::Complex(_) => Some(DType::Complex128),
            _ => None,
        });
    let storage_dtypes = case.storages.values().filter_map(|s| storage_dtype(s).ok());
    let result_dtypes = result_tensors(case).filter_map(|t| DType::from_name(&t.dtype));
    if let Some(d) = storage_dtypes
        .chain(dtype_args)
        .chain(result_dtypes)
        .find(|d| !caps.claims_dtype(d.name()))
    {
        return Some(unclaimed(d));
    }
    caps.declined(case)
}

/// The tensors of torch's result of a case, if it returned tensors.
fn result_tensors(case: &Case) -> impl Iterator<Item = &bcast_case::TensorResult> {
    let tensors: &[bcast_case::TensorResult] = match &case.expect {
        Some(Outcome::Ok(ok)) => match &ok.result {
            bcast_case::ResultValue::Tensor(t) => std::slice::from_ref(t),
            bcast_case::ResultValue::Tensors(ts) => ts,
            _ => &[],
        },
        _ => &[],
    };
    tensors.iter()
}

/// The levels a run checks: those both claimed and wanted, and always [`Level::ALWAYS`].
///
/// ```
/// use bcast_conformance::backend::Level;
/// use bcast_conformance::runner::checked_levels;
/// let claimed = [Level::Values, Level::Messages].into_iter().collect();
/// let wanted = [Level::Values, Level::Strides].into_iter().collect();
/// let checked: Vec<Level> = checked_levels(&claimed, &wanted).into_iter().collect();
/// assert_eq!(checked, [Level::Shapes, Level::Values]);
/// assert_eq!(checked_levels(&Default::default(), &Default::default()).len(), 1);
/// ```
pub fn checked_levels(claimed: &BTreeSet<Level>, wanted: &BTreeSet<Level>) -> BTreeSet<Level> {
    let mut levels: BTreeSet<Level> = claimed.intersection(wanted).copied().collect();
    levels.insert(Level::ALWAYS);
    levels
}

/// Runs one case through a backend; a panic of the backend is caught here, once for every
/// backend, and becomes a [`FailureKind::Panicked`] failure of that case.
///
/// ```
/// use bcast_conformance::backend::{Backend, Capabilities, FailureKind};
/// use bcast_conformance::case::{Case, Outcome};
/// use bcast_conformance::runner::run_guarded;
/// struct Broken;
/// impl Backend for Broken {
///     fn name(&self) -> String { "broken".into() }
///     fn capabilities(&self) -> Capabilities { Capabilities::everything() }
///     fn run(&mut self, _: &Case) -> Result<Outcome, bcast_conformance::backend::BackendFailure> {
///         panic!("index out of bounds")
///     }
/// }
/// let case: Case = serde_json::from_str(r#"{"id": "c", "call": {"fn": "Tensor.numel"}}"#).unwrap();
/// let failure = run_guarded(&mut Broken, &case).unwrap_err();
/// assert_eq!(failure.kind, FailureKind::Panicked);
/// assert!(failure.message.contains("index out of bounds"));
/// ```
pub fn run_guarded(backend: &mut dyn Backend, case: &Case) -> Result<Outcome, BackendFailure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| backend.run(case))).unwrap_or_else(
        |payload| {
            Err(BackendFailure::new(
                FailureKind::Panicked,
                format!("the backend panicked: {}", panic_message(payload.as_ref())),
            ))
        },
    )
}

/// The message a panic carried.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs one case and judges it at the levels both claimed by the backend and `wanted`, and
/// always at [`Level::ALWAYS`].
pub fn run_case(backend: &mut dyn Backend, case: &Case, wanted: &BTreeSet<Level>) -> CaseReport {
    let judged = {
        let caps = backend.claims();
        match skip_reason_with(case, &caps, |d| backend.unclaimed_dtype(d))
            .or_else(|| backend.declines(case))
        {
            Some(reason) => Err(reason),
            None => Ok(checked_levels(&caps.levels, wanted)),
        }
    };
    let levels = match judged {
        Ok(levels) => levels,
        Err(reason) => {
            return CaseReport {
                id: case.id.clone(),
                verdict: Verdict::Skip(reason),
                got: None,
            }
        }
    };
    match run_guarded(backend, case) {
        Ok(got) => {
            let mismatches = compare_case(case, &got, &levels);
            let verdict = if mismatches.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail(mismatches)
            };
            CaseReport {
                id: case.id.clone(),
                verdict,
                got: Some(got),
            }
        }
        Err(f) => CaseReport {
            id: case.id.clone(),
            verdict: Verdict::BackendFailure(f),
            got: None,
        },
    }
}

/// A human account of a failure: the case, its source, every difference, and a Python
/// snippet that reproduces it in torch.
pub fn describe_failure(loaded: &LoadedCase, report: &CaseReport) -> String {
    let case = &loaded.case;
    let mut s = String::new();
    let _ = writeln!(s, "case {} ({})", case.id, loaded.file.display());
    let src = &case.source;
    if let (Some(doc), line) = (&src.doc, src.line) {
        let _ = writeln!(
            s,
            "  source: {doc}{}",
            line.map(|l| format!(":{l}")).unwrap_or_default()
        );
    }
    if let Some(g) = &src.generator {
        let number = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
        let _ = writeln!(
            s,
            "  source: generator {g}, seed {}, index {}",
            number(src.seed),
            number(src.index)
        );
    }
    if let Some(r) = &src.regression {
        let _ = writeln!(s, "  source: regression: {r}");
    }
    if let Some(op) = &src.opinfo {
        let variant = src
            .variant
            .as_ref()
            .map_or(String::new(), |v| format!(" ({v})"));
        let input = match (src.sample, src.error_input, &src.dtype) {
            (Some(i), _, Some(d)) => format!("{d} sample {i}"),
            (Some(i), _, None) => format!("sample {i}"),
            (None, Some(i), _) => format!("error input {i}"),
            (None, None, _) => "?".to_string(),
        };
        let _ = writeln!(s, "  source: OpInfo {op}{variant}, {input}");
    }
    match &report.verdict {
        Verdict::Fail(ms) => {
            for m in ms {
                let _ = writeln!(s, "  {m}");
            }
        }
        Verdict::BackendFailure(f) => {
            let _ = writeln!(s, "  backend failure ({}): {f}", f.kind.name());
        }
        Verdict::Pass | Verdict::Skip(_) => {}
    }
    let _ = writeln!(s, "  reproduce in torch:");
    for line in python_snippet(case).lines() {
        let _ = writeln!(s, "    {line}");
    }
    s
}

/// Text on one line (control characters, line breaks included, as spaces), clipped to 1000
/// characters.
pub(crate) fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out: String = flat.chars().take(1000).collect();
    if out.len() < flat.len() {
        out.push_str("...");
    }
    out
}
