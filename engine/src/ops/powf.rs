//! `float32` `pow` as glibc's `__powf_fma` computes it (glibc's
//! `sysdeps/ieee754/flt-32/e_powf.c`, `e_powf_log2_data.c`, `e_exp2f_data.c`, with
//! `POWF_LOG2_TABLE_BITS = 4`, `EXP2F_TABLE_BITS = 5` and, x86-64 having no
//! `TOINT_INTRINSICS`, `POWF_SCALE_BITS = 0`), eight values at a time over slices
//! ([`powf_slice`]) with AVX2 and FMA; one value at a time the engine calls libm's `powf`
//! (`f32::powf`), which torch's scalar loop calls too.
//!
//! The method: `x^y = 2^(y * log2(x))`, all in `float64`. `log2(x)`: `x = 2^k * z` with `z`
//! in `[0x3f330000, 2 * 0x3f330000)` as bits; `log2(z) = log2(c) + log1p(z/c - 1) / ln2`
//! with `1/c` and `log2(c)` from a 16-entry table and a degree-5 polynomial. `2^t`: as in
//! `expf`, a 32-entry table times a cubic. The result is rounded once to `float32`.
//!
//! Which `a * b + c` are fused decides the bits. In this machine's `__powf_fma` (glibc 2.36,
//! disassembled with its debug line info) every polynomial step is a `vfmadd`: `z*invc - 1`,
//! `A0*r + A1`, `A2*r + A3`, `A4*r + y0`, `p*r2 + q`, `y*r4 + q` in `log2`, and `C0*r + C1`,
//! `C2*r + 1`, `z*r2 + y` in `exp2`; `logc + k`, `r*r`, `r2*r2`, `y * logx`, `xd + shift`,
//! `kd - shift`, `xd - kd` and `y * s` are single unfused operations. Tests hardly see most
//! of these (the `float64` result moves by an ulp, which changes the `float32` rounding only
//! next to a tie): unfusing `z*invc - 1` changed 8 of the tests' 275 million pairs, unfusing
//! a later polynomial step none. The machine code, not the tests, settles them.
//!
//! The slice version computes on the lanes what glibc computes on its fast path, and also
//! negative `x` with an integer `y` (glibc drops the sign and then takes the same path); the
//! other lanes are left to libm.

use super::expf::TABLE as EXP2F_TABLE;
use crate::loops::BinaryRun;
use std::arch::x86_64::*;

/// `1/c` for the 16 subintervals of `log2`'s reduced argument (`__powf_log2_data.tab[i].invc`).
const INVC: [f64; 16] = [
    f64::from_bits(0x3ff661ec79f8f3be),
    f64::from_bits(0x3ff571ed4aaf883d),
    f64::from_bits(0x3ff49539f0f010b0),
    f64::from_bits(0x3ff3c995b0b80385),
    f64::from_bits(0x3ff30d190c8864a5),
    f64::from_bits(0x3ff25e227b0b8ea0),
    f64::from_bits(0x3ff1bb4a4a1a343f),
    f64::from_bits(0x3ff12358f08ae5ba),
    f64::from_bits(0x3ff0953f419900a7),
    f64::from_bits(0x3ff0000000000000),
    f64::from_bits(0x3fee608cfd9a47ac),
    f64::from_bits(0x3feca4b31f026aa0),
    f64::from_bits(0x3feb2036576afce6),
    f64::from_bits(0x3fe9c2d163a1aa2d),
    f64::from_bits(0x3fe886e6037841ed),
    f64::from_bits(0x3fe767dcf5534862),
];

