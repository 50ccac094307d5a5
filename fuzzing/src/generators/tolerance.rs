//! Value tolerances of generated cases with floating results: summation and product order may
//! change the last bits of a float, nothing more; integers stay exact. Over literal edge values
//! (`1e30`, `INT64_MAX`) a sum can cancel catastrophically, and then every order of summation
//! gives another answer (torch's own differ between a view and its contiguous copy): the
//! tolerance of an op that sums widens to the error any order can make.

use super::CaseBuilder;
use bcast_conformance::case::Tolerance;
use bcast_engine::DType;

/// Sets the tolerance for a case whose operands (or requested result) have `dtypes`: the least
/// precise float wins; no tolerance without a float.
///
/// ```
/// use bcast_fuzzing::generators::{float_tolerance, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// float_tolerance(&mut b, &[DType::Int64, DType::Float64]);
/// let case = b.finish("torch.sum", vec![]);
/// assert_eq!(case.tolerance.map(|t| (t.rtol, t.atol)), Some((1e-12, 1e-12)));
/// ```
pub fn float_tolerance(b: &mut CaseBuilder, dtypes: &[DType]) {
    if let Some((tol, _)) = float_precision(dtypes) {
        b.tolerance(tol, tol);
    }
}

/// [`float_tolerance`] for an op that sums (`sum`, `mean`, `matmul`, `einsum`): when the case
/// holds literal edge values, `atol` grows to [`accumulation_error`]'s bound, since a sum can
/// then cancel catastrophically.
///
/// ```
/// use bcast_fuzzing::generators::{sum_tolerance, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// sum_tolerance(&mut b, &[DType::Float32]);
/// let case = b.finish("torch.sum", vec![]);
/// assert_eq!(case.tolerance.map(|t| (t.rtol, t.atol)), Some((1e-5, 1e-5)));
/// ```
pub fn sum_tolerance(b: &mut CaseBuilder, dtypes: &[DType]) {
    if let Some((tol, eps)) = float_precision(dtypes) {
        b.tolerance(tol, tol.max(accumulation_error(b, eps)));
    }
}

/// The tolerance of a gradient case's gradients (its `grad.tolerance`): as [`sum_tolerance`]
/// over every storage of `b` (the leaves, the other inputs and the upstream gradients, whose
/// dtypes are the results'), since a backward multiplies and sums over the broadcast dims; no
/// tolerance without a float.
///
/// ```
/// use bcast_fuzzing::generators::{grad_tolerance, CaseBuilder};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// b.literal_storage(DType::Int64, vec![]);
/// assert_eq!(grad_tolerance(&b), None);
/// let mut u = arbitrary::Unstructured::new(&[]);
/// b.random_fill_storage(&mut u, DType::Float16, 4).unwrap();
/// assert_eq!(grad_tolerance(&b).map(|t| t.rtol), Some(2e-3));
/// ```
pub fn grad_tolerance(b: &CaseBuilder) -> Option<Tolerance> {
    let dtypes: Vec<DType> = b.dtypes().collect();
    // A bound past f64's range (edge values of 1e30 multiplied together) is written as the
    // largest finite double, which JSON can hold.
    float_precision(&dtypes).map(|(tol, eps)| Tolerance {
        rtol: tol,
        atol: tol.max(accumulation_error(b, eps)).min(f64::MAX),
    })
}

/// The tolerance and machine epsilon of the least precise float in `dtypes` (a complex dtype
/// counts as its real part): two ulps for the half-precision dtypes, whose results torch
/// rounds from float32.
fn float_precision(dtypes: &[DType]) -> Option<(f64, f64)> {
    let has = |d: DType| dtypes.iter().any(|x| x.to_real() == d);
    if has(DType::BFloat16) {
        Some((2e-2, 2f64.powi(-7)))
    } else if has(DType::Float16) {
        Some((2e-3, 2f64.powi(-10)))
    } else if has(DType::Float32) {
        Some((1e-5, f64::from(f32::EPSILON)))
    } else if has(DType::Float64) {
        Some((1e-12, f64::EPSILON))
    } else {
        None
    }
}

/// A bound on the rounding error of any order of summing the case's terms, `eps * n^2 * m`:
/// at most `n` terms (the largest tensor's element count), each of magnitude at most `m` (the
/// product over the case's tensors of their largest finite magnitude, at least 1), and the
/// classic bound `(n - 1) * eps / 2 * sum(|term|)`. Zero unless some storage holds literal
/// values: random fills are quarter-multiples in `[-4, 4]`, whose sums and products at these
/// sizes are exact, so their cases keep the tight tolerance.
///
/// ```
/// use bcast_conformance::case::Num;
/// use bcast_fuzzing::generators::{accumulation_error, CaseBuilder, ViewKind, ViewSpec};
/// use bcast_engine::DType;
/// let mut b = CaseBuilder::default();
/// let s = b.literal_storage(DType::Int64, vec![Num::Int(i64::MAX), Num::Int(i64::MIN)]);
/// let view = ViewSpec { strides: vec![1], offset: 0, storage_len: 2, kind: ViewKind::default() };
/// b.tensor(&s, &[2], &view);
/// // 2 terms of magnitude 2^63: 2^-52 * 2^2 * 2^63
/// assert_eq!(accumulation_error(&b, f64::EPSILON), 8192.0);
/// ```
pub fn accumulation_error(b: &CaseBuilder, eps: f64) -> f64 {
    let literal = b.named_tensor_specs().any(|(_, t)| {
        b.storage_spec(&t.storage)
            .is_some_and(|s| s.values.is_some())
    });
    if !literal {
        return 0.0;
    }
    let mut terms = 1usize;
    let mut magnitude = 1.0f64;
    for (name, t) in b.named_tensor_specs() {
        terms = terms.max(t.shape.iter().product());
        magnitude *= b.largest_finite(name).max(1.0);
    }
    let n = terms as f64;
    eps * n * n * magnitude
}
