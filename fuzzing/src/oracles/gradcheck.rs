//! The engine's backward against central differences of its own forward, as
//! `torch.autograd.gradcheck` checks an op: in double precision, with gradcheck's `eps`,
//! `atol` and `rtol`, and for complex inputs in torch's convention (the conjugate Wirtinger
//! derivative). No torch is needed: the forward is the engine's.
//!
//! One check, from a case of the `grad` family ([`crate::generators::grad_case`]):
//!
//! 1. **Double precision at a generic point.** Every floating storage becomes `float64`, every
//!    complex one `complex128` (and so do `dtype=` arguments); each value moves by a jitter
//!    of 0.02 to 0.1 either way (a non-finite value or one beyond 16 is drawn again in
//!    [-4, 4] first), so that the quarter steps of the fill recipes make no ties, no zeros
//!    and no integers: the points where `maximum`, `amax`, `clamp`, `abs`, `copysign`,
//!    `floor`, `round`, `remainder` and their kin are not differentiable, and where torch's
//!    formula picks a value by convention (`xlogy(0, y)` sends 0; `maximum`'s tie splits
//!    the gradient), are then off the drawn points. Integer and bool tensors keep their
//!    values.
//! 2. **The analytical side**: the case through the reference engine's gradient path
//!    ([`run_reference`]): the vector-Jacobian product of the drawn upstream gradients
//!    (the case's `upstream`, random values). A case that raises (in the forward, the
//!    backward, or making a leaf) or whose results are not `float64`/`complex128` is not
//!    checked; nor is a call whose gradient in torch is, by torch's own formula, not the
//!    derivative of its forward ([`not_the_derivative`]: `as_strided`, the in-place logical
//!    ops, a comparison's `out=`, `ldexp` by an integer exponent, `0 ** z` for a complex `z`, `pow` by an integer exponent
//!    holding its dtype's lowest value, `round` to decimals finer than `eps`, a Python number that is not finite), which the engine computes as torch does and the corpus pins.
//! 3. **The numerical side**: each `wrt` tensor gets a contiguous storage of its own holding
//!    its elements (so that moving one moves nothing else: a stride-0 leaf has one element
//!    per index, a second view of its storage stays a constant), and the engine's forward
//!    runs with one coordinate moved by `±eps` (a real element, or the real or imaginary part
//!    of a complex one). With `L = Σ Re(conj(v) · f)` over the results (`v` the upstream),
//!    the numerical gradient is `∂L/∂x` for a real input and `∂L/∂Re z + i ∂L/∂Im z` for a
//!    complex one, the convention torch's `.grad` follows: `a * (2-3j)` with upstream 1
//!    gives `2+3j`.
//! 4. **Points that are not differentiable after all** (two views of one element, a
//!    stride-0 leaf tied with itself, a kink within `eps`): a coordinate is passed over
//!    when the one-sided differences `(f(x+eps) - f(x)) / eps` and `(f(x) - f(x-eps)) / eps`
//!    of some result element disagree by more than 1% (plus `atol` and the rounding of the
//!    differences), or when any value involved is not finite. A wrong formula at a smooth
//!    point keeps both one-sided differences together, so it is still caught.
//! 5. **Compare** as gradcheck's `allclose`: `|analytical - numerical| <= atol + rtol *
//!    |numerical|` for each part, plus the rounding error of the differences themselves
//!    (`Σ |v| · 2^-52 · (|f(x+eps)| + |f(x-eps)|) / eps`, which gradcheck leaves to the user's
//!    choice of inputs), and **panic** on a difference, naming the coordinate and the case.
//!
//! At most [`MAX_COORDINATES`] coordinates a case are compared (a deterministic sample when
//! it has more), so that one check stays a few milliseconds.
//!
//! ```
//! use bcast_fuzzing::oracles::gradcheck::check;
//! let mut compared = 0;
//! for k in 0..20u8 {
//!     compared += check(&[k, 9, 1, 200, 3, 9, 4, 4, 4, 250, 0, 13, k, 77]).compared;
//! }
//! assert!(compared > 0);
//! ```

