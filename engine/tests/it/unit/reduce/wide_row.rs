//! The `f64` row sums of the float reductions ([`sum_row`]): the vector path (AVX-512 where
//! the processor has it) against the portable one and against the order written out index
//! by index, bit for bit, for every float dtype, over rows whose order of addition shows in
//! the last bits.

use bcast_engine::__internals::reduce::wide_row::{
    add_rows_portable, sum_row, sum_row_portable, WideElement,
};
use bcast_engine::half::{BFloat16, Half};

/// The documented `float64` order, index by index: element `i` of the whole
/// 32s into lane `i % 32`, the lanes joined, added to `acc`, then the tail; a row shorter
/// than 64 one by one.
fn model<T: WideElement>(acc: f64, row: &[T]) -> f64 {
    if row.len() < 64 {
        return row.iter().fold(acc, |a, v| a + v.wide());
    }
    let whole = row.len() / 32 * 32;
    let mut l = [0.0f64; 32];
    for (i, v) in row[..whole].iter().enumerate() {
        l[i % 32] += v.wide();
    }
    row[whole..]
        .iter()
        .fold(acc + join(&l), |a, v| a + v.wide())
}

/// The documented `float32` and half-precision order, index by index: element `i` of the
/// whole 128s into `f32` lane `i % 128` of block `i / 1024`; at each block's end lanes `l`,
/// `l + 64`, `l + 32` and `l + 96` added in pairs in `f32` into `f64` lane `l`; then as
/// [`model`], the tail past the last whole 128.
fn half_model<T: WideElement>(acc: f64, row: &[T], narrow: impl Fn(T) -> f32) -> f64 {
    if row.len() < 128 {
        return row.iter().fold(acc, |a, v| a + v.wide());
    }
    let whole = row.len() / 128 * 128;
    let mut l = [0.0f64; 32];
    for block in row[..whole].chunks(1024) {
        let mut b = [0.0f32; 128];
        for (i, &v) in block.iter().enumerate() {
            b[i % 128] += narrow(v);
        }
        for j in 0..32 {
            l[j] += ((b[j] + b[j + 64]) + (b[j + 32] + b[j + 96])) as f64;
        }
    }
    row[whole..]
        .iter()
        .fold(acc + join(&l), |a, v| a + v.wide())
}

/// `(l[j] + l[j+8]) + (l[j+16] + l[j+24])` for `j < 8`, then `s[j] + s[j+4]`, then
/// `(u[0] + u[2]) + (u[1] + u[3])`.
fn join(l: &[f64; 32]) -> f64 {
    let s: Vec<f64> = (0..8)
        .map(|j| (l[j] + l[j + 8]) + (l[j + 16] + l[j + 24]))
        .collect();
    let u: Vec<f64> = (0..4).map(|j| s[j] + s[j + 4]).collect();
    (u[0] + u[2]) + (u[1] + u[3])
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Values of many magnitudes and both signs (a xorshift), so that any other order of
/// addition changes the sum's last bits.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mantissa = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            mantissa * 2f64.powi((x % 40) as i32 - 20)
        })
        .collect()
}

/// Every length from 0 to 200 and three long ones, against `model` and the portable path.
fn check<T: WideElement>(from: impl Fn(f64) -> T, model: impl Fn(f64, &[T]) -> f64, name: &str) {
    for (k, len) in (0..=200).chain([1000, 4133, 20_000]).enumerate() {
        let row: Vec<T> = values(len, 7 + k as u64).into_iter().map(&from).collect();
        let want = model(0.25, &row);
        assert!(same(sum_row(0.25, &row), want), "{name}: row of {len}");
        assert!(
            same(sum_row_portable(0.25, &row), want),
            "{name}: row of {len}"
        );
    }
}

#[test]
fn every_float_dtype_sums_in_the_documented_order() {
    check(|v| v, model, "float64");
    let single = |acc, row: &[f32]| half_model(acc, row, |v| v);
    check(|v| v as f32, single, "float32");
    let half = |acc, row: &[Half]| half_model(acc, row, Half::to_f32);
    check(|v| Half::from_f32((v / 8.0) as f32), half, "float16");
    let brain = |acc, row: &[BFloat16]| half_model(acc, row, BFloat16::to_f32);
    check(|v| BFloat16::from_f32(v as f32), brain, "bfloat16");
}

/// The order matters for these rows: a sum one by one differs from the lanes' in the last
/// bits, and `f32` blocks from `f64` lanes, for halves and `float32` alike (so the test above
/// can tell the orders apart).
#[test]
fn the_rows_tell_orders_apart() {
    let row: Vec<f64> = values(1000, 8);
    let one_by_one = row.iter().fold(0.25, |a, v| a + v);
    assert_ne!(sum_row(0.25, &row).to_bits(), one_by_one.to_bits());
    // Below `2^15` (the values reach `2^18`), so no half is infinite.
    let halves: Vec<Half> = row
        .iter()
        .map(|&v| Half::from_f32((v / 8.0) as f32))
        .collect();
    assert_ne!(
        sum_row(0.25, &halves).to_bits(),
        model(0.25, &halves).to_bits()
    );
    let singles: Vec<f32> = row.iter().map(|&v| v as f32).collect();
    assert_ne!(
        sum_row(0.25, &singles).to_bits(),
        model(0.25, &singles).to_bits()
    );
}

