//! `float32` `exp` as glibc computes it (`__expf`, glibc 2.27 and later, in the version built
//! with fused multiply-adds that x86-64 processors with FMA run), written without branches
//! so that a loop over it vectorises. torch's scalar loop calls libm's `expf`, so the engine
//! gives the same bits as torch's fixtures without a call per element.
//!
//! The method (Szabolcs Nagy's, Arm Ltd., MIT licence): `x / ln2 * 32 = k + r` with `k` an
//! integer and `|r| <= 1/2`; `2^(k/32)` from a 32-entry table and the exponent bits,
//! `2^(r/32)` by a cubic, all in `float64`, rounded once to `float32`. Out of range: NaN stays
//! NaN, above `0x1.62e42ep6` is `inf`, below `-0x1.9fe368p6` is `0`; everything else (the
//! subnormal results included) goes the same way.
//!
//! [`expf_slice`] computes the same eight values at a time with AVX2 and FMA (the table
//! lookup is a gather, which the compiler does not emit for the scalar loop by itself), and
//! [`expf_slice_avx512`] sixteen at a time where the processor has AVX-512 (the table held
//! in four registers and looked up with two-register permutes instead of a gather).
//!
//! ```
//! # use bcast_engine::ops::expf::expf;
//! assert_eq!(expf(0.0), 1.0);
//! assert_eq!(expf(1.0), std::f32::consts::E);
//! assert_eq!(expf(f32::NEG_INFINITY), 0.0);
//! assert_eq!(expf(100.0), f32::INFINITY);
//! assert!(expf(f32::NAN).is_nan());
//! ```

/// `2^(i/32)` as `float64` bits, less `i << 47` (added back with `k`'s bits): glibc's
/// `__exp2f_data.tab`, which its `powf` uses too ([`super::powf`]).
pub(crate) const TABLE: [u64; 32] = [
    0x3ff0000000000000,
    0x3fefd9b0d3158574,
    0x3fefb5586cf9890f,
    0x3fef9301d0125b51,
    0x3fef72b83c7d517b,
    0x3fef54873168b9aa,
    0x3fef387a6e756238,
    0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715,
    0x3feef1a7373aa9cb,
    0x3feedea64c123422,
    0x3feece086061892d,
    0x3feebfdad5362a27,
    0x3feeb42b569d4f82,
    0x3feeab07dd485429,
    0x3feea47eb03a5585,
    0x3feea09e667f3bcd,
    0x3fee9f75e8ec5f74,
    0x3feea11473eb0187,
    0x3feea589994cce13,
    0x3feeace5422aa0db,
    0x3feeb737b0cdc5e5,
    0x3feec49182a3f090,
    0x3feed503b23e255d,
    0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47,
    0x3fef199bdd85529c,
    0x3fef3720dcef9069,
    0x3fef5818dcfba487,
    0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da,
    0x3fefd0765b6e4540,
];

use crate::loops::UnaryRun;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The table's size, as a `float64`.
const N: f64 = 32.0;

/// `e^x`, bit for bit glibc's `expf` (see the module).
#[inline(always)]
pub fn expf(x: f32) -> f32 {
    // 0x1.71547652b82fep+0 * 32, 0x1.8p+52, and the cubic's coefficients scaled by 32.
    let inv_ln2_n = f64::from_bits(0x3ff71547652b82fe) * N;
    let shift = f64::from_bits(0x4338000000000000);
    let c0 = f64::from_bits(0x3fac6af84b912394) / N / N / N;
    let c1 = f64::from_bits(0x3fcebfce50fac4f3) / N / N;
    let c2 = f64::from_bits(0x3fe62e42ff0c52d6) / N;
    let xd = f64::from(x);
    let kd = inv_ln2_n.mul_add(xd, shift);
    let ki = kd.to_bits();
    let r = inv_ln2_n.mul_add(xd, -(kd - shift));
    let s = f64::from_bits(TABLE[(ki % 32) as usize].wrapping_add(ki << 47));
    let y = c0.mul_add(r, c1).mul_add(r * r, c2.mul_add(r, 1.0)) * s;
    if x.is_nan() {
        x + x
    } else if x > f32::from_bits(0x42b17217) {
        f32::INFINITY
    } else if x < f32::from_bits(0xc2cff1b4) {
        0.0
    } else {
        y as f32
    }
}

