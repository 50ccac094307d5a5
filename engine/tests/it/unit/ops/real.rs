//! The fast float remainder ([`remainder_fast`]) against [`remainder`], where it says its value
//! holds.

use bcast_engine::ops::real::{remainder, remainder_fast, Real};

/// Where [`remainder_fast`] says its value holds, it is [`remainder`]'s bit for bit: edge
/// values against each other, and pseudo-random pairs whose exponents differ by up to 40
/// (quotients on both sides of the limit, subnormal divisors included), in both widths.
fn fast_remainder_holds<T: Real>(edges: &[T], from_bits: impl Fn(u64, i32, i32) -> T) {
    let check = |a: T, b: T| {
        let (v, exact) = remainder_fast(a, b);
        let want = remainder(a, b);
        if exact {
            assert!(
                v.cast::<f64>().to_bits() == want.cast::<f64>().to_bits(),
                "{a:?} % {b:?}: {v:?}, not {want:?}"
            );
        }
        exact
    };
    for &a in edges {
        for &b in edges {
            check(a, b);
        }
    }
    let (mut state, mut held) = (0x9e37_79b9_7f4a_7c15u64, 0);
    for _ in 0..400_000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let shift = (state >> 58) as i32 % 41 - 20;
        let a = from_bits(state, 0, 0);
        let b = from_bits(
            state.rotate_left(29) ^ (state >> 7),
            shift,
            (state >> 3) as i32,
        );
        held += usize::from(check(a, b));
    }
    // Most pairs take the fast path, so it is the one checked.
    assert!(held > 200_000, "{held}");
}

#[test]
fn fast_remainder_is_remainder_where_it_holds() {
    let edges32 = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        3.0,
        -3.0,
        0.5,
        7.25,
        -7.25,
        1e-30,
        -1e-30,
        1e30,
        -1e30,
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        8388607.5,
        16777216.0,
        0.1,
        -0.1,
        1.0000001,
        0.99999994,
    ];
    // A random sign and significand at an exponent near 127 + (seed % 40), moved by
    // `shift`; `clear` drops low significand bits so that some quotients are exact.
    fast_remainder_holds(&edges32, |s, shift, clear| {
        let e = (110 + (s >> 20) % 40) as i32 + shift;
        let m = (s >> 32) as u32 & 0x7f_ffff & !((1u32 << (clear.rem_euclid(24))) - 1);
        f32::from_bits(((s >> 63) as u32) << 31 | (e.clamp(0, 254) as u32) << 23 | m)
    });
    let edges64 = edges32.map(f64::from);
    fast_remainder_holds(&edges64, |s, shift, clear| {
        let e = (1000 + (s >> 20) % 40) as i64 + i64::from(shift);
        let m = s & 0xf_ffff_ffff_ffff & !((1u64 << (clear.rem_euclid(53))) - 1);
        f64::from_bits((s >> 63) << 63 | (e.clamp(0, 2046) as u64) << 52 | m)
    });
}
