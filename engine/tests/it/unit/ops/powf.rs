//! `float32` `pow` eight lanes at a time ([`powf_slice`], with AVX2 and FMA) against libm's
//! `powf`, bit for bit: random pairs from twelve distributions, every pair of edge values, the
//! one-at-a-time tails and in place; where it agrees with libm the engine uses it.

use bcast_engine::__internals::ops::powf::{powf_slice_counted, probe_pairs, run as powf_run};
use bcast_engine::ops::powf::powf_slice;

/// Whether libm here is glibc's FMA build (whose bits the slice function gives) on a
/// processor that can run it.
fn supported() -> bool {
    let ok = cfg!(all(target_os = "linux", target_env = "gnu"))
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma");
    if !ok {
        eprintln!("skipped: needs glibc's libm and a processor with AVX2 and FMA");
    }
    ok
}

/// The same bits, or both NaN.
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// SplitMix64, to spread test inputs.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// Uniform in `lo..hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }
}

/// Values where `powf` changes behaviour: signed zeros, infinities, NaNs (quiet and
/// signalling), subnormals, the normal range's ends, 1 and its neighbours, odd and even
/// integers, large integers, the results' overflow and underflow exponents.
const EDGES: [u32; 64] = [
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0xc000_0000,
    0x3f00_0000,
    0xbf00_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xff80_0001,
    0x7fa0_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x4040_0000,
    0xc040_0000,
    0x3fc0_0000,
    0xbfc0_0000,
    0x3e80_0000,
    0x4120_0000,
    0x2edb_e6ff,
    0x5015_02f9,
    0x3f80_0001,
    0x3f7f_ffff,
    0xbf80_0001,
    0xbf7f_ffff,
    0x42fc_0000,
    0x42fe_0000,
    0x4300_0000,
    0x4315_0000,
    0x4316_0000,
    0xc2fc_0000,
    0xc315_0000,
    0xc316_0000,
    0x3eaa_aaab,
    0x4b80_0000,
    0x4b80_0001,
    0x4b00_0001,
    0xcb00_0001,
    0x4f00_0000,
    0x7e96_76c7,
    0x006c_e3ee,
    0x3dcc_cccd,
    0xbdcc_cccd,
    0x40e0_0000,
    0xc0e0_0000,
    0x3f33_3333,
    0x41c4_0000,
    0xc1c4_0000,
    0x4780_0000,
    0x402d_f854,
    0x4049_0fdb,
    0x42b1_7218,
    0xc2b1_7218,
    0x3f35_04f3,
    0x0040_0000,
];

