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
//! ```
//! # use bcast_engine::ops::expf::expf;
//! assert_eq!(expf(0.0), 1.0);
//! assert_eq!(expf(1.0), std::f32::consts::E);
//! assert_eq!(expf(f32::NEG_INFINITY), 0.0);
//! assert_eq!(expf(100.0), f32::INFINITY);
//! assert!(expf(f32::NAN).is_nan());
//! ```

/// `2^(i/32)` as `float64` bits, less `i << 47` (added back with `k`'s bits).
const TABLE: [u64; 32] = [
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

#[cfg(test)]
mod tests {
    use super::expf;

    /// Every 61st `float32` (70 million, all exponents, both signs, NaN and the infinities
    /// among them), against the C library's `expf`. Only where that is glibc on a processor
    /// with FMA: elsewhere libm computes it another way.
    #[test]
    fn matches_libm() {
        let glibc = cfg!(all(
            target_os = "linux",
            target_env = "gnu",
            target_arch = "x86_64"
        ));
        #[cfg(target_arch = "x86_64")]
        let fma = std::arch::is_x86_feature_detected!("fma");
        #[cfg(not(target_arch = "x86_64"))]
        let fma = false;
        if !(glibc && fma) {
            eprintln!("skipped: libm's expf is not glibc's FMA version here");
            return;
        }
        let mut bad = Vec::new();
        let mut bits = 0u32;
        loop {
            let x = f32::from_bits(bits);
            let (want, got) = (x.exp(), expf(x));
            if want.to_bits() != got.to_bits() && !(want.is_nan() && got.is_nan()) {
                bad.push(bits);
            }
            match bits.checked_add(61) {
                Some(b) => bits = b,
                None => break,
            }
        }
        // Around the thresholds: 88, the overflow and underflow limits, -88.
        for edge in [0x42b0_0000u32, 0x42b1_7217, 0xc2cf_f1b4, 0xc2b0_0000] {
            bad.extend((edge - 2..=edge + 2).filter(|&b| {
                let x = f32::from_bits(b);
                x.exp().to_bits() != expf(x).to_bits()
            }));
        }
        assert!(
            bad.is_empty(),
            "{} differ, the first {:#x?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }
}