use super::materialize::{elements, give_own_storage};
use crate::generators::grad_case;
use arbitrary::Unstructured;
use bcast_case::ops::Family;
use bcast_conformance::backend::reference::{run_reference, MAX_FULL_VALUES};
use bcast_conformance::backend::BackendFailure;
use bcast_conformance::case::{
    splitmix64, storage_values, Arg, Case, Num, Outcome, ResultValue, TensorResult,
};
use bcast_engine::DType;

/// gradcheck's perturbation.
pub const EPS: f64 = 1e-6;
/// gradcheck's absolute tolerance.
pub const ATOL: f64 = 1e-5;
/// gradcheck's relative tolerance.
pub const RTOL: f64 = 1e-3;
/// How far apart the one-sided differences may be, relatively, at a point that counts as
/// differentiable.
pub const KINK_RTOL: f64 = 1e-2;
/// The most coordinates compared in one case.
pub const MAX_COORDINATES: usize = 32;

/// What one check compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Coordinates (a real element, or one part of a complex one) whose analytical and
    /// numerical gradients agreed.
    pub compared: usize,
    /// Coordinates passed over: not differentiable there, or a value not finite.
    pub skipped: usize,
    /// Of the compared coordinates, those of a complex input.
    pub complex: usize,
}

/// How many gradient cases one check may draw before one has a coordinate to compare (a
/// case that raises, or is left out, has none).
pub const DRAWS: usize = 3;

/// Checks the gradient cases `bytes` draw (see the [module](self)), up to [`DRAWS`] until one
/// compares something; panics on a difference.
pub fn check(bytes: &[u8]) -> Checked {
    let seed = seed_of(bytes);
    let mut u = Unstructured::new(bytes);
    for k in 0..DRAWS {
        let Ok(case) = grad_case(&mut u) else { break };
        let checked = check_case(&case, seed ^ k as u64);
        if checked.compared > 0 {
            return checked;
        }
    }
    Checked::default()
}

/// FNV-1a of the bytes: the seed of the jitter and of the sample of coordinates.
fn seed_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A splitmix64 stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let (state, out) = splitmix64(self.0);
        self.0 = state;
        out
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// [`check`] for a given case (the gradient case of the module's step 1 is made from it);
/// `seed` draws the jitter and the sample of coordinates.
pub fn check_case(case: &Case, seed: u64) -> Checked {
    check_case_with(case, seed, &run_reference)
}

/// How a case with gradients runs: [`run_reference`], or a stand-in that tests of the oracle
/// make wrong on purpose.
pub type RunGrad<'a> = &'a dyn Fn(&Case) -> Result<Outcome, BackendFailure>;

