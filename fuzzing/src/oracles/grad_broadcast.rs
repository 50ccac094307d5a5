//! The broadcast law of gradients: for an op that broadcasts its inputs, the gradient of an
//! input that was stretched equals the sum, over the dims it was stretched along, of the same
//! op's gradient when that input is given already expanded (materialized, as
//! `t.expand(shape).contiguous()` makes it) to the broadcast shape. It is what every
//! implementation with autodiff must get right when it undoes broadcasting on the way back
//! (burn #181, aesara #1089, nd4j #2424, rust-autograd #38), and it needs no torch: the
//! engine is checked against itself.
//!
//! One check draws a case of a broadcasting family (element-wise binary and ternary ops,
//! `where`, in-place forms, `copy_`, `expand`/`broadcast_to`/`expand_as`,
//! `broadcast_tensors`, promotion, reflected operators) with its gradients asked for
//! ([`crate::generators::with_grad`]), runs it through the reference engine's gradient path, then
//! runs its *twin*: every tensor argument whose shape is not the result's given a storage of
//! its own holding its elements expanded to the result's shape (a 0-d one kept as it is when
//! expanding it would change the call's type promotion, since a 0-d tensor promotes as a
//! scalar; `masked_fill`'s value, which must be 0-d, kept too). The twin's gradient of each
//! such input is summed here, in `f64`, over the stretched dims and compared with the
//! original's gradient (shape, dtype, values); the gradients of the inputs that were not
//! stretched must be the twin's as they are; an input the results do not depend on must have
//! no gradient in both.
//!
//! Half the draws give every floating and integer storage small integers (-2 to 2) first.
//! Then for the ops whose backward is exact on such values (sums, products, `where`,
//! `maximum` and its kin with torch's tie split, `clamp`, `lerp`, `addcmul`, `copysign`,
//! `copy_`, the expanding views) with Python numbers that are small integers too, the sums
//! must be **exact**: every partial sum is an integer the narrowest dtype holds (an element
//! whose terms add up to more than a quarter of that dtype's exact-integer range is compared
//! within tolerance instead). Otherwise the tolerance is that of a sum of `n` terms rounded to
//! the gradient's and the result's dtypes: `(n + 2) · u · Σ|terms|` with `u` the larger unit
//! roundoff, plus the dtype's smallest subnormal per term; an element with a term that is not
//! finite, or a sum beyond a quarter of the dtype's range, is not compared (torch's own
//! overflow then depends on the order of summation). The oracle **panics** on a difference.
//!
//! ```
//! use bcast_fuzzing::oracles::grad_broadcast::check;
//! // Bytes drawn by a fixed recipe, as a fuzzer would hand them over.
//! let bytes = |k: u64| (0..64u64).map(|i| bcast_case::splitmix64(k * 64 + i).1 as u8).collect::<Vec<u8>>();
//! let stretched: usize = (0..64).map(|k| check(&bytes(k)).stretched).sum();
//! assert!(stretched > 0);
//! ```

use super::gradcheck::RunGrad;
use super::materialize::{broadcast_elements, give_own_storage};
use crate::generators::{
    consistent_alpha, consistent_remainders, find_family, input_names, with_grad,
};
use arbitrary::Unstructured;
use bcast_conformance::backend::reference::run_reference;
use bcast_conformance::case::{
    storage_values, Arg, Case, Num, OkOutcome, Outcome, ResultValue, TensorResult,
};
use bcast_conformance::ops;
use bcast_engine::index_map::unravel;
use bcast_engine::DType;

/// The families a check draws from, each as often as it is listed.
const FAMILIES: &[&str] = &[
    "binary",
    "binary",
    "binary",
    "binary_math",
    "binary_math",
    "ternary",
    "ternary",
    "where",
    "where",
    "inplace",
    "inplace",
    "copy",
    "expand",
    "broadcast_tensors",
    "promotion",
    "reflected",
];

