//! Comparing an outcome with the expectation, level by level. Every difference becomes a
//! [`Mismatch`] naming the level, the place, and both values.

use crate::Level;
use crate::{
    Case, ErrorStage, Num, OkOutcome, Outcome, ResultValue, StorageSpec, TensorResult, Tolerance,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One difference between expected and actual.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The level whose check failed.
    pub level: Level,
    /// Where in the outcome (`result.values[3]`, `error message`, `storage s`).
    pub place: String,
    /// What torch gave there, as text.
    pub expected: String,
    /// What the backend gave there, as text (backend text clipped).
    pub got: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}: expected {}, got {}",
            self.level, self.place, self.expected, self.got
        )
    }
}

struct Diff<'a> {
    levels: &'a BTreeSet<Level>,
    tolerance: Option<Tolerance>,
    /// The tolerance of gradient values (the grad spec's, else the case's).
    grad_tolerance: Option<Tolerance>,
    /// The case's input storages, whose dtypes say how storages written in place compare.
    storages: Option<&'a BTreeMap<String, StorageSpec>>,
    out: Vec<Mismatch>,
}

impl Diff<'_> {
    fn check(&mut self, level: Level, place: &str, expected: String, got: String) {
        self.check_with(level, None, place, expected, got);
    }

    /// A check of `level` that also needs `also` claimed (a gradient's strides need `grads`
    /// and `strides`); the mismatch is `level`'s.
    fn check_with(
        &mut self,
        level: Level,
        also: Option<Level>,
        place: &str,
        expected: String,
        got: String,
    ) {
        let claimed = self.levels.contains(&level) && also.is_none_or(|l| self.levels.contains(&l));
        if claimed && expected != got {
            self.out.push(Mismatch {
                level,
                place: place.to_string(),
                expected,
                got,
            });
        }
    }
}

/// Compares `got` with the case's expectation at the claimed `levels`.
///
/// ```
/// use bcast_case::Level;
/// use bcast_case::{ErrorOutcome, Outcome};
/// use bcast_case::compare::compare_outcomes;
/// let want = Outcome::Error(ErrorOutcome::new("RuntimeError", "a"));
/// let got = Outcome::Error(ErrorOutcome::new("RuntimeError", "b"));
/// let levels = [Level::Errors].into_iter().collect();
/// assert!(compare_outcomes(&want, &got, None, &levels).is_empty());
/// let levels = [Level::Messages].into_iter().collect();
/// assert_eq!(compare_outcomes(&want, &got, None, &levels).len(), 1);
/// ```
pub fn compare_outcomes(
    expected: &Outcome,
    got: &Outcome,
    tolerance: Option<Tolerance>,
    levels: &BTreeSet<Level>,
) -> Vec<Mismatch> {
    compare_with(expected, got, tolerance, None, levels)
}

/// Compares `got` with `expected` as [`compare_case`] compares them for `case` (whose own
/// `expect` is not read): with the case's tolerances (its gradients' too) and its storages'
/// dtypes. What a differential run uses, so that it judges a case as the runner will judge
/// the fixture it writes.
///
/// ```
/// use bcast_case::compare::compare_outcomes_of;
/// use bcast_case::{Case, Level, Outcome};
/// let case: Case = serde_json::from_str(r#"{"id": "c", "call": {"fn": "Tensor.numel"},
///     "grad": {"wrt": [], "upstream": [], "tolerance": {"rtol": 0.1, "atol": 0}}}"#).unwrap();
/// let ok = |g: f64| -> Outcome { serde_json::from_value(serde_json::json!({"ok": {
///     "result": {"int": 1},
///     "grads": {"t": {"shape": [], "dtype": "float64", "strides": [], "values": [g]}}}})).unwrap() };
/// let levels = [Level::Grads].into_iter().collect();
/// assert!(compare_outcomes_of(&case, &ok(1.0), &ok(1.05), &levels).is_empty());
/// assert_eq!(compare_outcomes_of(&case, &ok(1.0), &ok(1.2), &levels).len(), 1);
/// ```
pub fn compare_outcomes_of(
    case: &Case,
    expected: &Outcome,
    got: &Outcome,
    levels: &BTreeSet<Level>,
) -> Vec<Mismatch> {
    compare_with(expected, got, case.tolerance, Some(case), levels)
}