/// `log2(c)` for the same subintervals (`__powf_log2_data.tab[i].logc`).
const LOGC: [f64; 16] = [
    f64::from_bits(0xbfdefec65b963019),
    f64::from_bits(0xbfdb0b6832d4fca4),
    f64::from_bits(0xbfd7418b0a1fb77b),
    f64::from_bits(0xbfd39de91a6dcf7b),
    f64::from_bits(0xbfd01d9bf3f2b631),
    f64::from_bits(0xbfc97c1d1b3b7af0),
    f64::from_bits(0xbfc2f9e393af3c9f),
    f64::from_bits(0xbfb960cbbf788d5c),
    f64::from_bits(0xbfaa6f9db6475fce),
    f64::from_bits(0x0000000000000000),
    f64::from_bits(0x3fb338ca9f24f53d),
    f64::from_bits(0x3fc476a9543891ba),
    f64::from_bits(0x3fce840b4ac4e4d2),
    f64::from_bits(0x3fd40645f0c6651c),
    f64::from_bits(0x3fd88e9c2c1b9ff8),
    f64::from_bits(0x3fdce0a44eb17bcc),
];

/// `log1p(r) / ln2` polynomial, highest degree first (`__powf_log2_data.poly`).
const A: [f64; 5] = [
    f64::from_bits(0x3fd27616c9496e0b),
    f64::from_bits(0xbfd71969a075c67a),
    f64::from_bits(0x3fdec70a6ca7badd),
    f64::from_bits(0xbfe7154748bef6c8),
    f64::from_bits(0x3ff71547652ab82b),
];

/// `2^r - 1` cubic for `|r| <= 1/64`, highest degree first (`__exp2f_data.poly`).
const C: [f64; 3] = [
    f64::from_bits(0x3fac6af84b912394),
    f64::from_bits(0x3fcebfce50fac4f3),
    f64::from_bits(0x3fe62e42ff0c52d6),
];

/// `0x1.8p+52 / 32`: adding it rounds to a multiple of 1/32, the 32nds left in the low bits
/// (`__exp2f_data.shift_scaled`).
const SHIFT: f64 = f64::from_bits(0x42e8000000000000);
/// Bits `x - OFF` puts the reduced argument in `[OFF, 2 * OFF)`.
const OFF: u32 = 0x3f330000;
/// `asuint64(126.0) >> 47`: `y * log2(x)` at least this large in magnitude (by its top bits)
/// leaves the fast path.
const BAND: u64 = 0x80bf;

/// `log2(x)`, `y * log2(x)`, `2^(y * log2(x))` on four `float64` lanes, for `|x|` normal
/// and finite: the fast path of glibc's `powf`, the same operations fused the same way. `z` and
/// `k` come from `x`'s bits, `invc` and `logc` from the tables (glibc's `log2_inline`). Returns
/// the result and the lanes whose `y * log2(x)` left the fast path (all bits set).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn pow4d(z: __m128, k: __m128i, invc: __m256d, logc: __m256d, y: __m128) -> (__m256d, __m256i) {
    let z = _mm256_cvtps_pd(z);
    let kd = _mm256_cvtepi32_pd(k);
    let r = _mm256_fmadd_pd(z, invc, _mm256_set1_pd(-1.0));
    let y0 = _mm256_add_pd(logc, kd);
    let r2 = _mm256_mul_pd(r, r);
    let yp = _mm256_fmadd_pd(_mm256_set1_pd(A[0]), r, _mm256_set1_pd(A[1]));
    let p = _mm256_fmadd_pd(_mm256_set1_pd(A[2]), r, _mm256_set1_pd(A[3]));
    let r4 = _mm256_mul_pd(r2, r2);
    let q = _mm256_fmadd_pd(_mm256_set1_pd(A[4]), r, y0);
    let q = _mm256_fmadd_pd(p, r2, q);
    let logx = _mm256_fmadd_pd(yp, r4, q);
    let ylogx = _mm256_mul_pd(_mm256_cvtps_pd(y), logx);

    let top = _mm256_srli_epi64::<47>(_mm256_castpd_si256(ylogx));
    let top = _mm256_and_si256(top, _mm256_set1_epi64x(0xffff));
    let band = _mm256_cmpgt_epi64(top, _mm256_set1_epi64x(BAND as i64 - 1));

    let shift = _mm256_set1_pd(SHIFT);
    let kd = _mm256_add_pd(ylogx, shift);
    let ki = _mm256_castpd_si256(kd);
    let kd = _mm256_sub_pd(kd, shift);
    let r = _mm256_sub_pd(ylogx, kd);
    let idx = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
    // SAFETY: `idx` is in 0..32, inside the 32-entry table.
    let t = unsafe { _mm256_i64gather_epi64::<8>(EXP2F_TABLE.as_ptr().cast::<i64>(), idx) };
    let s = _mm256_castsi256_pd(_mm256_add_epi64(t, _mm256_slli_epi64::<47>(ki)));
    let zc = _mm256_fmadd_pd(_mm256_set1_pd(C[0]), r, _mm256_set1_pd(C[1]));
    let r2 = _mm256_mul_pd(r, r);
    let yc = _mm256_fmadd_pd(_mm256_set1_pd(C[2]), r, _mm256_set1_pd(1.0));
    let yc = _mm256_fmadd_pd(zc, r2, yc);
    (_mm256_mul_pd(yc, s), band)
}