/// The ops whose backward on small integers is exact (each gradient a sum of products of
/// the inputs' values, halves of them for a tie).
const EXACT_OPS: &[&str] = &[
    "add",
    "sub",
    "subtract",
    "rsub",
    "mul",
    "multiply",
    "maximum",
    "minimum",
    "max",
    "min",
    "fmax",
    "fmin",
    "where",
    "masked_fill",
    "clamp",
    "clamp_min",
    "clamp_max",
    "lerp",
    "addcmul",
    "copysign",
    "copy",
    "expand",
    "expand_as",
    "broadcast_to",
    "broadcast_tensors",
];

/// The view ops that broadcast (the rest of the views family does not).
const BROADCASTING_VIEWS: &[&str] = &["expand", "expand_as", "broadcast_to", "broadcast_tensors"];

/// What one check compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Inputs that require grad and were stretched, whose gradients were compared.
    pub stretched: usize,
    /// Of those, the ones compared exactly.
    pub exact: usize,
    /// Inputs that require grad and were not stretched, compared as they are.
    pub unstretched: usize,
}

/// How many cases one check may draw before one has an input that requires grad to compare
/// (a case that raises, or whose op does not broadcast, has none).
pub const DRAWS: usize = 4;

/// Checks the cases `bytes` draw (see the [module](self)), up to [`DRAWS`] until one compares
/// something; panics on a difference.
pub fn check(bytes: &[u8]) -> Checked {
    let mut u = Unstructured::new(bytes);
    for _ in 0..DRAWS {
        let checked = match draw(&mut u) {
            Ok(Some((case, integers))) => check_case(&case, integers),
            Ok(None) => Checked::default(),
            Err(_) => break,
        };
        if checked != Checked::default() {
            return checked;
        }
    }
    Checked::default()
}

/// A case of one of [`FAMILIES`] with gradients, and whether to give it small integers.
fn draw(u: &mut Unstructured) -> arbitrary::Result<Option<(Case, bool)>> {
    let integers = u.arbitrary::<bool>()?;
    let name = *u.choose(FAMILIES)?;
    let family = find_family(name).ok_or(arbitrary::Error::IncorrectFormat)?;
    let mut inner = (family.generate)(u)?;
    consistent_alpha(&mut inner);
    consistent_remainders(&mut inner);
    Ok(with_grad(u, inner)?.map(|case| (case, integers)))
}

/// Whether the law applies to the op `fn_name` calls: an element-wise op that broadcasts, or
/// a view that broadcasts.
fn broadcasts(fn_name: &str) -> Option<&'static str> {
    let (op, _) = ops::lookup(fn_name)?;
    use ops::Family::*;
    match op.family {
        Binary | Where | Ternary | Copy => Some(op.name),
        Views if BROADCASTING_VIEWS.contains(&op.name) => Some(op.name),
        _ => None,
    }
}

/// [`check`] for a given case; `integers` gives its storages small integers first.
pub fn check_case(case: &Case, integers: bool) -> Checked {
    check_case_with(case, integers, &run_reference)
}

