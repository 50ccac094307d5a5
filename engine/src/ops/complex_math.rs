//! The complex element functions, after `c10::complex` (division as its scaled algorithm);
//! the transcendentals agree with torch to a few ulps, not bit for bit, and take its special
//! values (a NaN or infinite part) from C99 Annex G as glibc's `csqrt`, `cexp`, `csinh`,
//! `ccosh` and `ctanh` give them, which torch's CPU kernels reach through `std::complex`.

use super::real::Real;
use crate::complex::Complex;

type C<T> = Complex<T>;

fn inf<T: Real>() -> T {
    T::ONE / T::ZERO
}

fn is_inf<T: Real>(x: T) -> bool {
    x.abs() == inf()
}

fn is_finite<T: Real>(x: T) -> bool {
    !x.is_nan() && !is_inf(x)
}

/// C's `signbit` (a NaN's sign aside): `-0.0` is negative.
fn signbit<T: Real>(x: T) -> bool {
    x < T::ZERO || (x == T::ZERO && T::ONE / x < T::ZERO)
}

/// C's `copysign`.
fn copysign<T: Real>(magnitude: T, sign: T) -> T {
    if signbit(sign) {
        -magnitude.abs()
    } else {
        magnitude.abs()
    }
}

/// `a + b`.
pub fn add<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    C::new(a.re + b.re, a.im + b.im)
}

/// `a * b`. torch's compiled `complex64` kernel fuses a multiply-add into each part (its
/// results show it), its `complex128` kernel does not.
pub fn mul<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    if T::DTYPE != crate::DType::Float32 {
        return C::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
    }
    C::new(
        a.re.mul_add(b.re, -(a.im * b.im)),
        a.re.mul_add(b.im, a.im * b.re),
    )
}

/// `a / b` as `c10::complex`'s `operator/=` (NumPy's scaled division).
pub fn div<T: Real>(x: C<T>, y: C<T>) -> C<T> {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    let (abs_c, abs_d) = (c.abs(), d.abs());
    if abs_c >= abs_d {
        if abs_c == T::ZERO && abs_d == T::ZERO {
            C::new(a / abs_c, b / abs_d)
        } else {
            let rat = d / c;
            let scl = T::ONE / (c + d * rat);
            C::new((a + b * rat) * scl, (b - a * rat) * scl)
        }
    } else {
        let rat = c / d;
        let scl = T::ONE / (d + c * rat);
        C::new((a * rat + b) * scl, (b * rat - a) * scl)
    }
}

/// `-a` as torch's vectorised `0 - a` (so `-(0+0j)` is `0+0j`).
pub fn neg<T: Real>(a: C<T>) -> C<T> {
    C::new(T::ZERO - a.re, T::ZERO - a.im)
}

/// `|a|`.
pub fn abs<T: Real>(a: C<T>) -> T {
    a.re.hypot(a.im)
}

/// `e^a`.
pub fn exp<T: Real>(a: C<T>) -> C<T> {
    let (x, y) = (a.re, a.im);
    if is_finite(x) {
        if y == T::ZERO {
            return C::new(x.exp(), y);
        }
        if !is_finite(y) {
            return C::new(T::NAN, T::NAN);
        }
        let m = x.exp();
        return C::new(m * y.cos(), m * y.sin());
    }
    if is_inf(x) {
        if is_finite(y) {
            let value = if signbit(x) { T::ZERO } else { inf() };
            if y == T::ZERO {
                return C::new(value, y);
            }
            return C::new(copysign(value, y.cos()), copysign(value, y.sin()));
        }
        if !signbit(x) {
            return C::new(inf(), T::NAN);
        }
        return C::new(T::ZERO, copysign(T::ZERO, y));
    }
    // A NaN real part.
    if y == T::ZERO {
        C::new(T::NAN, y)
    } else {
        C::new(T::NAN, T::NAN)
    }
}

/// The principal natural logarithm.
pub fn log<T: Real>(a: C<T>) -> C<T> {
    C::new(abs(a).ln(), a.im.atan2(a.re))
}

/// The principal square root.
pub fn sqrt<T: Real>(a: C<T>) -> C<T> {
    let two = T::ONE + T::ONE;
    if !is_finite(a.re) || !is_finite(a.im) {
        if is_inf(a.im) {
            return C::new(inf(), a.im);
        }
        if is_inf(a.re) {
            if a.re < T::ZERO {
                let re = if a.im.is_nan() { T::NAN } else { T::ZERO };
                return C::new(re, copysign(inf(), a.im));
            }
            let im = if a.im.is_nan() {
                T::NAN
            } else {
                copysign(T::ZERO, a.im)
            };
            return C::new(a.re, im);
        }
        return C::new(T::NAN, T::NAN);
    }
    if a.re == T::ZERO && a.im == T::ZERO {
        return C::new(T::ZERO, a.im);
    }
    // Without cancellation: the larger part from `|a| + |re|`, the other by division.
    let t = ((abs(a) + a.re.abs()) / two).sqrt();
    if a.re >= T::ZERO {
        C::new(t, a.im / (two * t))
    } else {
        let im = copysign(t, a.im);
        C::new(a.im.abs() / (two * t), im)
    }
}