fn compare_with(
    expected: &Outcome,
    got: &Outcome,
    tolerance: Option<Tolerance>,
    case: Option<&Case>,
    levels: &BTreeSet<Level>,
) -> Vec<Mismatch> {
    let grad_tolerance = case
        .and_then(|c| c.grad.as_ref())
        .and_then(|g| g.tolerance)
        .or(tolerance);
    let mut d = Diff {
        levels,
        tolerance,
        grad_tolerance,
        storages: case.map(|c| &c.storages),
        out: Vec::new(),
    };
    match (expected, got) {
        (Outcome::Error(e), Outcome::Error(g)) => {
            d.check(Level::Errors, "error type", quote(&e.kind), quote(&g.kind));
            d.check(
                Level::Messages,
                "error message",
                quote(&e.message),
                quote(&g.message),
            );
            d.check(
                Level::Grads,
                "error stage",
                stage_text(e.stage),
                stage_text(g.stage),
            );
        }
        (Outcome::Ok(e), Outcome::Ok(g)) => compare_ok(&mut d, e, g),
        (e, g) => {
            // One raised and the other did not: checked whatever the levels.
            d.out.push(Mismatch {
                level: Level::ALWAYS,
                place: "outcome".to_string(),
                expected: outcome_summary(e),
                got: outcome_summary(g),
            });
        }
    }
    d.out
}

/// Compares a case's expectation with `got`, storages written in place by their dtypes. A
/// case without expectation never agrees with anything.
///
/// ```
/// use bcast_case::Level;
/// use bcast_case::{Case, Outcome};
/// use bcast_case::compare::compare_case;
/// let case: Case = serde_json::from_str(r#"{"id": "c", "call": {"fn": "Tensor.numel"}}"#).unwrap();
/// let got: Outcome = serde_json::from_str(r#"{"ok": {"result": {"int": 0}}}"#).unwrap();
/// assert_eq!(compare_case(&case, &got, &[Level::Shapes].into()).len(), 1);
/// ```
pub fn compare_case(case: &Case, got: &Outcome, levels: &BTreeSet<Level>) -> Vec<Mismatch> {
    match &case.expect {
        Some(expected) => compare_with(expected, got, case.tolerance, Some(case), levels),
        None => vec![Mismatch {
            level: Level::ALWAYS,
            place: "expect".to_string(),
            expected: "an expectation in the case".to_string(),
            got: "a case without `expect`, which nothing can pass".to_string(),
        }],
    }
}

/// How the elements of a dtype compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elements {
    /// Floating (`float16`, `bfloat16`, `float32`, `float64`, and each part of `complex32`,
    /// `complex64` and `complex128`): numerically, within the case's tolerance, exactly without one
    /// (torch's CPU kernels are deterministic; a case that wants slack gives a tolerance).
    Floating,
    /// Integer or bool: exactly, and a float is never an integer.
    Exact,
    /// Unknown dtype (a storage compared without the case's specs): numerically, within the
    /// tolerance, as floats are.
    Unknown,
}

impl Elements {
    fn of(dtype: &str) -> Elements {
        if dtype.starts_with("float") || dtype.starts_with("bfloat") || dtype.starts_with("complex")
        {
            Elements::Floating
        } else if dtype == "bool" || dtype.starts_with("int") || dtype.starts_with("uint") {
            Elements::Exact
        } else {
            Elements::Unknown
        }
    }
}

/// Backend text in a mismatch: clipped, then quoted.
fn quote(s: &str) -> String {
    format!("{:?}", crate::quote::clip_text(s))
}

fn outcome_summary(o: &Outcome) -> String {
    match o {
        Outcome::Ok(ok) => summary(&ok.result),
        Outcome::Error(e) => format!(
            "{}: {}",
            crate::quote::clip_text(&e.kind),
            quote(&e.message)
        ),
    }
}

fn summary(r: &ResultValue) -> String {
    match r {
        ResultValue::Tensor(t) => format!("a tensor of shape {}", shape_text(&t.shape)),
        ResultValue::Tensors(ts) => format!("{} tensors", ts.len()),
        ResultValue::Size(s) => format!("torch.Size({s:?})"),
        ResultValue::Int(i) => format!("{i}"),
        ResultValue::Bool(b) => format!("{b}"),
        ResultValue::NotImplemented => "NotImplemented".into(),
    }
}