/// [`check_case`] with both calls run by `run` (for tests of the oracle: a backward made
/// wrong on purpose).
pub fn check_case_with(case: &Case, integers: bool, run: RunGrad) -> Checked {
    let Some(op) = broadcasts(&case.call.fn_) else {
        return Checked::default();
    };
    if case.call.kwargs.contains_key("out") {
        return Checked::default();
    }
    let Some(spec) = case.grad.clone() else {
        return Checked::default();
    };
    let case = if integers {
        match with_small_integers(case) {
            Some(c) => c,
            None => return Checked::default(),
        }
    } else {
        case.clone()
    };
    let json = || serde_json::to_string(&case).unwrap_or_default();
    let Some(original) = gradients(&case, run) else {
        return Checked::default();
    };
    let results = result_tensors(&original.result);
    let Some(shape) = results.first().and_then(|t| usize_shape(&t.shape)) else {
        return Checked::default();
    };
    // The inputs to expand: the call's tensors whose shape is not the result's.
    let inputs = input_names(&case);
    let stretched_names: Vec<&String> = inputs
        .iter()
        .filter(|n| case.tensors.get(*n).is_some_and(|t| t.shape != shape))
        .filter(|n| !(op == "masked_fill" && is_masked_fill_value(&case, n)))
        .collect();
    if stretched_names.is_empty() {
        return Checked::default();
    }
    let dims_of = |n: &str| case.tensors.get(n).map_or(0, |t| t.shape.len());
    let twin_with = |zero_d: bool| -> Option<(Case, OkOutcome)> {
        let mut twin = case.clone();
        for name in &stretched_names {
            if !zero_d && dims_of(name) == 0 {
                continue;
            }
            let values = broadcast_elements(&case, name, &shape)?;
            give_own_storage(&mut twin, name, &shape, values);
        }
        let ok = gradients(&twin, run)?;
        let same_dtypes = result_tensors(&ok.result)
            .iter()
            .map(|t| &t.dtype)
            .eq(results.iter().map(|t| &t.dtype));
        same_dtypes.then_some((twin, ok))
    };
    let (twin, expanded) = match twin_with(true).or_else(|| twin_with(false)) {
        Some(found) => found,
        None => panic!(
            "grad_broadcast: the call on pre-expanded inputs fails or changes its result \
             dtypes where the broadcast call ran: {}",
            json()
        ),
    };
    let exact = integers && EXACT_OPS.contains(&op) && small_integer_numbers(&case);
    let precision = narrowest_precision(&case, &results);
    if exact {
        same_results(&original, &expanded)
            .unwrap_or_else(|why| panic!("grad_broadcast: the forward differs: {why}: {}", json()));
    }
    let grads = original.grads.clone().unwrap_or_default();
    let twin_grads = expanded.grads.clone().unwrap_or_default();
    let mut checked = Checked::default();
    let mut seen: Vec<&String> = Vec::new();
    for name in &spec.wrt {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let (Some(t), Some(twin_t)) = (case.tensors.get(name), twin.tensors.get(name)) else {
            continue;
        };
        let dtype = case
            .storages
            .get(&t.storage)
            .and_then(|s| DType::from_name(&s.dtype));
        let (g, tg) = (
            grads.get(name).cloned().flatten(),
            twin_grads.get(name).cloned().flatten(),
        );
        let (g, tg) = match (g, tg) {
            (None, None) => continue,
            (Some(g), Some(tg)) => (g, tg),
            (g, tg) => panic!(
                "grad_broadcast: {name} has {} gradient, and {} on pre-expanded inputs: {}",
                if g.is_some() { "a" } else { "no" },
                if tg.is_some() { "one" } else { "none" },
                json()
            ),
        };
        let Some(dtype) = dtype else { continue };
        let fail = |why: String| -> ! {
            panic!("grad_broadcast: the gradient of {name}: {why}: {}", json())
        };
        if usize_shape(&g.shape).as_deref() != Some(t.shape.as_slice())
            || g.dtype != dtype.name()
            || tg.dtype != dtype.name()
        {
            fail(format!(
                "shape {:?} and dtype {}, on pre-expanded inputs {}, for an input of {:?} {}",
                g.shape,
                g.dtype,
                tg.dtype,
                t.shape,
                dtype.name()
            ));
        }
        let (Some(values), Some(twin_values)) = (&g.values, &tg.values) else {
            continue;
        };
        let stretched = twin_t.shape != t.shape;
        let sums = match summed_over_stretched(twin_values, &twin_t.shape, &t.shape) {
            Some(s) => s,
            None => fail("the pre-expanded gradient does not fit its input".to_string()),
        };
        let rule = Rule {
            exact,
            precision,
            unit: unit_roundoff(dtype, &results),
            tiny: smallest_subnormal(dtype),
            max: largest_finite(dtype),
        };
        for (k, (got, sum)) in values.iter().zip(&sums).enumerate() {
            if let Err(why) = rule.compare(*got, sum) {
                fail(format!(
                    "element {k} is {got:?}, the sum of its {} terms on pre-expanded inputs \
                     is {:?} ({why})",
                    sum.terms, sum.value
                ));
            }
        }
        if stretched {
            checked.stretched += 1;
            checked.exact += usize::from(exact);
        } else {
            checked.unstretched += 1;
        }
    }
    checked
}