/// A 16-entry `float64` table as four rows of eight `i32`: the low halves of entries 0..8
/// and 8..16, then the high halves, for [`lookup16`].
const fn split(table: &[f64; 16]) -> [[i32; 8]; 4] {
    let mut rows = [[0; 8]; 4];
    let mut j = 0;
    while j < 16 {
        let bits = table[j].to_bits();
        rows[j / 8][j % 8] = bits as u32 as i32;
        rows[2 + j / 8][j % 8] = (bits >> 32) as u32 as i32;
        j += 1;
    }
    rows
}

/// [`INVC`] and [`LOGC`], [`split`].
const INVC_ROWS: [[i32; 8]; 4] = split(&INVC);
const LOGC_ROWS: [[i32; 8]; 4] = split(&LOGC);

/// `table[i]` for the eight indices `i` (each in `0..16`) as lanes 0..4 and 4..8, from the
/// table's [`split`] rows: permutes within registers, quicker than two gathers here (AMD
/// Zen 4: `powf_slice` about 13% faster).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn lookup16(rows: &[[i32; 8]; 4], i: __m256i) -> (__m256d, __m256d) {
    // SAFETY: each row holds eight `i32`.
    let row = |r: usize| unsafe { _mm256_loadu_si256(rows[r].as_ptr().cast()) };
    // Index bit 3 moved to the sign bit picks the second row of a pair.
    let upper = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
    let pick = |a, b| {
        _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a, i)),
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(b, i)),
            upper,
        ))
    };
    let lo = pick(row(0), row(1));
    let hi = pick(row(2), row(3));
    let a = _mm256_unpacklo_epi32(lo, hi); // lanes 0, 1, 4, 5
    let b = _mm256_unpackhi_epi32(lo, hi); // lanes 2, 3, 6, 7
    (
        _mm256_castsi256_pd(_mm256_permute2x128_si256::<0x20>(a, b)),
        _mm256_castsi256_pd(_mm256_permute2x128_si256::<0x31>(a, b)),
    )
}