/// The `f32` blocks stay within `10 · 2^-24` of the elements' magnitudes of the exact sum
/// (for halves a thousandth of a half's last bit; `f64` lanes, exact here for halves, whose
/// elements are multiples of `2^-24` below `2^16`, and within `2^-29` of the magnitudes for
/// `float32`).
#[test]
fn f32_blocks_stay_close_to_the_exact_sum() {
    fn check<T: WideElement>(from: impl Fn(f64) -> T, slack: f64) {
        for seed in 1..20 {
            let row: Vec<T> = values(5000, seed).into_iter().map(&from).collect();
            let exact = model(0.0, &row);
            let magnitudes: f64 = row.iter().map(|h| h.wide().abs()).sum();
            let error = (sum_row(0.0, &row) - exact).abs();
            assert!(
                error <= (10.0 * 2f64.powi(-24) + slack) * magnitudes,
                "seed {seed}: {error}"
            );
            assert!(
                error > 0.0 || seed > 1,
                "seed {seed}: the blocks were exact"
            );
        }
    }
    check(|v| Half::from_f32((v / 8.0) as f32), 0.0);
    check(|v| v as f32, 2f64.powi(-29));
}

/// Every `float16` and `bfloat16` bit pattern converts as the element does (subnormals
/// among them); a NaN or infinity reaches the sum as it would one by one.
#[test]
fn every_half_pattern_converts_as_the_element_does() {
    let halves: Vec<Half> = (0..=u16::MAX).map(Half).collect();
    let brains: Vec<BFloat16> = (0..=u16::MAX).map(BFloat16::from_bits).collect();
    let finite_h: Vec<Half> = halves
        .iter()
        .copied()
        .filter(|h| h.to_f32().is_finite())
        .collect();
    let finite_b: Vec<BFloat16> = brains
        .iter()
        .copied()
        .filter(|h| h.to_f32().is_finite())
        .collect();
    let (h, b) = (Half::to_f32, BFloat16::to_f32);
    assert!(same(sum_row(0.0, &finite_h), half_model(0.0, &finite_h, h)));
    assert!(same(sum_row(0.0, &finite_b), half_model(0.0, &finite_b, b)));
    for chunk in finite_h.chunks(1097) {
        assert!(same(sum_row(1.5, chunk), half_model(1.5, chunk, h)));
    }
    assert!(sum_row(0.0, &halves).is_nan());
    assert!(sum_row(0.0, &brains).is_nan());
    let mut inf = vec![Half::from_f32(1.0); 100];
    inf[70] = Half::from_f32(f32::INFINITY);
    assert_eq!(sum_row(0.0, &inf), f64::INFINITY);
}

/// Rows added into a row of accumulators (a reduction over an outer dim): the vector path
/// against the portable one and against the documented order, four rows at a time, each
/// column added left to right (`float64`) or its four elements added in pairs in `f32` and
/// then to the accumulator (the others), the rows past the last whole four one by one; for
/// widths around the vectors' sixteen and up to seventeen rows (the vector path takes eight
/// a pass, then four), at scattered positions.
#[test]
fn rows_add_into_accumulators_column_by_column() {
    fn check<T: WideElement>(from: impl Fn(f64) -> T, narrow: Option<fn(T) -> f32>, name: &str) {
        for width in (0..=40).chain([64, 79, 1000, 1027]) {
            let data: Vec<T> = values(12 * width + 50, 100)
                .into_iter()
                .map(&from)
                .collect();
            for count in 0..=37 {
                let starts: Vec<usize> = (0..count).map(|k| (k * 7 % 12) * width + k).collect();
                let start = values(width, 99);
                let row = |k: usize, j: usize| data[starts[k] + j];
                let want: Vec<f64> = (0..width)
                    .map(|j| {
                        let mut a = start[j];
                        for q in 0..count / 4 {
                            let r = |i: usize| row(4 * q + i, j);
                            a = match narrow {
                                None => (0..4).fold(a, |a, i| a + r(i).wide()),
                                Some(n) => a + ((n(r(0)) + n(r(1))) + (n(r(2)) + n(r(3)))) as f64,
                            };
                        }
                        (count / 4 * 4..count).fold(a, |a, k| a + row(k, j).wide())
                    })
                    .collect();
                let mut fast = start.clone();
                T::add_rows(&mut fast, &data, &starts);
                let mut plain = start.clone();
                add_rows_portable(&mut plain, &data, &starts);
                for j in 0..width {
                    let at = format!("{name}: width {width}, {count} rows, column {j}");
                    assert!(same(fast[j], want[j]), "{at}");
                    assert!(same(plain[j], want[j]), "{at}");
                }
            }
        }
    }
    check(|v| v, None, "float64");
    check(|v| v as f32, Some(|v| v), "float32");
    check(
        |v| Half::from_f32((v / 8.0) as f32),
        Some(Half::to_f32),
        "float16",
    );
    check(
        |v| BFloat16::from_f32(v as f32),
        Some(BFloat16::to_f32),
        "bfloat16",
    );
}