/// The case through the reference engine's gradient path: its outcome when the forward and
/// the backward ran.
fn gradients(case: &Case, run: RunGrad) -> Option<OkOutcome> {
    match run(case) {
        Ok(Outcome::Ok(ok)) if ok.grads.is_some() => Some(ok),
        _ => None,
    }
}

fn result_tensors(result: &ResultValue) -> Vec<TensorResult> {
    match result {
        ResultValue::Tensor(t) => vec![t.clone()],
        ResultValue::Tensors(ts) => ts.clone(),
        _ => Vec::new(),
    }
}

fn usize_shape(shape: &[i64]) -> Option<Vec<usize>> {
    shape.iter().map(|&d| usize::try_from(d).ok()).collect()
}

/// Whether `name` is `masked_fill`'s value (its third argument, or `value=`).
fn is_masked_fill_value(case: &Case, name: &str) -> bool {
    let is = |a: Option<&Arg>| matches!(a, Some(Arg::Tensor(n)) if n == name);
    is(case.call.args.get(2)) || is(case.call.kwargs.get("value"))
}

/// `case` with every floating, complex and integer storage holding small integers (-2 to 2,
/// 0 to 2 for `uint8`; both parts of a complex value), drawn from each storage's values.
fn with_small_integers(case: &Case) -> Option<Case> {
    let mut out = case.clone();
    for spec in out.storages.values_mut() {
        let dtype = DType::from_name(&spec.dtype)?;
        if dtype == DType::Bool {
            continue;
        }
        let small = |v: f64| -> f64 {
            if !v.is_finite() {
                return 1.0;
            }
            let k = (v * 4.0).round().rem_euclid(5.0);
            if dtype == DType::UInt8 {
                k.min(2.0)
            } else {
                k - 2.0
            }
        };
        let values = storage_values(spec).ok()?;
        let values = values
            .into_iter()
            .map(|v| match v {
                Num::Complex(re, im) => Num::Complex(small(re), small(im)),
                Num::Int(i) => Num::Int(small(i as f64) as i64),
                v => Num::Float(small(v.to_f64())),
            })
            .collect();
        spec.values = Some(values);
        spec.fill = None;
    }
    Some(out)
}

/// Whether every Python number the call passes is a small integer (a bool, or an integral
/// value of magnitude at most 4; both parts of a complex one).
fn small_integer_numbers(case: &Case) -> bool {
    let small = |v: f64| v.is_finite() && v.fract() == 0.0 && v.abs() <= 4.0;
    case.call
        .args
        .iter()
        .chain(case.call.kwargs.values())
        .all(|arg| match arg {
            Arg::Int(i) => i.unsigned_abs() <= 4,
            Arg::Float(n) => small(n.to_f64()),
            Arg::Complex(Num::Complex(re, im)) => small(*re) && small(*im),
            Arg::Complex(_) => false,
            _ => true,
        })
}

/// The bits of precision of the narrowest floating dtype among the case's storages and
/// results.
fn narrowest_precision(case: &Case, results: &[TensorResult]) -> u32 {
    case.storages
        .values()
        .map(|s| s.dtype.as_str())
        .chain(results.iter().map(|t| t.dtype.as_str()))
        .filter_map(DType::from_name)
        .filter_map(precision)
        .min()
        .unwrap_or(53)
}

/// Significand bits (the implicit one counted) of a floating or complex dtype.
fn precision(dtype: DType) -> Option<u32> {
    match dtype {
        DType::Float16 => Some(11),
        DType::BFloat16 => Some(8),
        DType::Float32 | DType::Complex64 => Some(24),
        DType::Float64 | DType::Complex128 => Some(53),
        _ => None,
    }
}

/// The larger unit roundoff of the gradient's dtype and the results' (where it was computed).
fn unit_roundoff(dtype: DType, results: &[TensorResult]) -> f64 {
    results
        .iter()
        .filter_map(|t| DType::from_name(&t.dtype))
        .chain([dtype])
        .filter_map(precision)
        .map(|p| 2f64.powi(-(p as i32)))
        .fold(0.0, f64::max)
}