/// [`check_case`] with the analytical side computed by `run` (the numerical side is always
/// the reference engine's forward).
pub fn check_case_with(case: &Case, seed: u64, run: RunGrad) -> Checked {
    let mut rng = Rng(seed);
    let Some(case) = in_double(case, &mut rng) else {
        return Checked::default();
    };
    let Some(spec) = case.grad.clone() else {
        return Checked::default();
    };
    if not_the_derivative(&case).is_some() {
        return Checked::default();
    }
    let json = || serde_json::to_string(&case).unwrap_or_default();
    let Ok(Outcome::Ok(ok)) = run(&case) else {
        return Checked::default();
    };
    let Some(grads) = ok.grads.clone() else {
        return Checked::default();
    };
    // The results with an upstream gradient, and that gradient's elements.
    let results = result_tensors(&ok.result);
    let mut upstream: Vec<Option<Vec<Num>>> = Vec::new();
    for (k, result) in results.iter().enumerate() {
        match spec.upstream.get(k).cloned().flatten() {
            None => upstream.push(None),
            Some(name) => {
                let double = matches!(result.dtype.as_str(), "float64" | "complex128");
                let Some(values) = elements(&case, &name) else {
                    return Checked::default();
                };
                let up_dtype = case
                    .tensors
                    .get(&name)
                    .and_then(|t| case.storages.get(&t.storage))
                    .map(|s| s.dtype.as_str());
                if !double
                    || up_dtype != Some(result.dtype.as_str())
                    || values.len() > MAX_FULL_VALUES
                    || result.values.as_ref().map(Vec::len) != Some(values.len())
                {
                    return Checked::default();
                }
                upstream.push(Some(values));
            }
        }
    }
    // The forward without gradients, each `wrt` tensor in a storage of its own.
    let mut base = case.clone();
    base.grad = None;
    let mut inputs: Vec<Input> = Vec::new();
    for name in &spec.wrt {
        if inputs.iter().any(|i| &i.name == name) {
            continue;
        }
        let (Some(values), Some(t)) = (elements(&case, name), case.tensors.get(name)) else {
            return Checked::default();
        };
        let shape = t.shape.clone();
        give_own_storage(&mut base, name, &shape, values.clone());
        let storage = base.tensors[name].storage.clone();
        let complex = values.iter().any(|v| matches!(v, Num::Complex(..)));
        let analytical = match grads.get(name).cloned().flatten() {
            Some(g) => match g.values {
                Some(v) if v.len() == values.len() => v,
                _ => return Checked::default(),
            },
            None => vec![Num::Float(0.0); values.len()],
        };
        inputs.push(Input {
            name: name.clone(),
            storage,
            values,
            complex,
            analytical,
        });
    }
    let Some(at) = forward(&base, &upstream) else {
        panic!(
            "gradcheck: the forward without gradients fails where the gradient case ran: {}",
            json()
        );
    };
    let mut coordinates: Vec<Coordinate> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        for k in 0..input.values.len() {
            coordinates.push(Coordinate {
                input: i,
                element: k,
                imaginary: false,
            });
            if input.complex {
                coordinates.push(Coordinate {
                    input: i,
                    element: k,
                    imaginary: true,
                });
            }
        }
    }
    if coordinates.len() > MAX_COORDINATES {
        for k in 0..MAX_COORDINATES {
            let pick = k + rng.below(coordinates.len() - k);
            coordinates.swap(k, pick);
        }
        coordinates.truncate(MAX_COORDINATES);
    }
    let mut checked = Checked::default();
    for c in coordinates {
        let input = &inputs[c.input];
        let moved = |by: f64| {
            let mut values = input.values.clone();
            values[c.element] = match values[c.element] {
                Num::Complex(re, im) if c.imaginary => Num::Complex(re, im + by),
                Num::Complex(re, im) => Num::Complex(re + by, im),
                v => Num::Float(v.to_f64() + by),
            };
            let mut moved = base.clone();
            if let Some(s) = moved.storages.get_mut(&input.storage) {
                s.values = Some(values);
            }
            forward(&moved, &upstream)
        };
        let (Some(plus), Some(minus)) = (moved(EPS), moved(-EPS)) else {
            checked.skipped += 1;
            continue;
        };
        let Some(numerical) = directional(&at, &plus, &minus, &upstream) else {
            checked.skipped += 1;
            continue;
        };
        let analytical = match (input.analytical[c.element], c.imaginary) {
            (Num::Complex(_, im), true) => im,
            (_, true) => 0.0,
            (v, false) => v.to_f64(),
        };
        let tolerance = ATOL + RTOL * numerical.value.abs() + numerical.rounding;
        let close = (analytical - numerical.value).abs() <= tolerance;
        assert!(
            close,
            "gradcheck: the gradient of {}[{}]{} is {analytical:e} by the engine's backward \
             and {:e} by central differences of its forward (tolerance {tolerance:e}): {}",
            input.name,
            c.element,
            if input.complex {
                if c.imaginary {
                    " (imaginary part)"
                } else {
                    " (real part)"
                }
            } else {
                ""
            },
            numerical.value,
            json()
        );
        checked.compared += 1;
        checked.complex += usize::from(input.complex);
    }
    checked
}