/// One input pair from distribution `d`.
fn pair(d: usize, rng: &mut Rng) -> (f32, f32) {
    let sign = |rng: &mut Rng| if rng.next_u32() & 1 == 0 { 1.0 } else { -1.0 };
    match d {
        // Random bit patterns for both.
        0 => (
            f32::from_bits(rng.next_u32()),
            f32::from_bits(rng.next_u32()),
        ),
        // x in [0.5, 2], y of either sign over magnitudes 2^-20..2^30.
        1 => {
            let x = rng.range(0.5, 2.0) as f32;
            let y = sign(rng) * rng.range(-20.0, 30.0).exp2();
            (x, y as f32)
        }
        // x positive, uniform over all exponents (subnormals too); y in [-200, 200].
        2 => {
            let e = rng.next_u32() % 255;
            let x = f32::from_bits(e << 23 | rng.next_u32() >> 9);
            (x, rng.range(-200.0, 200.0) as f32)
        }
        // Integer y (small, large, odd and even), x of either sign.
        3 => {
            let x = sign(rng) * rng.range(-12.0, 12.0).exp2();
            let y = match rng.next_u32() % 4 {
                0 => rng.int(1 << 23, 1 << 25) as f64,
                1 => rng.int(-(1 << 31), 1 << 31) as f64,
                _ => rng.int(-400, 400) as f64,
            };
            (x as f32, y as f32)
        }
        // y * log2(x) near the result's overflow and underflow: |t| in [120, 156].
        4 => {
            let x = f32::from_bits(rng.next_u32() % 0x7f00_0000 + 0x0080_0000);
            let lx = f64::from(x).log2();
            if lx == 0.0 {
                return (x, 1.0);
            }
            let t = sign(rng) * rng.range(120.0, 156.0);
            let y = ((t / lx) as f32).to_bits() as i64 + rng.int(-3, 4);
            (x, f32::from_bits(y as u32))
        }
        // The same with x negative and y an integer: odd or even, so the sign varies.
        5 => {
            let y = sign(rng) * rng.int(1, 300) as f64;
            let t = sign(rng) * rng.range(120.0, 156.0);
            let x = -((t / y).exp2() as f32);
            let x = f32::from_bits((x.to_bits() as i64 + rng.int(-3, 4)) as u32);
            (x, y as f32)
        }
        // x within a few thousand ulps of 1, y huge.
        6 => {
            let x = f32::from_bits((0x3f80_0000 + rng.int(-5000, 5000)) as u32);
            (x, (sign(rng) * rng.range(0.0, 40.0).exp2()) as f32)
        }
        // An edge value against random bits, either way round.
        7 => {
            let e = f32::from_bits(EDGES[rng.next_u32() as usize % EDGES.len()]);
            let r = f32::from_bits(rng.next_u32());
            if rng.next_u32() & 1 == 0 {
                (e, r)
            } else {
                (r, e)
            }
        }
        // Positive normal x, all exponents; y with |y * log2(x)| < 126: the fast path.
        8 => {
            let x = f32::from_bits(rng.next_u32() % 0x7f00_0000 + 0x0080_0000);
            let lx = f64::from(x).log2();
            (x, (rng.range(-126.0, 126.0) / lx) as f32)
        }
        // x of either sign in 2^-8..2^8, y a small integer (x^2, x^3, 1/x...).
        9 => {
            let x = sign(rng) * rng.range(-8.0, 8.0).exp2();
            (x as f32, rng.int(-15, 16) as f32)
        }
        // x in [0.5, 2], y with |y * log2(x)| < 126, so large where x is near 1: the fast
        // path where y magnifies log2(x)'s last bits, the most sensitive to how it rounds.
        10 => {
            let (x, t) = if rng.next_u32() & 1 == 0 {
                (rng.range(0.5, 2.0), rng.range(-126.0, 126.0))
            } else {
                (rng.range(0.9, 1.1), sign(rng) * rng.range(100.0, 126.0))
            };
            let x = x as f32;
            let lx = f64::from(x).log2();
            if lx == 0.0 {
                return (x, 1.0);
            }
            (x, (t / lx) as f32)
        }
        // Subnormal x, either sign; y small or an integer.
        _ => {
            let x = f32::from_bits(rng.next_u32() % 0x007f_ffff + 1) * sign(rng) as f32;
            let y = if rng.next_u32() & 1 == 0 {
                rng.range(-1.2, 1.2) as f32
            } else {
                rng.int(-2, 3) as f32
            };
            (x, y)
        }
    }
}

/// `count` pairs of each of the 12 distributions above through the slice function,
/// against libm: every result the same, most lanes computed by the vector code.
fn check_random_pairs(count: usize) {
    let mut bad = Vec::new();
    let mut fast = 0;
    for d in 0..12 {
        let mut rng = Rng(1000 + d as u64);
        let (x, y): (Vec<f32>, Vec<f32>) = (0..count).map(|_| pair(d, &mut rng)).unzip();
        let mut out = vec![0f32; count];
        // SAFETY: the callers checked AVX2 and FMA; the vectors hold `count` each.
        let (_, slow) =
            unsafe { powf_slice_counted(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), count) };
        fast += count - slow;
        bad.extend(
            (0..count)
                .filter(|&j| !same(out[j], x[j].powf(y[j])))
                .map(|j| (d, x[j], y[j])),
        );
    }
    assert!(
        bad.is_empty(),
        "{} differ, the first {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(fast > 12 * count / 3, "{fast}");
}

/// 3 million pairs (250,000 of each distribution).
#[test]
fn random_pairs_match_libm() {
    if supported() {
        check_random_pairs(if cfg!(debug_assertions) {
            5_000
        } else {
            250_000
        });
    }
}

/// The check made while writing the function: 312 million pairs, 26 million of each
/// distribution (a few minutes in release; `cargo test --release -p bcast-engine --test
/// it -- --ignored powf`).
#[test]
#[ignore = "minutes; run by hand after changing powf_slice"]
fn many_random_pairs_match_libm() {
    if supported() {
        check_random_pairs(26_000_000);
    }
}

/// Every pair of two edge values.
#[test]
fn edge_pairs_match_libm() {
    if !supported() {
        return;
    }
    let (x, y): (Vec<f32>, Vec<f32>) = EDGES
        .iter()
        .flat_map(|&a| {
            EDGES
                .iter()
                .map(move |&b| (f32::from_bits(a), f32::from_bits(b)))
        })
        .unzip();
    let mut out = vec![0f32; x.len()];
    // SAFETY: `supported()` checked AVX2 and FMA; the vectors hold `x.len()` each.
    unsafe { powf_slice(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), x.len()) };
    let bad: Vec<_> = (0..x.len())
        .filter(|&j| !same(out[j], x[j].powf(y[j])))
        .map(|j| (x[j], y[j]))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