/// glibc's `powf` fast path on eight lanes. Returns the results and a bit mask of the lanes
/// (bit `j` for lane `j`) that are off it, whose results are to be replaced: `x` zero,
/// subnormal, infinite or NaN; `x` negative and `y` not an integer; `y` zero, infinite or
/// NaN; `|y * log2(x)| >= 126`. (glibc's own fast path is only positive normal `x`; a
/// negative `x` with an integer `y` goes through its slow branch only to drop the sign and
/// note `sign_bias`, then the same fast code: done here on the lanes.)
#[inline]
#[target_feature(enable = "avx2,fma")]
fn powf8(x: __m256, y: __m256) -> (__m256, u32) {
    let splat = _mm256_set1_epi32;
    let ix = _mm256_castps_si256(x);
    let iy = _mm256_castps_si256(y);
    let neg = _mm256_srai_epi32::<31>(ix);
    let ix = _mm256_and_si256(ix, splat(0x7fff_ffff));
    // Unsigned `a <= b` as `min(a, b) == a`.
    let ule = |a, b| _mm256_cmpeq_epi32(_mm256_min_epu32(a, splat(b)), a);
    // |x| normal and finite; y not zero, infinite or NaN (glibc's `zeroinfnan`).
    let x_ok = ule(_mm256_sub_epi32(ix, splat(0x0080_0000)), 0x7eff_ffff);
    let y_ok = ule(
        _mm256_sub_epi32(_mm256_add_epi32(iy, iy), splat(1)),
        0xfeff_fffe_u32 as i32,
    );
    // glibc's `checkint`: with `e` y's biased exponent, y is an integer when `e >= 0x7f`
    // and its bits below `1 << (0x96 - e)` are clear (all are when `e > 0x96`), odd when
    // that bit is set (shifts past 31, negative ones included, give 0 in `sllv`).
    let e = _mm256_and_si256(_mm256_srli_epi32::<23>(iy), splat(0xff));
    let unit = _mm256_sllv_epi32(splat(1), _mm256_sub_epi32(splat(0x96), e));
    let frac = _mm256_and_si256(iy, _mm256_sub_epi32(unit, splat(1)));
    let zero = _mm256_setzero_si256();
    let whole = _mm256_or_si256(
        _mm256_cmpeq_epi32(frac, zero),
        _mm256_cmpgt_epi32(e, splat(0x96)),
    );
    let int = _mm256_andnot_si256(_mm256_cmpgt_epi32(splat(0x7f), e), whole);
    let odd = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(iy, unit), zero), int);
    let sign_ok = _mm256_or_si256(_mm256_xor_si256(neg, splat(-1)), int);
    let ok = _mm256_and_si256(_mm256_and_si256(x_ok, y_ok), sign_ok);
    let ok = _mm256_movemask_ps(_mm256_castsi256_ps(ok)) as u32;

    let tmp = _mm256_sub_epi32(ix, splat(OFF as i32));
    let i = _mm256_and_si256(_mm256_srli_epi32::<19>(tmp), splat(15));
    let top = _mm256_and_si256(tmp, splat(0xff80_0000_u32 as i32));
    let z = _mm256_castsi256_ps(_mm256_sub_epi32(ix, top));
    let k = _mm256_srai_epi32::<23>(top);

    let (invc_lo, invc_hi) = lookup16(&INVC_ROWS, i);
    let (logc_lo, logc_hi) = lookup16(&LOGC_ROWS, i);
    let (lo, band_lo) = pow4d(
        _mm256_castps256_ps128(z),
        _mm256_castsi256_si128(k),
        invc_lo,
        logc_lo,
        _mm256_castps256_ps128(y),
    );
    let (hi, band_hi) = pow4d(
        _mm256_extractf128_ps::<1>(z),
        _mm256_extracti128_si256::<1>(k),
        invc_hi,
        logc_hi,
        _mm256_extractf128_ps::<1>(y),
    );
    let band = _mm256_movemask_pd(_mm256_castsi256_pd(band_lo)) as u32
        | (_mm256_movemask_pd(_mm256_castsi256_pd(band_hi)) as u32) << 4;
    let result = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
    // glibc's `sign_bias` flips the sign of `s`, so of `y * s`; rounding to nearest is
    // symmetric, so flipping the `float32` result's sign gives the same bits.
    let flip = _mm256_and_si256(_mm256_and_si256(neg, odd), splat(i32::MIN));
    let result = _mm256_xor_ps(result, _mm256_castsi256_ps(flip));
    (result, (!ok | band) & 0xff)
}

/// `out[i] = powf(x[i], y[i])` for `i < n`, bit for bit glibc's `powf` (Rust's `f32::powf`
/// on x86-64 Linux with FMA) for every pair, eight at a time. Lanes off the fast path (see
/// `powf8`: `x` zero, subnormal, infinite or NaN, or negative with `y` not an integer; `y`
/// zero, infinite or NaN; results near or past the `float32` range) and the last `n % 8`
/// are `f32::powf` itself, libm's call.
///
/// # Safety
///
/// The processor must have AVX2 and FMA. `x` and `y` must be valid for `n` reads and `out`
/// for `n` writes; `out` may be the same pointer as `x` or `y` (in place) but must not
/// otherwise overlap them.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn powf_slice(x: *const f32, y: *const f32, out: *mut f32, n: usize) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe { powf_slice_counted(x, y, out, n) };
}

