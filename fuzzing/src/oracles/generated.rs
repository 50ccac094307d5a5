//! Generated cases of every family, from fuzz bytes, through the reference backend: it never
//! panics; the iteration plan and the naive index map give the same outcome at every check
//! level; and the outcome describes itself consistently (geometry, values that match the
//! storage a result views, storages of the right length and dtype, a known error class).
//! The case also survives a JSON round trip, since the corpus stores cases as JSON.

use super::protocol::round_trips;
use crate::generators::{forward_families, generate_from_bytes};
use bcast_conformance::backend::reference::{call_writes, run_reference, MAX_FULL_VALUES};
use bcast_conformance::backend::{BackendFailure, Level};
use bcast_conformance::case::NumScalar;
use bcast_conformance::case::{
    storage_dtype, storage_values, Case, Num, Outcome, ResultValue, TensorResult,
};
use bcast_conformance::compare::compare_outcomes;
use bcast_engine::iter::{with_strategy, Strategy};
use bcast_engine::{Buffer, DType, ErrorKind};
use std::collections::BTreeMap;

/// Cases whose storages hold more elements than this (the seed documents' large examples)
/// run under the plan only: the index map's second run would cost more than the fuzzer's
/// other work, and the plan-against-index-map properties cover small layouts better.
pub const MAX_COMPARED_ELEMENTS: usize = 1 << 16;

fn storage_elements(case: &Case) -> usize {
    case.storages
        .values()
        .map(|s| s.fill.as_ref().map_or(0, |f| f.len) + s.values.as_ref().map_or(0, Vec::len))
        .sum()
}

/// The case the first byte (its family) and the rest of `bytes` draw.
///
/// ```
/// let case = bcast_fuzzing::oracles::generated::case_from_bytes(&[0, 1, 2, 3]);
/// assert!(!case.call.fn_.is_empty());
/// ```
pub fn case_from_bytes(bytes: &[u8]) -> Case {
    let (pick, rest) = bytes.split_first().unwrap_or((&0, &[]));
    let all = forward_families();
    let family = all[*pick as usize % all.len()];
    let mut case = generate_from_bytes(family, rest);
    case.id = format!("{}/fuzz", family.name);
    case
}

/// Runs the case drawn from `bytes` and checks it; panics on a violation, with the case JSON.
/// Returns the outcome.
///
/// ```
/// use bcast_fuzzing::oracles::generated::check;
/// for k in 0..40u8 {
///     check(&[k, 7, 1, 200, 3, 9, 4, 4, 4, 250, 0, 13]);
/// }
/// ```
pub fn check(bytes: &[u8]) -> Result<Outcome, BackendFailure> {
    let case = case_from_bytes(bytes);
    check_case(&case)
}

/// [`check`] for a given case.
pub fn check_case(case: &Case) -> Result<Outcome, BackendFailure> {
    let json = || serde_json::to_string(case).unwrap_or_default();
    round_trips(case, "generated case");
    let plan = with_strategy(Strategy::Plan, || run_reference(case));
    if storage_elements(case) > MAX_COMPARED_ELEMENTS {
        if let Ok(outcome) = &plan {
            describes_consistently(case, outcome).unwrap_or_else(|why| panic!("{why}: {}", json()));
        }
        return plan;
    }
    let naive = with_strategy(Strategy::IndexMap, || run_reference(case));
    match (&plan, &naive) {
        (Ok(p), Ok(n)) => {
            let levels = Level::ALL.into_iter().collect();
            let diff = compare_outcomes(n, p, None, &levels);
            assert!(
                diff.is_empty(),
                "the plan and the index map disagree: {diff:?} on {}",
                json()
            );
            describes_consistently(case, p).unwrap_or_else(|why| panic!("{why}: {}", json()));
        }
        (Err(p), Err(n)) => assert_eq!(p, n, "the strategies fail differently: {}", json()),
        _ => panic!(
            "one strategy fails: plan {plan:?}, index map {naive:?}: {}",
            json()
        ),
    }
    plan
}

/// Whether two values are the same element (NaN equals NaN; an int equals a float of the
/// same value, as fixtures write integral floats).
fn same_num(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x == y,
        (Num::Bool(x), Num::Bool(y)) => x == y,
        (Num::Bool(_), _) | (_, Num::Bool(_)) => false,
        (Num::Complex(p, q), Num::Complex(r, s)) => {
            same_num(Num::Float(p), Num::Float(r)) && same_num(Num::Float(q), Num::Float(s))
        }
        (Num::Complex(..), _) | (_, Num::Complex(..)) => false,
        _ => {
            let (x, y) = (a.to_f64(), b.to_f64());
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
    }
}

