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
    // The longer rows end in every kind of tail: none, a part of a chunk, chunks and a part.
    for len in (0..50).chain([79, 80, 95, 150, 1024, 1037]) {
        let base: Vec<T> = (0..len)
            .map(|i| values[(i * 7 + len) % values.len()])
            .collect();
        let mut rows = vec![base.clone()];
        for at in (0..len).step_by(match len {
            0..=50 => 1,
            51..=200 => 7,
            _ => 97,
        }) {
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

/// `float16` and `bfloat16` pick by their bits as `f32` picks by value: over pairs of
/// every sign and magnitude class (zeros of both signs, subnormals, normals, infinities,
/// NaNs of both signs), the same element (bits), for `max` and `min`.
#[test]
fn half_picks_by_bits_as_f32_picks_by_value() {
    use bcast_engine::half::{BFloat16, Half};
    fn f32_pick(a: f32, v: f32, max: bool) -> bool {
        let better = if max { v > a } else { v < a };
        better | v.is_nan()
    }
    fn check<T: Extremum + Copy>(
        bits: &[u16],
        of: impl Fn(u16) -> T,
        to_f32: impl Fn(T) -> f32,
        back: impl Fn(T) -> u16,
    ) {
        for &a in bits {
            for &v in bits {
                for max in [true, false] {
                    let (x, y) = (of(a), of(v));
                    let want = if f32_pick(to_f32(x), to_f32(y), max) {
                        v
                    } else {
                        a
                    };
                    assert_eq!(
                        back(T::pick(x, y, max)),
                        want,
                        "{a:#06x} {v:#06x} max {max}"
                    );
                }
            }
        }
    }
    let magnitudes = [
        0x0000u16, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7fff,
    ];
    let halves: Vec<u16> = magnitudes.iter().flat_map(|&m| [m, m | 0x8000]).collect();
    check(&halves, Half, Half::to_f32, Half::to_bits);
    let magnitudes = [
        0x0000u16, 0x0001, 0x007f, 0x0080, 0x3f80, 0x3f81, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0, 0x7fff,
    ];
    let brains: Vec<u16> = magnitudes.iter().flat_map(|&m| [m, m | 0x8000]).collect();
    check(
        &brains,
        BFloat16::from_bits,
        BFloat16::to_f32,
        BFloat16::to_bits,
    );
}