/// [`expf`]'s `float64` part on four lanes: the same operations, fused the same way.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn expf4d(xd: __m256d) -> __m256d {
    let inv_ln2_n = _mm256_set1_pd(f64::from_bits(0x3ff71547652b82fe) * N);
    let shift = _mm256_set1_pd(f64::from_bits(0x4338000000000000));
    let c0 = _mm256_set1_pd(f64::from_bits(0x3fac6af84b912394) / N / N / N);
    let c1 = _mm256_set1_pd(f64::from_bits(0x3fcebfce50fac4f3) / N / N);
    let c2 = _mm256_set1_pd(f64::from_bits(0x3fe62e42ff0c52d6) / N);
    let kd = _mm256_fmadd_pd(inv_ln2_n, xd, shift);
    let ki = _mm256_castpd_si256(kd);
    // inv_ln2_n * xd - (kd - shift) with one rounding, as `mul_add(xd, -(kd - shift))`.
    let r = _mm256_fmsub_pd(inv_ln2_n, xd, _mm256_sub_pd(kd, shift));
    let idx = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
    // SAFETY: every index is in 0..32, inside the table.
    let t = unsafe { _mm256_i64gather_epi64::<8>(TABLE.as_ptr().cast::<i64>(), idx) };
    let s = _mm256_castsi256_pd(_mm256_add_epi64(t, _mm256_slli_epi64::<47>(ki)));
    let p = _mm256_fmadd_pd(c0, r, c1);
    let q = _mm256_fmadd_pd(c2, r, _mm256_set1_pd(1.0));
    _mm256_mul_pd(_mm256_fmadd_pd(p, _mm256_mul_pd(r, r), q), s)
}

/// [`expf`] on eight lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn expf8(x: __m256) -> __m256 {
    let lo = expf4d(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    let hi = expf4d(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)));
    let y = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
    let over = _mm256_cmp_ps::<_CMP_GT_OQ>(x, _mm256_set1_ps(f32::from_bits(0x42b17217)));
    let under = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_set1_ps(f32::from_bits(0xc2cff1b4)));
    let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x);
    let y = _mm256_blendv_ps(y, _mm256_set1_ps(f32::INFINITY), over);
    let y = _mm256_andnot_ps(under, y);
    _mm256_blendv_ps(y, _mm256_add_ps(x, x), nan)
}

/// `o[i] = expf(x[i])` for `i < len`, eight at a time, the last `len % 8` one at a time: the
/// same bits as [`expf`] for every input (a [`crate::loops::UnaryRun`]).
///
/// # Safety
/// The processor has AVX2 and FMA; `x` is readable and `o` writable for `len` elements, and
/// `x` is `o` itself or shares no byte with it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn expf_slice(x: *const f32, o: *mut f32, len: usize) {
    let mut i = 0;
    while i + 8 <= len {
        // SAFETY: `i + 8 <= len`; the group is read whole before it is written.
        unsafe { _mm256_storeu_ps(o.add(i), expf8(_mm256_loadu_ps(x.add(i)))) };
        i += 8;
    }
    while i < len {
        // SAFETY: `i < len`.
        unsafe { o.add(i).write(expf(x.add(i).read())) };
        i += 1;
    }
}