/// Why torch's gradient of this call is not the derivative its forward has, if it is not: the
/// oracle leaves such a call out (the corpus pins torch's formula).
/// - `as_strided`: its elements depend on the storage under the leaf, not on the leaf's
///   elements, which are what the numerical side moves.
/// - The in-place logical ops (`logical_and_`, `logical_or_`, `logical_xor_`,
///   `logical_not_`): torch records no node for them, so the written tensor keeps its history
///   and its gradient passes through the write as if it had not happened
///   (`x.clone().logical_or_(y)` sends `grad` to `x`), while its values are 0 and 1; so does
///   their `out=` (`torch.logical_and(x, y, out=x)` of a clone `x`).
/// - A Python number that is not finite: torch's formulas then take `0 · ∞` where the
///   function is flat (`pow(-inf, y)` is 0 for every negative `y`, and sends NaN to `y`).
/// - `pow` (`__rpow__`, `float_power`) of the Python number 0 (or `False`) and a complex
///   exponent: torch's formula for the exponent is `result * log(0)`, NaN, unless the
///   exponent is real and not negative (`pow_backward_exponent`), where `0 ** z` is 0 all
///   around a `z` of positive real part.
/// - `ldexp` with an integer `other`: torch's formula is `grad * 2 ** other` computed in
///   `other`'s integer dtype, so a negative exponent sends 0 and a large one wraps
///   (`x.ldexp(int8 7)` sends `-128 * grad`); the engine computes it as torch does.
/// - `var`/`std` with `dim` an empty list or tuple: the forward reduces every element, but
///   torch's `var_backward` counts the elements of no dim (`_safe_size` of `[]` is 1), so the
///   gradient is `numel` times too large (`torch.var(x, [], False, False)` of a 3×2 `x` sends
///   6 times `var(x, None, False, False)`'s, and `std` with a correction of 1 sends `±inf`).
///
/// ```
/// use bcast_conformance::case::Case;
/// use bcast_fuzzing::oracles::gradcheck::not_the_derivative;
/// let case: Case = serde_json::from_str(r#"{"id": "p", "storages": {}, "tensors": {},
///     "call": {"fn": "torch.pow", "args": [{"float": "-inf"}, {"tensor": "t"}]}}"#).unwrap();
/// assert_eq!(not_the_derivative(&case), Some("a Python number that is not finite"));
/// ```
pub fn not_the_derivative(case: &Case) -> Option<&'static str> {
    let name = case.call.fn_.as_str();
    if name.ends_with("as_strided") {
        return Some("as_strided reads the storage under its input");
    }
    if [
        "logical_and_",
        "logical_or_",
        "logical_xor_",
        "logical_not_",
    ]
    .iter()
    .any(|op| name.strip_prefix("Tensor.") == Some(op))
    {
        return Some("in-place logical ops keep the written tensor's history");
    }
    let comparison = bcast_case::ops::lookup(name)
        .is_some_and(|(op, _)| matches!(op.family, Family::Logical | Family::Compare));
    if case.call.kwargs.contains_key("out") && comparison {
        return Some("a comparison's or logical op's out= keeps the written tensor's history");
    }
    let args = || case.call.args.iter().chain(case.call.kwargs.values());
    let infinite = args().any(|a| match a {
        Arg::Float(v) | Arg::Complex(v) => {
            let (re, im) = parts(*v);
            !(re.is_finite() && im.is_finite())
        }
        _ => false,
    });
    if infinite {
        return Some("a Python number that is not finite");
    }
    let dtype_of = |t: &str| {
        case.tensors
            .get(t)
            .and_then(|t| case.storages.get(&t.storage))
            .and_then(|s| DType::from_name(&s.dtype))
    };
    if name.contains("pow") {
        let zero_number = args().any(|a| match a {
            Arg::Int(0) | Arg::Bool(false) => true,
            Arg::Float(v) | Arg::Complex(v) => v.to_f64() == 0.0 && parts(*v).1 == 0.0,
            _ => false,
        });
        let complex = args()
            .any(|a| matches!(a, Arg::Tensor(t) if dtype_of(t).is_some_and(DType::is_complex)));
        if zero_number && complex {
            return Some("the exponent's gradient of 0 ** z is NaN for a complex z");
        }
        // `self`'s gradient takes `exponent - 1` in an integer exponent's own dtype, where
        // its lowest value wraps to the largest (int8's -128 - 1 is 127).
        let wraps = args().any(|a| {
            let Arg::Tensor(t) = a else { return false };
            let lowest = match dtype_of(t) {
                Some(DType::Int8) => i64::from(i8::MIN),
                Some(DType::Int16) => i64::from(i16::MIN),
                Some(DType::Int32) => i64::from(i32::MIN),
                Some(DType::Int64) => i64::MIN,
                _ => return false,
            };
            case.tensors
                .get(t)
                .and_then(|v| case.storages.get(&v.storage))
                .and_then(|s| storage_values(s).ok())
                .is_some_and(|vs| vs.contains(&Num::Int(lowest)))
        });
        if wraps {
            return Some("pow's gradient computes exponent - 1 in the exponent's integer dtype, where its lowest value wraps");
        }
    }
    let base = name.rsplit('.').next().unwrap_or(name);
    if base == "var" || base == "std" {
        let dim = arg_or_kwarg(case, 1, "dim");
        if matches!(dim, Some(Arg::Ints(d) | Arg::List(d) | Arg::Tuple(d)) if d.is_empty()) {
            return Some("var/std over dim=[]: torch's backward divides by no dim's count");
        }
    }
    if base == "round" || base == "round_" {
        let decimals = arg_or_kwarg(case, 1, "decimals");
        // Steps of 10^-decimals no wider than `eps`: the forward moves with its input at that
        // scale, where torch's formula (zeros) says it is flat.
        if matches!(decimals, Some(Arg::Int(d)) if 10f64.powi((*d).clamp(-400, 400) as i32) * EPS >= 1.0)
        {
            return Some("round to decimals finer than eps: the identity at that scale, of derivative 0 by torch's formula");
        }
    }
    if name.ends_with("ldexp") || name.ends_with("ldexp_") {
        let other = arg_or_kwarg(case, 1, "other");
        let integral = match other {
            Some(Arg::Tensor(t)) => {
                dtype_of(t).is_some_and(|d| !(d.is_floating() || d.is_complex()))
            }
            Some(Arg::Int(_) | Arg::Bool(_)) => true,
            _ => false,
        };
        if integral {
            return Some("ldexp by an integer exponent computes 2 ** other in its dtype");
        }
    }
    None
}