fn compare_ok(d: &mut Diff, e: &OkOutcome, g: &OkOutcome) {
    match (&e.result, &g.result) {
        (ResultValue::Tensor(et), ResultValue::Tensor(gt)) => {
            compare_tensor(d, "result", et, gt, &RESULT_LEVELS)
        }
        (ResultValue::Tensors(ets), ResultValue::Tensors(gts)) => {
            d.check(
                Level::Shapes,
                "number of results",
                ets.len().to_string(),
                gts.len().to_string(),
            );
            for (i, (et, gt)) in ets.iter().zip(gts).enumerate() {
                compare_tensor(d, &format!("result[{i}]"), et, gt, &RESULT_LEVELS);
            }
        }
        (er, gr) => d.check(
            Level::Shapes,
            "result",
            format!("{er:?}"),
            format!("{gr:?}"),
        ),
    }
    match (&e.storages, &g.storages) {
        (Some(es), Some(gs)) => {
            for (name, ev) in es {
                match gs.get(name) {
                    Some(gv) => {
                        let elements = d
                            .storages
                            .and_then(|s| s.get(name))
                            .map_or(Elements::Unknown, |spec| Elements::of(&spec.dtype));
                        let tolerance = d.tolerance;
                        compare_values(
                            d,
                            Level::Inplace,
                            &format!("storage {name}"),
                            elements,
                            tolerance,
                            ev,
                            gv,
                        )
                    }
                    None => d.check(
                        Level::Inplace,
                        &format!("storage {name}"),
                        "its contents".into(),
                        "nothing".into(),
                    ),
                }
            }
        }
        (Some(_), None) => d.check(
            Level::Inplace,
            "storages",
            "written".into(),
            "not reported".into(),
        ),
        (None, Some(gs)) => {
            let names: Vec<&String> = gs.keys().collect();
            d.check(
                Level::Inplace,
                "storages",
                "unchanged".into(),
                format!("written: {names:?}"),
            );
        }
        (None, None) => {}
    }
    compare_backward(d, e, g);
}

/// Where an error was raised, as text.
fn stage_text(stage: Option<ErrorStage>) -> String {
    match stage {
        Some(ErrorStage::RequiresGrad) => "when requires_grad was set".into(),
        None => "by the call".into(),
    }
}

/// The backward of a case with gradients: the gradients, or the error it raised.
fn compare_backward(d: &mut Diff, e: &OkOutcome, g: &OkOutcome) {
    let backward = |o: &OkOutcome| match (&o.grads, &o.backward_error) {
        (Some(_), _) => "gradients".to_string(),
        (None, Some(err)) => format!(
            "raised {}: {}",
            crate::quote::clip_text(&err.kind),
            quote(&err.message)
        ),
        (None, None) => "no backward reported".to_string(),
    };
    match (&e.grads, &e.backward_error, &g.grads, &g.backward_error) {
        (Some(eg), _, Some(gg), _) => {
            for (name, want) in eg {
                let place = format!("grad {name}");
                match (want, gg.get(name)) {
                    (Some(wt), Some(Some(gt))) => compare_tensor(d, &place, wt, gt, &GRAD_LEVELS),
                    (None, Some(None)) => {}
                    (want, got) => {
                        let text = |t: Option<&Option<TensorResult>>| match t {
                            Some(Some(t)) => format!("a tensor of shape {}", shape_text(&t.shape)),
                            Some(None) => "none (the results do not depend on it)".to_string(),
                            None => "not reported".to_string(),
                        };
                        d.check(Level::Grads, &place, text(Some(want)), text(got));
                    }
                }
            }
            let extra: Vec<&String> = gg.keys().filter(|k| !eg.contains_key(*k)).collect();
            if !extra.is_empty() {
                d.check(
                    Level::Grads,
                    "grads",
                    "no other gradients".into(),
                    format!("gradients of {extra:?}"),
                );
            }
        }
        (None, Some(ee), None, Some(ge)) => {
            d.check_with(
                Level::Grads,
                Some(Level::Errors),
                "backward error type",
                quote(&ee.kind),
                quote(&ge.kind),
            );
            d.check_with(
                Level::Grads,
                Some(Level::Messages),
                "backward error message",
                quote(&ee.message),
                quote(&ge.message),
            );
        }
        // A case without gradients expects no backward.
        (None, None, _, _) => {}
        _ => d.check(Level::Grads, "backward", backward(e), backward(g)),
    }
}