/// [`expf`]'s `float64` part on eight lanes, the table looked up in `table` (its 32 entries
/// in four registers): the same operations as [`expf4d`].
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
fn expf8d(xd: __m512d, table: &[__m512i; 4]) -> __m512d {
    let inv_ln2_n = _mm512_set1_pd(f64::from_bits(0x3ff71547652b82fe) * N);
    let shift = _mm512_set1_pd(f64::from_bits(0x4338000000000000));
    let c0 = _mm512_set1_pd(f64::from_bits(0x3fac6af84b912394) / N / N / N);
    let c1 = _mm512_set1_pd(f64::from_bits(0x3fcebfce50fac4f3) / N / N);
    let c2 = _mm512_set1_pd(f64::from_bits(0x3fe62e42ff0c52d6) / N);
    let kd = _mm512_fmadd_pd(inv_ln2_n, xd, shift);
    let ki = _mm512_castpd_si512(kd);
    let r = _mm512_fmsub_pd(inv_ln2_n, xd, _mm512_sub_pd(kd, shift));
    // Entry `ki % 32`: the permutes read the index's low four bits, bit 4 picks the pair.
    let low = _mm512_permutex2var_epi64(table[0], ki, table[1]);
    let high = _mm512_permutex2var_epi64(table[2], ki, table[3]);
    let t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), low, high);
    let s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64::<47>(ki)));
    let p = _mm512_fmadd_pd(c0, r, c1);
    let q = _mm512_fmadd_pd(c2, r, _mm512_set1_pd(1.0));
    _mm512_mul_pd(_mm512_fmadd_pd(p, _mm512_mul_pd(r, r), q), s)
}

/// [`expf`] on sixteen lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
fn expf16(x: __m512, table: &[__m512i; 4]) -> __m512 {
    let bits = _mm512_castps_pd(x);
    let lo = expf8d(_mm512_cvtps_pd(_mm512_castps512_ps256(x)), table);
    let hi = expf8d(
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(bits))),
        table,
    );
    let y = _mm512_insertf64x4::<1>(
        _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo))),
        _mm256_castps_pd(_mm512_cvtpd_ps(hi)),
    );
    let y = _mm512_castpd_ps(y);
    let over = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, _mm512_set1_ps(f32::from_bits(0x42b17217)));
    let under = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_set1_ps(f32::from_bits(0xc2cff1b4)));
    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
    let y = _mm512_mask_blend_ps(over, y, _mm512_set1_ps(f32::INFINITY));
    let y = _mm512_mask_blend_ps(under, y, _mm512_setzero_ps());
    _mm512_mask_blend_ps(nan, y, _mm512_add_ps(x, x))
}

/// `o[i] = expf(x[i])` for `i < len`, sixteen at a time, the last `len % 16` through masked
/// loads and stores: the same bits as [`expf`] for every input (a
/// [`crate::loops::UnaryRun`]).
///
/// # Safety
/// The processor has AVX-512F; `x` is readable and `o` writable for `len` elements, and `x`
/// is `o` itself or shares no byte with it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub unsafe fn expf_slice_avx512(x: *const f32, o: *mut f32, len: usize) {
    // SAFETY: the table has 32 entries, four registers' worth.
    let table: [__m512i; 4] =
        std::array::from_fn(|k| unsafe { _mm512_loadu_si512(TABLE.as_ptr().add(8 * k).cast()) });
    let mut i = 0;
    while i + 16 <= len {
        // SAFETY: `i + 16 <= len`; the group is read whole before it is written.
        unsafe { _mm512_storeu_ps(o.add(i), expf16(_mm512_loadu_ps(x.add(i)), &table)) };
        i += 16;
    }
    if i < len {
        let mask: __mmask16 = (1 << (len - i)) - 1;
        // SAFETY: the mask covers the `len - i < 16` elements left; masked-off lanes are
        // neither read nor written (no fault either).
        unsafe {
            let v = _mm512_maskz_loadu_ps(mask, x.add(i));
            _mm512_mask_storeu_ps(o.add(i), mask, expf16(v, &table));
        }
    }
}

/// The fastest slice form of [`expf`] this processor can run (called per loop, so it
/// allocates nothing).
#[doc(hidden)]
pub fn run() -> Option<UnaryRun<f32, f32>> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Some(expf_slice_avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Some(expf_slice);
        }
    }
    None
}