/// The storages' contents after the call: as reported, else as the case built them.
fn storages_after(
    case: &Case,
    ok_storages: Option<&BTreeMap<String, Vec<Num>>>,
) -> BTreeMap<String, (DType, Vec<Num>)> {
    case.storages
        .iter()
        .filter_map(|(name, spec)| {
            let dtype = storage_dtype(spec).ok()?;
            let values = match ok_storages.and_then(|s| s.get(name)) {
                Some(v) => v.clone(),
                // As the storage holds them: rounded to its dtype.
                None => {
                    let written: Vec<_> = storage_values(spec)
                        .ok()?
                        .iter()
                        .map(|v| v.to_scalar())
                        .collect();
                    Buffer::from_scalars(dtype, &written)
                        .to_scalars()
                        .into_iter()
                        .map(Num::from_scalar)
                        .collect()
                }
            };
            Some((name.clone(), (dtype, values)))
        })
        .collect()
}

fn check_tensor(
    case: &Case,
    t: &TensorResult,
    storages: &BTreeMap<String, (DType, Vec<Num>)>,
) -> Result<(), String> {
    let dtype = DType::from_name(&t.dtype).ok_or(format!("unknown dtype {}", t.dtype))?;
    if t.strides.len() != t.shape.len() {
        return Err(format!(
            "{} strides for {} dims",
            t.strides.len(),
            t.shape.len()
        ));
    }
    let numel = if t.shape.contains(&0) {
        0
    } else if t.shape.iter().any(|&d| d < 0) {
        return Err(format!("a negative size without a 0 in {:?}", t.shape));
    } else {
        t.shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d as usize))
            .ok_or("numel overflows")?
    };
    let shape: Vec<usize> = t.shape.iter().map(|&d| d.max(0) as usize).collect();
    let described: Vec<(usize, Num)> = match (&t.values, &t.samples) {
        (Some(v), None) if v.len() == numel => v.iter().copied().enumerate().collect(),
        (None, Some(s)) if numel > MAX_FULL_VALUES => {
            if s.windows(2).any(|w| w[0].0 >= w[1].0) || s.iter().any(|(i, _)| *i >= numel) {
                return Err(format!(
                    "sample positions out of order or range for numel {numel}"
                ));
            }
            s.clone()
        }
        _ => return Err(format!("values or samples do not fit numel {numel}")),
    };
    if let Some((_, v)) = described.iter().find(|(_, v)| !v.fits_engine_dtype(dtype)) {
        return Err(format!("value {v:?} is not a {}", t.dtype));
    }
    let Some(name) = &t.storage else {
        return Ok(());
    };
    let (storage_dtype, values) = storages
        .get(name)
        .ok_or(format!("the result views unknown storage {name}"))?;
    if *storage_dtype != dtype {
        return Err(format!(
            "a {} view of a {} storage",
            t.dtype,
            storage_dtype.name()
        ));
    }
    let len = values.len();
    let written = call_writes(case);
    for (i, v) in described {
        let index = bcast_engine::index_map::unravel(i, &shape);
        let address = index
            .iter()
            .zip(&t.strides)
            .try_fold(t.offset, |a, (&k, &s)| a.checked_add(k.checked_mul(s)?))
            .ok_or("an address overflows")?;
        match values.get(address) {
            Some(&stored) if same_num(stored, v) => {}
            Some(&stored) => {
                return Err(format!(
                    "element {i} reads {v:?}, its storage {name}[{address}] holds {stored:?}"
                ))
            }
            // A resized out= may reach past the length the case describes.
            None if written => {}
            None => {
                return Err(format!(
                    "element {i} at {address} is past storage {name} of {len}"
                ))
            }
        }
    }
    Ok(())
}

/// Whether `outcome` describes itself consistently for `case`.
fn describes_consistently(case: &Case, outcome: &Outcome) -> Result<(), String> {
    let ok = match outcome {
        Outcome::Error(e) => {
            return match ErrorKind::ALL.iter().any(|k| k.name() == e.kind) {
                true if !e.message.is_empty() => Ok(()),
                _ => Err(format!(
                    "error {:?} of an unknown class or without message",
                    e
                )),
            }
        }
        Outcome::Ok(ok) => ok,
    };
    let storages = storages_after(case, ok.storages.as_ref());
    if let Some(reported) = &ok.storages {
        for (name, values) in reported {
            let (dtype, _) = storages
                .get(name)
                .ok_or(format!("an unknown storage {name} reported"))?;
            let spec = &case.storages[name];
            let len = storage_values(spec).map(|v| v.len()).unwrap_or(0);
            if values.len() != len {
                return Err(format!(
                    "storage {name} reported with {} of {len} values",
                    values.len()
                ));
            }
            if let Some(v) = values.iter().find(|v| !v.fits_engine_dtype(*dtype)) {
                return Err(format!(
                    "storage {name} holds {v:?}, not a {}",
                    dtype.name()
                ));
            }
        }
    }
    match &ok.result {
        ResultValue::Tensor(t) => check_tensor(case, t, &storages),
        ResultValue::Tensors(ts) => ts.iter().try_for_each(|t| check_tensor(case, t, &storages)),
        ResultValue::Size(_)
        | ResultValue::Int(_)
        | ResultValue::Bool(_)
        | ResultValue::NotImplemented => Ok(()),
    }
}