/// The levels of a tensor's checks: a result's, or a gradient's.
struct TensorLevels {
    shape: Level,
    dtype: Level,
    values: Level,
    strides: (Level, Option<Level>),
    aliasing: (Level, Option<Level>),
}

/// A result tensor's levels.
const RESULT_LEVELS: TensorLevels = TensorLevels {
    shape: Level::Shapes,
    dtype: Level::Dtypes,
    values: Level::Values,
    strides: (Level::Strides, None),
    aliasing: (Level::Aliasing, None),
};

/// A gradient's levels: `grads`, and for its layout `strides` or `aliasing` as well.
const GRAD_LEVELS: TensorLevels = TensorLevels {
    shape: Level::Grads,
    dtype: Level::Grads,
    values: Level::Grads,
    strides: (Level::Grads, Some(Level::Strides)),
    aliasing: (Level::Grads, Some(Level::Aliasing)),
};

/// A shape as text, `[3, 4]`, with an answer's size beyond int64 written so.
fn shape_text(shape: &[i64]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|&d| {
            if d == crate::BEYOND_I64 {
                "(beyond int64)".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

/// Strides as text, `[4, 1]`, with an answer's stride beyond `usize` written so.
fn strides_text(strides: &[usize]) -> String {
    let dims: Vec<String> = strides
        .iter()
        .map(|&d| {
            if d == crate::BEYOND_USIZE {
                "(beyond int64)".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

fn compare_tensor(
    d: &mut Diff,
    place: &str,
    e: &TensorResult,
    g: &TensorResult,
    levels: &TensorLevels,
) {
    d.check(
        levels.shape,
        &format!("{place}.shape"),
        shape_text(&e.shape),
        shape_text(&g.shape),
    );
    d.check(
        levels.dtype,
        &format!("{place}.dtype"),
        crate::quote::clip_text(&e.dtype),
        crate::quote::clip_text(&g.dtype),
    );
    d.check_with(
        levels.strides.0,
        levels.strides.1,
        &format!("{place}.strides"),
        strides_text(&e.strides),
        strides_text(&g.strides),
    );
    d.check_with(
        levels.aliasing.0,
        levels.aliasing.1,
        &format!("{place}.storage"),
        format!("{:?}", e.storage),
        format!("{:?}", g.storage),
    );
    // Where the result lives in its storage, whether it views an input's or its own (a fresh
    // result's offset is torch's too: 0, or where a view of an empty result starts).
    if e.storage == g.storage {
        d.check_with(
            levels.aliasing.0,
            levels.aliasing.1,
            &format!("{place}.offset"),
            e.offset.to_string(),
            g.offset.to_string(),
        );
    }
    if e.shape != g.shape {
        return;
    }
    let elements = Elements::of(&e.dtype);
    let tolerance = if levels.values == Level::Grads {
        d.grad_tolerance
    } else {
        d.tolerance
    };
    let values = levels.values;
    match (&e.values, &e.samples) {
        (Some(ev), _) => match &g.values {
            Some(gv) => compare_values(
                d,
                values,
                &format!("{place}.values"),
                elements,
                tolerance,
                ev,
                gv,
            ),
            None => d.check(
                values,
                &format!("{place}.values"),
                "all values".into(),
                "samples".into(),
            ),
        },
        (None, Some(es)) => {
            let got_at = |i: usize| -> Option<Num> {
                match (&g.values, &g.samples) {
                    (Some(gv), _) => gv.get(i).copied(),
                    (None, Some(gs)) => gs.iter().find(|(k, _)| *k == i).map(|(_, v)| *v),
                    (None, None) => None,
                }
            };
            let ev: Vec<Num> = es.iter().map(|(_, v)| *v).collect();
            let gv: Vec<Num> = es
                .iter()
                .map(|(i, _)| got_at(*i).unwrap_or(Num::Float(f64::NAN)))
                .collect();
            compare_values(
                d,
                values,
                &format!("{place}.samples"),
                elements,
                tolerance,
                &ev,
                &gv,
            );
        }
        (None, None) => {}
    }
}

/// Whether two elements agree: NaN equals NaN, `0.0` equals `-0.0`, and floats may differ
/// within the tolerance, `|got - want| <= atol + rtol * |want|`. Integers and bools agree
/// only when equal. A complex value agrees with a complex value part by part, each part as a
/// float with the same tolerance (`|got.re - want.re| <= atol + rtol * |want.re|`, and the
/// same for `im`), or, with a tolerance and finite parts, as `torch.isclose` compares complex
/// numbers: `|got - want| <= atol + rtol * |want|` in complex magnitude (so a part far smaller
/// than the other may carry the other's rounding). Never with a real one.
///
/// ```
/// use bcast_case::{values_agree, Num, Tolerance};
/// let tol = Some(Tolerance { rtol: 0.0, atol: 0.01 });
/// assert!(values_agree(Num::Complex(1.0, f64::NAN), Num::Complex(1.0, f64::NAN), None));
/// assert!(values_agree(Num::Complex(1.0, 2.0), Num::Complex(1.005, 1.995), tol));
/// assert!(!values_agree(Num::Complex(1.0, 2.0), Num::Complex(1.0, 2.5), tol));
/// let rel = Some(Tolerance { rtol: 1e-5, atol: 0.0 });
/// assert!(values_agree(Num::Complex(3.5e22, 1e30), Num::Complex(2.8e22, 1e30), rel));
/// assert!(!values_agree(Num::Complex(3.5e22, 1e30), Num::Complex(2.8e22, 1e30), None));
/// assert!(!values_agree(Num::Complex(1.0, 0.0), Num::Float(1.0), None));
/// ```
pub fn values_agree(e: Num, g: Num, tolerance: Option<Tolerance>) -> bool {
    match (e, g) {
        (Num::Bool(a), Num::Bool(b)) => a == b,
        (Num::Int(a), Num::Int(b)) => a == b,
        (Num::Bool(_), _) | (_, Num::Bool(_)) => false,
        (Num::Complex(er, ei), Num::Complex(gr, gi)) => {
            (floats_agree(er, gr, tolerance) && floats_agree(ei, gi, tolerance))
                || tolerance.is_some_and(|t| {
                    [er, ei, gr, gi].iter().all(|p| p.is_finite())
                        && (gr - er).hypot(gi - ei) <= t.atol + t.rtol * er.hypot(ei)
                })
        }
        (Num::Complex(..), _) | (_, Num::Complex(..)) => false,
        (a, b) => floats_agree(a.to_f64(), b.to_f64(), tolerance),
    }
}

fn floats_agree(a: f64, b: f64, tolerance: Option<Tolerance>) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    match tolerance {
        Some(t) if a.is_finite() && b.is_finite() => (a - b).abs() <= t.atol + t.rtol * a.abs(),
        _ => false,
    }
}

fn compare_values(
    d: &mut Diff,
    level: Level,
    place: &str,
    elements: Elements,
    tolerance: Option<Tolerance>,
    e: &[Num],
    g: &[Num],
) {
    if e.len() != g.len() {
        d.check(
            level,
            &format!("{place} length"),
            e.len().to_string(),
            g.len().to_string(),
        );
        return;
    }
    let tolerance = match elements {
        Elements::Floating | Elements::Unknown => tolerance,
        Elements::Exact => None,
    };
    let agree = |a: Num, b: Num| match (elements, a, b) {
        // An integer is compared as an integer: no float stands for one, however close.
        (Elements::Exact, Num::Int(_), Num::Float(_)) => false,
        _ => values_agree(a, b, tolerance),
    };
    let bad: Vec<usize> = (0..e.len()).filter(|&i| !agree(e[i], g[i])).collect();
    if let Some(&first) = bad.first() {
        let detail = if bad.len() > 1 {
            format!(" (and {} more)", bad.len() - 1)
        } else {
            String::new()
        };
        let got = match (elements, g[first]) {
            (Elements::Exact, Num::Float(f)) => {
                format!("{f:?}, a float where the dtype holds integers")
            }
            (_, other) => show(other),
        };
        d.check(
            level,
            &format!("{place}[{first}]{detail}"),
            show(e[first]),
            got,
        );
    }
}

fn show(n: Num) -> String {
    match n {
        Num::Bool(b) => b.to_string(),
        Num::Int(i) => i.to_string(),
        Num::Float(f) => format!("{f:?}"),
        Num::Complex(re, im) => format!("[{re:?}, {im:?}]"),
    }
}
