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
