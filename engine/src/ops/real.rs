//! The floating-point element functions, for `f32` and `f64`, as torch's CPU kernels compute
//! them (transcendentals agree with torch to a few ulps, not bit for bit).

use crate::loops::{BinaryRun, UnaryRun};
use crate::Element;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// `f32` or `f64`.
pub trait Real:
    Element
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    /// `0.0`.
    const ZERO: Self;
    /// `1.0`.
    const ONE: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// The largest finite value.
    const MAX: Self;
    /// The smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// The distance from 1 to the next larger value.
    const EPSILON: Self;
    /// The significand's bits, the implicit one included (C's `MANT_DIG`).
    const MANT_DIG: i32;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// `e^x`.
    fn exp(self) -> Self;
    /// The natural logarithm.
    fn ln(self) -> Self;
    /// `ln(1 + self)`, accurate near 0.
    fn ln_1p(self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The sine.
    fn sin(self) -> Self;
    /// The cosine.
    fn cos(self) -> Self;
    /// The hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Rounds toward negative infinity.
    fn floor(self) -> Self;
    /// Rounds toward positive infinity.
    fn ceil(self) -> Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// Whether the sign bit is set (a NaN's too), C's `signbit`.
    fn is_sign_negative(self) -> bool;
    /// `self` raised to `e`.
    fn powf(self, e: Self) -> Self;
    /// The four-quadrant arctangent of `self / x`.
    fn atan2(self, x: Self) -> Self;
    /// `sqrt(self² + y²)` without overflow.
    fn hypot(self, y: Self) -> Self;
    /// The hyperbolic sine.
    fn sinh(self) -> Self;
    /// The hyperbolic cosine.
    fn cosh(self) -> Self;
    /// `self * a + b` with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Rounds toward zero.
    fn trunc(self) -> Self;
    /// Rounds to the nearest integer, ties to even (C's `nearbyint`).
    fn round_even(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
    /// The magnitude of `self` with the sign bit of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// Whether the value is an infinity.
    fn is_infinite(self) -> bool;
    /// [`Real::exp`] over contiguous runs, explicitly vectorised, where this type and
    /// processor have one (`f32` with AVX2 and FMA): the same values.
    fn exp_run() -> Option<UnaryRun<Self, Self>>;
    /// [`Real::powf`] over contiguous runs likewise (`f32` with AVX2, FMA and glibc's libm).
    fn powf_run() -> Option<BinaryRun<Self, Self, Self>>;
}

macro_rules! real {
    ($t:ty, $exp:path, $exp_run:expr, $powf_run:expr) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = <$t>::NAN;
            const MAX: Self = <$t>::MAX;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            const EPSILON: Self = <$t>::EPSILON;
            const MANT_DIG: i32 = <$t>::MANTISSA_DIGITS as i32;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn exp(self) -> Self {
                $exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn powf(self, e: Self) -> Self {
                <$t>::powf(self, e)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            fn hypot(self, y: Self) -> Self {
                <$t>::hypot(self, y)
            }
            fn sinh(self) -> Self {
                <$t>::sinh(self)
            }
            fn cosh(self) -> Self {
                <$t>::cosh(self)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            fn round_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            fn exp2(self) -> Self {
                <$t>::exp2(self)
            }
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            fn exp_run() -> Option<UnaryRun<Self, Self>> {
                $exp_run
            }
            fn powf_run() -> Option<BinaryRun<Self, Self, Self>> {
                $powf_run
            }
        }
    };
}
real!(f32, super::expf::expf, super::expf::run(), powf_run_f32());
real!(f64, f64::exp, None, None);

/// [`super::powf::powf_slice`] where it applies (x86-64 only).
fn powf_run_f32() -> Option<BinaryRun<f32, f32, f32>> {
    #[cfg(target_arch = "x86_64")]
    return super::powf::run();
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// torch's `sign` for floats: `(0 < a) - (a < 0)`, so NaN gives 0.
pub fn sign<T: Real>(a: T) -> T {
    T::from_bool(T::ZERO < a) - T::from_bool(a < T::ZERO)
}

/// torch's `sigmoid`: `1 / (1 + exp(-a))`.
pub fn sigmoid<T: Real>(a: T) -> T {
    T::ONE / (T::ONE + (-a).exp())
}

/// torch's `maximum`: NaN if either is NaN.
pub fn maximum<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || b.is_nan() {
        T::NAN
    } else if a > b {
        a
    } else {
        b
    }
}

/// torch's `minimum`: NaN if either is NaN.
pub fn minimum<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || b.is_nan() {
        T::NAN
    } else if a < b {
        a
    } else {
        b
    }
}

/// torch's `remainder`: `fmod`, moved into the divisor's sign (Python's `%`).
#[inline(always)]
pub fn remainder<T: Real>(a: T, b: T) -> T {
    let m = a % b;
    if m != T::ZERO && ((b < T::ZERO) != (m < T::ZERO)) {
        m + b
    } else {
        m
    }
}

/// [`remainder`] without `fmod`, and whether its value is [`remainder`]'s: for a finite
/// divisor and a quotient `q = a / b` below `2^(MANT_DIG - 1)` in magnitude (NaN and
/// infinities are not), `n = floor(q)` is an integer and `a - n * b` is a multiple of the
/// smaller operand's last place below `|b|` in magnitude, so one fused multiply-add gives it
/// exactly. When `q` rounded up onto an integer, `n` is one too many and that value has the
/// divisor's opposite sign; adding `b` then rounds the same exact value `fmod`'s result plus
/// `b` rounds. A zero takes the dividend's sign, as `fmod`'s does.
///
/// ```
/// # use bcast_engine::ops::real::{remainder, remainder_fast};
/// for (a, b) in [(7.5f32, 2.0), (-7.5, 2.0), (7.5, -2.0), (-4.0, 2.0), (-1e-30, 1.0)] {
///     let (v, exact) = remainder_fast(a, b);
///     assert!(exact);
///     assert_eq!(v.to_bits(), remainder(a, b).to_bits());
/// }
/// assert!(!remainder_fast(3.0e38f32, 0.5).1);
/// assert!(!remainder_fast(1.0f32, f32::INFINITY).1);
/// ```
#[inline(always)]
pub fn remainder_fast<T: Real>(a: T, b: T) -> (T, bool) {
    let q = a / b;
    let exact = q.abs() < T::from_f64(2f64.powi(T::MANT_DIG - 1)) && b.abs() <= T::MAX;
    let r = (-q.floor()).mul_add(b, a);
    let m = if r == T::ZERO { T::ZERO.copysign(a) } else { r };
    let v = if m != T::ZERO && ((b < T::ZERO) != (m < T::ZERO)) {
        m + b
    } else {
        m
    };
    (v, exact)
}

/// The element function of torch's `pow(tensor, number)` for floats: its fast paths for the
/// exponents 2, 3, -2, 0.5, -0.5 and -1 (compared in double), else `pow` in double precision
/// (C++ `std::pow(float, double)`), as torch's scalar loop computes it. (Exponents 0 and 1
/// never get here.) torch's vectorised loop instead rounds the exponent to the tensor's dtype,
/// so for a float32 tensor and an exponent float32 cannot hold (16777217, 1e-300) torch's own
/// results depend on the element's position.
pub fn pow_by_number<T: Real>(e: f64) -> impl Fn(T) -> T {
    move |a: T| {
        if e == 2.0 {
            a * a
        } else if e == 3.0 {
            a * a * a
        } else if e == -2.0 {
            T::ONE / (a * a)
        } else if e == 0.5 {
            a.sqrt()
        } else if e == -0.5 {
            T::ONE / a.sqrt()
        } else if e == -1.0 {
            T::ONE / a
        } else {
            T::from_f64(a.cast::<f64>().powf(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