/// The call's argument at `index`, else its keyword `name`.
fn arg_or_kwarg<'a>(case: &'a Case, index: usize, name: &str) -> Option<&'a Arg> {
    case.call
        .args
        .get(index)
        .or_else(|| case.call.kwargs.get(name))
}

/// One `wrt` tensor as the numerical side moves it.
struct Input {
    name: String,
    /// Its own storage in the forward case.
    storage: String,
    /// Its elements.
    values: Vec<Num>,
    complex: bool,
    /// Its gradient by the engine's backward, zeros where there is none.
    analytical: Vec<Num>,
}

/// One coordinate of one input.
#[derive(Debug, Clone, Copy)]
struct Coordinate {
    input: usize,
    element: usize,
    imaginary: bool,
}

/// A central difference and the rounding error it may carry.
struct Numerical {
    value: f64,
    rounding: f64,
}

/// The result tensors of a call's value.
fn result_tensors(result: &ResultValue) -> Vec<TensorResult> {
    match result {
        ResultValue::Tensor(t) => vec![t.clone()],
        ResultValue::Tensors(ts) => ts.clone(),
        _ => Vec::new(),
    }
}

/// Each result with an upstream gradient, as `(re, im)` elements, from the engine's forward;
/// `None` when the call raised or its results are not what the gradient case had.
fn forward(case: &Case, upstream: &[Option<Vec<Num>>]) -> Option<Vec<Vec<(f64, f64)>>> {
    let Ok(Outcome::Ok(ok)) = run_reference(case) else {
        return None;
    };
    let results = result_tensors(&ok.result);
    if results.len() != upstream.len() {
        return None;
    }
    let mut out = Vec::with_capacity(results.len());
    for (result, up) in results.iter().zip(upstream) {
        let Some(up) = up else {
            out.push(Vec::new());
            continue;
        };
        let values = result.values.as_ref()?;
        if values.len() != up.len() {
            return None;
        }
        out.push(values.iter().map(|&v| parts(v)).collect());
    }
    Some(out)
}

