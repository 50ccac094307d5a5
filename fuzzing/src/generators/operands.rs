//! Operands for the element-wise families: dtypes, Python numbers with edge values, and
//! "a tensor view or a number".

use super::{CaseBuilder, GenResult};
use arbitrary::Unstructured;
use bcast_conformance::case::{storage_values, Arg, Case, Num};
use bcast_engine::DType;
use std::sync::RwLock;

/// The dtypes the generators draw by default: the twelve torch broadcasts, every dtype of the
/// schema and the engine but `complex32`, which the families reach by promotion (a `float16`
/// tensor with a complex number) and the `complex32` family draws (drawn here, it would change
/// every recorded family's draws).
pub const GEN_DTYPES: [DType; 12] = [
    DType::Bool,
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// The six floating and complex dtypes of [`GEN_DTYPES`], the ones a leaf may require grad in:
/// what the `grad` family's products, einsum and reductions draw (the last six, in order).
pub const GRAD_DTYPES: &[DType] = GEN_DTYPES.split_at(6).1;

/// One of [`GRAD_DTYPES`].
pub fn grad_dtype(u: &mut Unstructured) -> GenResult<DType> {
    Ok(*u.choose(GRAD_DTYPES)?)
}

/// The four dtypes of schema 1, the ones the differential drew until the engine agreed with
/// torch on all twelve (`bcast diff --dtypes agreed` still narrows a run to them).
pub const AGREED_DTYPES: [DType; 4] = [DType::Bool, DType::Int64, DType::Float32, DType::Float64];

/// The dtypes drawn in this process (default [`GEN_DTYPES`]); see [`draw_dtypes`].
static DRAWN: RwLock<Vec<DType>> = RwLock::new(Vec::new());

/// Restricts the dtypes the generators draw in this process to `dtypes` (every thread, so
/// `bcast diff --dtypes` holds across its workers); an empty list restores [`GEN_DTYPES`].
/// The same seed then draws other cases.
///
/// ```
/// use bcast_engine::DType;
/// use bcast_fuzzing::generators::{draw_dtypes, drawn_dtypes};
/// draw_dtypes(&[DType::Float32, DType::Int64]);
/// assert_eq!(drawn_dtypes(), [DType::Float32, DType::Int64]);
/// draw_dtypes(&[]);
/// assert_eq!(drawn_dtypes().len(), 12);
/// ```
pub fn draw_dtypes(dtypes: &[DType]) {
    *DRAWN.write().unwrap_or_else(|e| e.into_inner()) = dtypes.to_vec();
}

/// The dtypes the generators draw (see [`draw_dtypes`]).
pub fn drawn_dtypes() -> Vec<DType> {
    let drawn = DRAWN.read().unwrap_or_else(|e| e.into_inner());
    if drawn.is_empty() {
        GEN_DTYPES.to_vec()
    } else {
        drawn.clone()
    }
}

/// A dtype, uniformly among the [`drawn_dtypes`].
pub fn random_dtype(u: &mut Unstructured) -> GenResult<DType> {
    u.choose(&drawn_dtypes()).copied()
}

/// A Python number: a bool, an int or a float, often an edge value (0, -0.0, NaN, infinities,
/// 2^24 + 1, the ends of int64).
pub fn python_number(u: &mut Unstructured) -> GenResult<Arg> {
    Ok(match u.int_in_range(0..=2)? {
        0 => Arg::Bool(u.arbitrary()?),
        1 => Arg::Int(*u.choose(&[0, 1, -1, 2, 3, -3, 7, -10, 16_777_217, i64::MAX, i64::MIN])?),
        _ => Arg::Float(Num::Float(*u.choose(&[
            0.5,
            -2.5,
            0.0,
            -0.0,
            1.0,
            2.0,
            3.0,
            -1.0,
            -0.5,
            0.25,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e30,
            16_777_217.0,
            1e-300,
        ])?)),
    })
}

/// A new random view of `shape` (any dtype), or with `number_percent` chance a Python number.
pub fn tensor_or_number(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    shape: &[usize],
    number_percent: u8,
) -> GenResult<Arg> {
    if u.int_in_range(0..=99u8)? < number_percent {
        b.tag("number");
        return python_number(u);
    }
    let dtype = random_dtype(u)?;
    Ok(Arg::Tensor(b.view(u, dtype, shape, true)?))
}

/// Whether an argument is a Python number.
pub fn is_number(arg: &Arg) -> bool {
    matches!(arg, Arg::Int(_) | Arg::Float(_) | Arg::Bool(_))
}

/// The tolerance for results torch computes with vectorised approximations (transcendentals,
/// `pow`): a few ulps of float32, or two ulps of the least precise half-precision dtype among
/// the case's storages (torch computes those in float32 and rounds once, so a last-bit
/// difference in float32 can move the half result by one ulp).
///
/// ```
/// use bcast_fuzzing::generators::{approximate, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// b.literal_storage(DType::Float16, vec![]);
/// approximate(&mut b);
/// let case = b.finish("torch.exp", vec![]);
/// assert_eq!(case.tolerance.map(|t| t.rtol), Some(2e-3));
/// ```
pub fn approximate(b: &mut CaseBuilder) {
    let rtol = if b.has_dtype(|d| d.to_real() == DType::BFloat16) {
        2e-2
    } else if b.has_dtype(|d| d.to_real() == DType::Float16) {
        2e-3
    } else {
        1e-5
    };
    b.tolerance(rtol, rtol / 10.0);
}

/// `torch.NAME` or `Tensor.NAME`, the method form only when the first argument is a tensor.
pub fn spelling(u: &mut Unstructured, name: &str, first: &Arg) -> GenResult<String> {
    let method = matches!(first, Arg::Tensor(_)) && u.ratio(1, 3)?;
    Ok(if method {
        format!("Tensor.{name}")
    } else {
        format!("torch.{name}")
    })
}

/// A `pow` exponent torch computes consistently: the Python numbers float32 cannot hold
/// exactly (16777217, 1e-300) give position-dependent results in torch (its vectorised and
/// scalar loops round the exponent differently), so they become 2.
pub fn consistent_exponent(arg: Arg) -> Arg {
    match arg {
        Arg::Int(16_777_217) => Arg::Int(2),
        Arg::Float(f) if [16_777_217.0, 1e-300].contains(&f.to_f64()) => Arg::Int(2),
        other => other,
    }
}

/// Whether a dtype is 64-bit floating (real or complex).
fn is_wide(d: DType) -> bool {
    matches!(d, DType::Float64 | DType::Complex128)
}

/// Whether a case whose storages have these dtypes surely computes a `remainder`/`fmod` in
/// float64: some storage is 64-bit floating and no floating storage is narrower. A float64
/// 0-d tensor next to a float32 one leaves the computation in float32 (dimensioned tensors
/// win), so a mix counts as narrow: the narrower range only keeps more values out.
fn computes_wide(dtypes: impl Iterator<Item = DType>) -> bool {
    let floats: Vec<DType> = dtypes
        .filter(|d| d.is_floating() || d.is_complex())
        .collect();
    !floats.is_empty() && floats.into_iter().all(is_wide)
}

/// The largest quotient a `remainder`/`fmod` computes without overflow: float64's range when
/// `wide` (see [`is_wide`]), else float32's (which float16 and bfloat16 compute in).
fn quotient_range(wide: bool) -> f64 {
    if wide {
        f64::MAX
    } else {
        f64::from(f32::MAX)
    }
}

/// Makes `remainder` (or `fmod`) of `case.args[dividend]` by `case.args[divisor]` one torch
/// computes consistently when the divisor is a tensor: where the quotient overflows (float64's
/// range where a 64-bit float takes part, else float32's: a float32 dividend of `3.4e38` by
/// `0.5`), torch's vectorised loop (`a - b * floor(a / b)`) gives NaN and its scalar loop (`fmod`) the exact remainder, so the result depends on the
/// element's position; such dividends become `-2.5`.
///
/// ```
/// use bcast_conformance::case::{Arg, Num};
/// use bcast_fuzzing::generators::{consistent_remainder, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// let s = b.literal_storage(DType::Float32, vec![Num::Float(0.5)]);
/// let spec = bcast_fuzzing::generators::ViewSpec {
///     strides: vec![], offset: 0, storage_len: 1, kind: Default::default(),
/// };
/// let divisor = b.tensor(&s, &[], &spec);
/// let mut case = b.finish("Tensor.__rmod__", vec![Arg::Tensor(divisor), Arg::Float(Num::Float(3e38))]);
/// consistent_remainder(&mut case, 1, 0);
/// assert_eq!(case.call.args[1], Arg::Float(Num::Float(-2.5)));
/// ```
pub fn consistent_remainder(case: &mut Case, dividend: usize, divisor: usize) {
    let magnitudes = |arg: &Arg| -> Vec<f64> {
        match arg {
            Arg::Tensor(name) => case
                .tensors
                .get(name)
                .and_then(|t| case.storages.get(&t.storage))
                .and_then(|s| storage_values(s).ok())
                .unwrap_or_default()
                .iter()
                .map(|v| v.to_f64().abs())
                .collect(),
            Arg::Float(f) => vec![f.to_f64().abs()],
            Arg::Int(i) => vec![i.unsigned_abs() as f64],
            _ => vec![],
        }
    };
    let (Some(x), Some(y)) = (case.call.args.get(dividend), case.call.args.get(divisor)) else {
        return;
    };
    let smallest = magnitudes(y)
        .into_iter()
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let wide = computes_wide(
        case.storages
            .values()
            .filter_map(|s| DType::from_name(&s.dtype)),
    );
    let limit = quotient_range(wide) * smallest;
    let overflows = |v: f64| v.is_finite() && v.abs() > limit;
    match x.clone() {
        Arg::Tensor(name) => {
            let storage = case.tensors.get(&name).map(|t| t.storage.clone());
            if let Some(values) = storage
                .and_then(|s| case.storages.get_mut(&s))
                .and_then(|s| s.values.as_mut())
            {
                for v in values.iter_mut() {
                    if matches!(v, Num::Float(_)) && overflows(v.to_f64()) {
                        *v = Num::Float(-2.5);
                    }
                }
            }
        }
        Arg::Float(f) if overflows(f.to_f64()) => {
            case.call.args[dividend] = Arg::Float(Num::Float(-2.5));
        }
        Arg::Int(i) if overflows(i as f64) => case.call.args[dividend] = Arg::Int(-3),
        _ => {}
    }
}

/// Applies [`consistent_remainder`] to a generated case that calls `remainder` or `fmod` in
/// any form (the catalogue says which: the reflected `__rmod__` divides its second argument
/// by the first). Every generated case passes through it, as through [`consistent_alpha`].
///
/// ```
/// use bcast_conformance::case::{Arg, Num};
/// use bcast_fuzzing::generators::{consistent_remainders, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// let s = b.literal_storage(DType::Float32, vec![Num::Float(3e38), Num::Float(0.5)]);
/// let spec = bcast_fuzzing::generators::ViewSpec {
///     strides: vec![1], offset: 0, storage_len: 2, kind: Default::default(),
/// };
/// let t = b.tensor(&s, &[2], &spec);
/// let mut case = b.finish("torch.remainder", vec![Arg::Tensor(t.clone()), Arg::Tensor(t)]);
/// consistent_remainders(&mut case);
/// let values = case.storages.values().next().unwrap().values.clone().unwrap();
/// assert_eq!(values, [Num::Float(-2.5), Num::Float(0.5)]);
///
/// // A float64 0-d divisor leaves the computation in float32: the float32 range still holds.
/// let mut b = CaseBuilder::default();
/// let s = b.literal_storage(DType::Float32, vec![Num::Float(3e38), Num::Float(1.0)]);
/// let d = b.literal_storage(DType::Float64, vec![Num::Float(0.5)]);
/// let x = b.tensor(&s, &[2], &spec);
/// let zero_d = bcast_fuzzing::generators::ViewSpec { strides: vec![], storage_len: 1, ..spec };
/// let y = b.tensor(&d, &[], &zero_d);
/// let mut case = b.finish("Tensor.remainder", vec![Arg::Tensor(x), Arg::Tensor(y)]);
/// consistent_remainders(&mut case);
/// assert_eq!(case.storages[&s].values.clone().unwrap(), [Num::Float(-2.5), Num::Float(1.0)]);
/// ```
pub fn consistent_remainders(case: &mut Case) {
    let Some((op, form)) = bcast_case::ops::lookup(&case.call.fn_) else {
        return;
    };
    if !matches!(op.name, "remainder" | "fmod") {
        return;
    }
    match form {
        bcast_case::ops::Form::Reflected => consistent_remainder(case, 1, 0),
        _ => consistent_remainder(case, 0, 1),
    }
}

/// A `remainder` divisor torch computes consistently. Where the quotient `a / b` overflows
/// the computation's float range (float64 where a 64-bit float takes part, else float32: a
/// dividend of `1e30` by the Python number `1e-300`, a float32 `3.4e38` by `0.25`), torch's
/// vectorised loop (Sleef's `fmod`) gives NaN and its scalar loop the exact remainder, so torch's results
/// depend on the element's position; such a divisor becomes `0.25` (or, for a dividend too
/// large even for that, `2^-120` of it). Other divisors, and tensors (see
/// [`consistent_remainder`]), stay.
///
/// ```
/// use bcast_conformance::case::{Arg, Num};
/// use bcast_fuzzing::generators::{consistent_divisor, CaseBuilder};
/// let b = CaseBuilder::default();
/// let tiny = Arg::Float(Num::Float(1e-300));
/// assert_eq!(consistent_divisor(&b, &Arg::Float(Num::Float(1e30)), tiny.clone()),
///            Arg::Float(Num::Float(0.25)));
/// let small = Arg::Float(Num::Float(1e-3));
/// assert_eq!(consistent_divisor(&b, &Arg::Float(Num::Float(3.0)), small.clone()), small);
/// ```
pub fn consistent_divisor(b: &CaseBuilder, dividend: &Arg, divisor: Arg) -> Arg {
    let d = match &divisor {
        Arg::Float(f) => f.to_f64().abs(),
        _ => return divisor,
    };
    let largest = match dividend {
        Arg::Float(f) => f.to_f64().abs(),
        Arg::Int(i) => i.unsigned_abs() as f64,
        Arg::Tensor(name) => b.largest_finite(name),
        _ => 0.0,
    };
    let limit = quotient_range(computes_wide(b.dtypes()));
    let fits = |d: f64| largest / d <= limit;
    if d > 0.0 && !fits(d) {
        // 0.25, or for a dividend too large for that 2^-120 of it (256 for float32's largest,
        // a value of every float dtype).
        let d = if fits(0.25) {
            0.25
        } else {
            2f64.powi(largest.log2().ceil() as i32 - 120)
        };
        Arg::Float(Num::Float(d))
    } else {
        divisor
    }
}

/// Keeps `alpha * other` inside the range of a `float16`/`bfloat16` case: torch's scalar loop
/// rounds that product to the half dtype before adding (`65504 - 2 * 65504` is `-inf`) and
/// its vectorised loop does not (`-65504`), so with a half storage an `alpha` beyond ±1
/// becomes ±1 (an int) or ±0.5 (a float). Every generated case passes through it.
///
/// ```
/// use bcast_conformance::case::{Arg, Num};
/// use bcast_fuzzing::generators::{consistent_alpha, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// b.literal_storage(DType::Float16, vec![Num::Float(65504.0)]);
/// b.kwarg("alpha", Arg::Int(-2));
/// let mut case = b.finish("torch.sub", vec![]);
/// consistent_alpha(&mut case);
/// assert_eq!(case.call.kwargs["alpha"], Arg::Int(-1));
/// ```
pub fn consistent_alpha(case: &mut Case) {
    let half = case.storages.values().any(|s| {
        DType::from_name(&s.dtype)
            .is_some_and(|d| matches!(d.to_real(), DType::Float16 | DType::BFloat16))
    });
    if !half {
        return;
    }
    match case.call.kwargs.get_mut("alpha") {
        Some(Arg::Int(i)) if i.unsigned_abs() > 1 => *i = i.signum(),
        Some(Arg::Float(f)) if f.to_f64().is_finite() && f.to_f64().abs() > 1.0 => {
            *f = Num::Float(0.5f64.copysign(f.to_f64()));
        }
        _ => {}
    }
}