/// [`powf_slice`], returning how many groups of eight had a lane off the fast path and how
/// many lanes in all went to `f32::powf` there (for tests and tuning).
///
/// # Safety
///
/// As [`powf_slice`].
#[doc(hidden)]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn powf_slice_counted(
    x: *const f32,
    y: *const f32,
    out: *mut f32,
    n: usize,
) -> (usize, usize) {
    let (mut slow_groups, mut slow_lanes) = (0, 0);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: `i + 8 <= n`, so the groups are inside the caller's buffers; both inputs
        // are read whole before the output is written, which makes in place safe.
        let (vx, vy) = unsafe { (_mm256_loadu_ps(x.add(i)), _mm256_loadu_ps(y.add(i))) };
        let (mut v, slow) = powf8(vx, vy);
        if slow != 0 {
            slow_groups += 1;
            slow_lanes += slow.count_ones() as usize;
            let (mut xs, mut ys, mut rs) = ([0f32; 8], [0f32; 8], [0f32; 8]);
            // SAFETY: the arrays hold eight `f32` each.
            unsafe {
                _mm256_storeu_ps(xs.as_mut_ptr(), vx);
                _mm256_storeu_ps(ys.as_mut_ptr(), vy);
                _mm256_storeu_ps(rs.as_mut_ptr(), v);
            }
            for j in 0..8 {
                if slow >> j & 1 != 0 {
                    rs[j] = xs[j].powf(ys[j]);
                }
            }
            // SAFETY: as above.
            v = unsafe { _mm256_loadu_ps(rs.as_ptr()) };
        }
        // SAFETY: `i + 8 <= n`.
        unsafe { _mm256_storeu_ps(out.add(i), v) };
        i += 8;
    }
    while i < n {
        // SAFETY: `i < n`.
        unsafe { *out.add(i) = (*x.add(i)).powf(*y.add(i)) };
        i += 1;
    }
    (slow_groups, slow_lanes)
}

/// [`powf_slice`] where it gives libm's bits: on x86-64 Linux with glibc, a processor with
/// AVX2 and FMA, and once checked against this libm's `powf` on pairs that reach every part
/// of the fast path (another libm computes `powf` its own way, and the engine's values are
/// libm's).
#[doc(hidden)]
pub fn run() -> Option<BinaryRun<f32, f32, f32>> {
    static AGREES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let supported = cfg!(all(target_os = "linux", target_env = "gnu"))
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma");
    let agrees = supported && *AGREES.get_or_init(|| agrees_with_libm(&probe_pairs()));
    agrees.then_some(powf_slice as BinaryRun<f32, f32, f32>)
}

/// Pairs over the fast path's parts: every one of the 16 `log2` subintervals and many of the
/// 32 `exp2` table entries, both signs of `x` with integer `y`, exponents from `2^-40` to
/// `2^40`.
#[doc(hidden)]
pub fn probe_pairs() -> Vec<(f32, f32)> {
    let mut pairs = Vec::new();
    for i in 0..512u32 {
        // Exponents -40..=40, mantissas spread: |y * log2(x)| stays below 126.
        let exponent = 87 + i * 7 % 81;
        let x = f32::from_bits(exponent << 23 | i.wrapping_mul(0x0077_3593) & 0x7f_ffff);
        let y = (i % 37) as f32 * 0.173 - 3.1;
        pairs.push((x, y));
        pairs.push((-x, [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0][i as usize % 6]));
    }
    pairs
}

/// Whether [`powf_slice`] gives `f32::powf`'s bits on every pair.
fn agrees_with_libm(pairs: &[(f32, f32)]) -> bool {
    let (x, y): (Vec<f32>, Vec<f32>) = pairs.iter().copied().unzip();
    let mut out = vec![0.0f32; pairs.len()];
    // SAFETY: called only where AVX2 and FMA are there; the three vectors hold
    // `pairs.len()` elements.
    unsafe { powf_slice(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), pairs.len()) };
    pairs.iter().zip(&out).all(|(&(a, b), &r)| {
        r.to_bits() == a.powf(b).to_bits() || (r.is_nan() && a.powf(b).is_nan())
    })
}