/// The benchmark's kind of data (x, y in [1/64, 16)) is all on the vector path; each
/// special lane sends its group, and only its lane, to libm; a negative x with an integer
/// y stays on the vector path with the right sign.
#[test]
fn typical_data_takes_the_fast_path() {
    if !supported() {
        return;
    }
    let n = 1 << 16;
    let mut rng = Rng(7);
    let x: Vec<f32> = (0..n).map(|_| rng.int(1, 1024) as f32 / 64.0).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.int(1, 1024) as f32 / 64.0).collect();
    let mut out = vec![0f32; n];
    // SAFETY: `supported()` checked AVX2 and FMA; the vectors hold `n` each.
    let (slow, _) = unsafe { powf_slice_counted(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), n) };
    assert_eq!(slow, 0);
    assert!((0..n).all(|j| same(out[j], x[j].powf(y[j]))));
    let specials = [
        (f32::NAN, 3.0),
        (0.0, 3.0),
        (-1.5, 2.5),
        (f32::INFINITY, 3.0),
        (1e-40, 3.0),
        (2.0, 300.0),
        (2.0, -130.0),
        (2.0, 0.0),
        (2.0, f32::NAN),
        (2.0, f32::NEG_INFINITY),
    ];
    for (sx, sy) in specials {
        let (mut xs, mut ys, mut o) = ([2.0f32; 8], [3.0f32; 8], [0f32; 8]);
        (xs[5], ys[5]) = (sx, sy);
        // SAFETY: as above, eight each.
        let slow = unsafe { powf_slice_counted(xs.as_ptr(), ys.as_ptr(), o.as_mut_ptr(), 8) };
        assert_eq!(slow, (1, 1), "{sx} {sy}");
        assert!((0..8).all(|j| same(o[j], xs[j].powf(ys[j]))));
    }
    let xs = [-1.5f32, -2.0, -0.75, -3.0, -1.5, -2.0, -10.0, -1.0];
    let ys = [3.0f32, 2.0, -5.0, 4.0, 17.0, -3.0, 37.0, 1e10];
    let mut o = [0f32; 8];
    // SAFETY: as above, eight each.
    let slow = unsafe { powf_slice_counted(xs.as_ptr(), ys.as_ptr(), o.as_mut_ptr(), 8) };
    assert_eq!(slow, (0, 0));
    assert!((0..8).all(|j| same(o[j], xs[j].powf(ys[j]))));
}

/// Lengths 0 to 67 at three offsets (the one-at-a-time tail, nothing written outside),
/// out of place and in place on either input.
#[test]
fn in_place_and_tails() {
    if !supported() {
        return;
    }
    let mut rng = Rng(3);
    for n in 0..=67 {
        for offset in 0..3 {
            let len = n + offset;
            let (x, y): (Vec<f32>, Vec<f32>) = (0..len).map(|_| pair(3 + n % 3, &mut rng)).unzip();
            let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.powf(*b)).collect();
            let check = |got: &[f32], what: &str| {
                let ok = (offset..len).all(|j| same(got[j], want[j]));
                assert!(ok, "{what}: n {n} offset {offset}");
            };
            let mut out = vec![7.0f32; len];
            // SAFETY: `supported()` checked AVX2 and FMA; `offset + n` fits each vector.
            unsafe {
                powf_slice(
                    x.as_ptr().add(offset),
                    y.as_ptr().add(offset),
                    out.as_mut_ptr().add(offset),
                    n,
                )
            };
            check(&out, "out of place");
            assert!(out[..offset].iter().all(|&v| v == 7.0));
            let mut bx = x.clone();
            let p = bx.as_mut_ptr();
            // SAFETY: as above; the output may be the first input.
            unsafe { powf_slice(p.add(offset), y.as_ptr().add(offset), p.add(offset), n) };
            check(&bx, "in place on x");
            let mut by = y.clone();
            let p = by.as_mut_ptr();
            // SAFETY: as above; the output may be the second input.
            unsafe { powf_slice(x.as_ptr().add(offset), p.add(offset), p.add(offset), n) };
            check(&by, "in place on y");
        }
    }
}

/// Where the slice function is right, the engine uses it; its probe pairs reach the
/// vector path.
#[test]
fn used_where_it_agrees() {
    if !supported() {
        return;
    }
    assert!(powf_run().is_some());
    let (x, y): (Vec<f32>, Vec<f32>) = probe_pairs().into_iter().unzip();
    let mut out = vec![0f32; x.len()];
    // SAFETY: `supported()` checked AVX2 and FMA; the vectors hold `x.len()` each.
    let (_, slow) =
        unsafe { powf_slice_counted(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), x.len()) };
    assert!(slow < x.len() / 20, "{slow} of {}", x.len());
}
