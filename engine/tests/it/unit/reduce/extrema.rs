//! The extremum folds' plain-select rows against the fold with `pick` at every step, NaNs,
//! signed zeros and infinities included.

use bcast_engine::__internals::reduce::extrema::{Extremum, ExtremumFold};
use bcast_engine::__internals::reduce::walk::{fold_row, Fold, FoldWith};

/// Rows of every length up to three chunks of lanes and some longer, with NaNs of
/// different payloads in every position (or none), signed zeros and infinities: the
/// plain-select row fold gives the bits of the fold with `pick` at every step.
fn rows_match<T: Extremum + std::fmt::Debug, const MAX: bool>(
    values: &[T],
    nans: [T; 2],
    bits: impl Fn(T) -> u64,
) {
    let pick = |a: T, v: T| T::pick(a, v, MAX);
    let reference = FoldWith(T::identity(MAX), pick, pick);
    let fold = ExtremumFold::<MAX>;
    for len in (0..50).chain([1024, 1037]) {
        let base: Vec<T> = (0..len)
            .map(|i| values[(i * 7 + len) % values.len()])
            .collect();
        let mut rows = vec![base.clone()];
        for at in (0..len).step_by(if len > 50 { 97 } else { 1 }) {
            let mut row = base.clone();
            row[at] = nans[0];
            rows.push(row.clone());
            row[len - 1 - at / 2] = nans[1];
            rows.push(row);
        }
        for row in &rows {
            for acc in [T::identity(MAX), values[0], nans[1]] {
                let want = fold_row(&reference, acc, row);
                let got = Fold::<T>::row(&fold, acc, row);
                assert_eq!(bits(got), bits(want), "length {len}, {row:?}");
            }
        }
    }
}

#[test]
fn float_rows_fold_as_with_pick() {
    // Mixed values, and rows whose extremum is a zero of either sign (ties decide).
    let sets: [&[f32]; 3] = [
        &[
            1.5,
            -0.0,
            0.0,
            -3.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            7.25,
            -7.25,
            1e-40,
        ],
        &[-0.0, 0.0, -1.0],
        &[0.0, -0.0, 1.0],
    ];
    let f32_nans = [f32::from_bits(0x7fc0_0001), f32::from_bits(0xffc0_0002)];
    let f64_nans = [
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::from_bits(0xfff8_0000_0000_0002),
    ];
    let f32_bits = |v: f32| u64::from(v.to_bits());
    for f32s in sets {
        rows_match::<f32, true>(f32s, f32_nans, f32_bits);
        rows_match::<f32, false>(f32s, f32_nans, f32_bits);
        let f64s: Vec<f64> = f32s.iter().map(|&v| f64::from(v)).collect();
        rows_match::<f64, true>(&f64s, f64_nans, f64::to_bits);
        rows_match::<f64, false>(&f64s, f64_nans, f64::to_bits);
    }
}