/// A value as its real and imaginary parts.
fn parts(v: Num) -> (f64, f64) {
    match v {
        Num::Complex(re, im) => (re, im),
        v => (v.to_f64(), 0.0),
    }
}

/// `∂L/∂x` by central differences, from the results at `x`, `x + eps` and `x - eps`; `None`
/// when a value is not finite or the one-sided differences of some result element part
/// disagree (the function is not differentiable there).
fn directional(
    at: &[Vec<(f64, f64)>],
    plus: &[Vec<(f64, f64)>],
    minus: &[Vec<(f64, f64)>],
    upstream: &[Option<Vec<Num>>],
) -> Option<Numerical> {
    const ULP: f64 = f64::EPSILON;
    let mut value = 0.0;
    let mut rounding = 0.0;
    for (r, up) in upstream.iter().enumerate() {
        let Some(up) = up else { continue };
        for (j, v) in up.iter().enumerate() {
            let (vr, vi) = parts(*v);
            let (a, p, m) = (at[r][j], plus[r][j], minus[r][j]);
            for (weight, a, p, m) in [(vr, a.0, p.0, m.0), (vi, a.1, p.1, m.1)] {
                if !(a.is_finite() && p.is_finite() && m.is_finite() && weight.is_finite()) {
                    return None;
                }
                let noise = 2.0 * ULP * (a.abs() + p.abs() + m.abs()) / EPS;
                let right = (p - a) / EPS;
                let left = (a - m) / EPS;
                if (right - left).abs() > KINK_RTOL * (right.abs() + left.abs()) + ATOL + noise {
                    return None;
                }
                value += weight * (p - m) / (2.0 * EPS);
                rounding += 4.0 * weight.abs() * ULP * (p.abs() + m.abs()) / (2.0 * EPS);
            }
        }
    }
    Some(Numerical { value, rounding })
}

/// `case` in double precision at a generic point (the module's step 1); `None` when a
/// storage does not describe its values.
fn in_double(case: &Case, rng: &mut Rng) -> Option<Case> {
    let mut out = case.clone();
    for spec in out.storages.values_mut() {
        let dtype = DType::from_name(&spec.dtype)?;
        if !(dtype.is_floating() || dtype.is_complex()) {
            continue;
        }
        let values = storage_values(spec).ok()?;
        let mut generic = |v: f64| {
            let v = if v.is_finite() && v.abs() <= 16.0 {
                v
            } else {
                (rng.below(33) as f64 - 16.0) / 4.0
            };
            let jitter = 0.02 + 0.08 * rng.unit();
            if rng.next() & 1 == 0 {
                v + jitter
            } else {
                v - jitter
            }
        };
        let moved: Vec<Num> = values
            .into_iter()
            .map(|v| match v {
                Num::Complex(re, im) => Num::Complex(generic(re), generic(im)),
                v if dtype.is_complex() => Num::Complex(generic(v.to_f64()), generic(0.0)),
                v => Num::Float(generic(v.to_f64())),
            })
            .collect();
        spec.dtype = if dtype.is_complex() {
            "complex128"
        } else {
            "float64"
        }
        .to_string();
        spec.values = Some(moved);
        spec.fill = None;
    }
    let double = |arg: &mut Arg| {
        if let Arg::Dtype(name) = arg {
            match DType::from_name(name) {
                Some(d) if d.is_complex() => *name = "complex128".to_string(),
                Some(d) if d.is_floating() => *name = "float64".to_string(),
                _ => {}
            }
        }
    };
    out.call.args.iter_mut().for_each(double);
    out.call.kwargs.values_mut().for_each(double);
    Some(out)
}