fn smallest_subnormal(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2f64.powi(-24),
        DType::BFloat16 => 2f64.powi(-133),
        DType::Float32 | DType::Complex64 => 2f64.powi(-149),
        _ => f64::from_bits(1),
    }
}

fn largest_finite(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 65504.0,
        DType::BFloat16 => 2f64.powi(127) * (2.0 - 2f64.powi(-7)),
        DType::Float32 | DType::Complex64 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// The results of the original and the twin call hold the same values.
fn same_results(a: &OkOutcome, b: &OkOutcome) -> Result<(), String> {
    let (ra, rb) = (result_tensors(&a.result), result_tensors(&b.result));
    for (k, (x, y)) in ra.iter().zip(&rb).enumerate() {
        if x.shape != y.shape || x.values.is_none() || x.values != y.values {
            return Err(format!(
                "result {k}: {:?} {:?} against {:?} {:?}",
                x.shape, x.values, y.shape, y.values
            ));
        }
    }
    Ok(())
}

/// One element of a gradient summed from the twin's: the sum and what bounds its error.
#[derive(Debug, Clone, Copy, Default)]
struct Sum {
    value: (f64, f64),
    /// `Σ |term|`, per part.
    magnitude: (f64, f64),
    terms: usize,
    finite: bool,
}

/// The twin's gradient (of `twin_shape`) summed, in `f64`, over the dims along which `shape`
/// was stretched to it: one [`Sum`] per element of `shape`, in row-major order.
fn summed_over_stretched(
    twin_values: &[Num],
    twin_shape: &[usize],
    shape: &[usize],
) -> Option<Vec<Sum>> {
    let numel = |s: &[usize]| s.iter().product::<usize>();
    if twin_values.len() != numel(twin_shape) {
        return None;
    }
    let lead = twin_shape.len().checked_sub(shape.len())?;
    let own_strides = bcast_engine::layout::contiguous_strides(shape);
    let mut sums = vec![
        Sum {
            finite: true,
            ..Sum::default()
        };
        numel(shape)
    ];
    for (i, v) in twin_values.iter().enumerate() {
        let index = unravel(i, twin_shape);
        let mut at = 0usize;
        for (d, &size) in shape.iter().enumerate() {
            if size != 1 {
                at += index[lead + d] * own_strides[d];
            }
        }
        let (re, im) = match *v {
            Num::Complex(re, im) => (re, im),
            v => (v.to_f64(), 0.0),
        };
        let s = sums.get_mut(at)?;
        s.value.0 += re;
        s.value.1 += im;
        s.magnitude.0 += re.abs();
        s.magnitude.1 += im.abs();
        s.terms += 1;
        s.finite &= re.is_finite() && im.is_finite();
    }
    Some(sums)
}

/// How an element is compared with its sum.
struct Rule {
    exact: bool,
    precision: u32,
    unit: f64,
    tiny: f64,
    max: f64,
}

impl Rule {
    fn compare(&self, got: Num, sum: &Sum) -> Result<(), String> {
        let (gr, gi) = match got {
            Num::Complex(re, im) => (re, im),
            v => (v.to_f64(), 0.0),
        };
        if !sum.finite {
            return Ok(());
        }
        let exact_range = 2f64.powi(self.precision as i32 - 2);
        for (got, value, magnitude) in [
            (gr, sum.value.0, sum.magnitude.0),
            (gi, sum.value.1, sum.magnitude.1),
        ] {
            if self.exact && magnitude <= exact_range {
                if got != value {
                    return Err("exact".to_string());
                }
                continue;
            }
            if magnitude > self.max / 4.0 {
                continue;
            }
            let n = sum.terms as f64;
            let tolerance = (n + 2.0) * self.unit * magnitude + (n + 1.0) * self.tiny;
            if !got.is_finite() || (got - value).abs() > tolerance {
                return Err(format!("tolerance {tolerance:e}"));
            }
        }
        Ok(())
    }
}