/// The sine: `-i·sinh(i·a)`, as Annex G defines it.
pub fn sin<T: Real>(a: C<T>) -> C<T> {
    if !is_finite(a.re) && is_inf(a.im) {
        // glibc's `csin` gives the unspecified sign of the infinity as `+`.
        return C::new(T::NAN, inf());
    }
    let s = sinh(C::new(-a.im, a.re));
    C::new(s.im, -s.re)
}

/// The cosine: `cosh(i·a)`.
pub fn cos<T: Real>(a: C<T>) -> C<T> {
    cosh(C::new(-a.im, a.re))
}

/// `(sin y, cos y)` of a finite `y`, exactly `(y, 1)` at ±0 (keeping the zero's sign), as
/// glibc's `csinh` and `ccosh` take them.
fn sin_cos<T: Real>(y: T) -> (T, T) {
    if y == T::ZERO {
        (y, T::ONE)
    } else {
        (y.sin(), y.cos())
    }
}

/// The hyperbolic sine, as glibc's `csinh`.
pub fn sinh<T: Real>(a: C<T>) -> C<T> {
    let (x, y) = (a.re, a.im);
    let negate = signbit(x);
    let ax = x.abs();
    if is_finite(x) {
        if is_finite(y) {
            let (s, c) = sin_cos(y);
            let re = ax.sinh() * c;
            return C::new(if negate { -re } else { re }, ax.cosh() * s);
        }
        if x == T::ZERO {
            return C::new(copysign(T::ZERO, x), T::NAN);
        }
        return C::new(T::NAN, T::NAN);
    }
    if is_inf(x) {
        if y == T::ZERO {
            return C::new(if negate { -inf::<T>() } else { inf() }, y);
        }
        if is_finite(y) {
            let re = copysign(inf(), y.cos());
            return C::new(if negate { -re } else { re }, copysign(inf(), y.sin()));
        }
        return C::new(inf(), T::NAN);
    }
    if y == T::ZERO {
        C::new(T::NAN, y)
    } else {
        C::new(T::NAN, T::NAN)
    }
}

/// The hyperbolic cosine, as glibc's `ccosh`.
pub fn cosh<T: Real>(a: C<T>) -> C<T> {
    let (x, y) = (a.re, a.im);
    if is_finite(x) {
        if is_finite(y) {
            let (s, c) = sin_cos(y);
            return C::new(x.cosh() * c, x.sinh() * s);
        }
        let im = if x == T::ZERO { T::ZERO } else { T::NAN };
        return C::new(T::NAN, im);
    }
    if is_inf(x) {
        if y == T::ZERO {
            return C::new(inf(), y * copysign(T::ONE, x));
        }
        if is_finite(y) {
            return C::new(
                copysign(inf(), y.cos()),
                copysign(inf(), y.sin()) * copysign(T::ONE, x),
            );
        }
        return C::new(inf(), T::NAN);
    }
    C::new(T::NAN, if y == T::ZERO { y } else { T::NAN })
}

/// The hyperbolic tangent.
pub fn tanh<T: Real>(a: C<T>) -> C<T> {
    let two = T::ONE + T::ONE;
    if !is_finite(a.re) || !is_finite(a.im) {
        if is_inf(a.re) {
            let im = if is_finite(a.im) && a.im.abs() > T::ONE {
                copysign(T::ZERO, a.im.sin() * a.im.cos())
            } else {
                copysign(T::ZERO, a.im)
            };
            return C::new(copysign(T::ONE, a.re), im);
        }
        if a.im == T::ZERO {
            return C::new(a.re, a.im);
        }
        if a.re == T::ZERO {
            return C::new(a.re, T::NAN);
        }
        return C::new(T::NAN, T::NAN);
    }
    if a.re.abs() > T::from_f64(20.0) {
        // cosh(2x) overflows: tanh is ±1, the imaginary part vanishing as e^-2|x|.
        let one = if a.re < T::ZERO { -T::ONE } else { T::ONE };
        let four = two + two;
        let im = four * a.im.sin() * a.im.cos() * (-(two * a.re.abs())).exp();
        return C::new(one, im);
    }
    let (x, y) = (two * a.re, two * a.im);
    let d = x.cosh() + y.cos();
    C::new(x.sinh() / d, y.sin() / d)
}

/// `1 / (1 + e^-a)`.
pub fn sigmoid<T: Real>(a: C<T>) -> C<T> {
    let one = C::new(T::ONE, T::ZERO);
    div(one, add(one, exp(neg(a))))
}

/// `1 / a`.
pub fn reciprocal<T: Real>(a: C<T>) -> C<T> {
    div(C::new(T::ONE, T::ZERO), a)
}

/// `a^b` as `exp(b·log a)`, with `0^b` 0 for a non-zero `b` and anything to the 0 is 1.
pub fn pow<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    if b.re == T::ZERO && b.im == T::ZERO {
        return C::new(T::ONE, T::ZERO);
    }
    if a.re == T::ZERO && a.im == T::ZERO {
        // glibc's cpow: cexp(b·clog 0), clog 0 being -inf.
        if b.re > T::ZERO {
            return C::new(T::ZERO, T::ZERO);
        }
        if b.re < T::ZERO {
            return C::new(T::ONE / T::ZERO, T::NAN);
        }
    }
    exp(mul(b, log(a)))
}
