//! The complex element functions, after `c10::complex` (division as its scaled algorithm);
//! the transcendentals agree with torch to a few ulps, not bit for bit.

use super::real::Real;
use crate::complex::Complex;

type C<T> = Complex<T>;

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
    let m = a.re.exp();
    C::new(m * a.im.cos(), m * a.im.sin())
}

/// The principal natural logarithm.
pub fn log<T: Real>(a: C<T>) -> C<T> {
    C::new(abs(a).ln(), a.im.atan2(a.re))
}

/// The principal square root.
pub fn sqrt<T: Real>(a: C<T>) -> C<T> {
    let two = T::ONE + T::ONE;
    if a.re == T::ZERO && a.im == T::ZERO {
        return C::new(T::ZERO, a.im);
    }
    // Without cancellation: the larger part from `|a| + |re|`, the other by division.
    let t = ((abs(a) + a.re.abs()) / two).sqrt();
    if a.re >= T::ZERO {
        C::new(t, a.im / (two * t))
    } else {
        let im = if a.im < T::ZERO { -t } else { t };
        C::new(a.im.abs() / (two * t), im)
    }
}

/// The sine.
pub fn sin<T: Real>(a: C<T>) -> C<T> {
    C::new(a.re.sin() * a.im.cosh(), a.re.cos() * a.im.sinh())
}

/// The cosine.
pub fn cos<T: Real>(a: C<T>) -> C<T> {
    C::new(a.re.cos() * a.im.cosh(), -(a.re.sin() * a.im.sinh()))
}

/// The hyperbolic tangent.
pub fn tanh<T: Real>(a: C<T>) -> C<T> {
    let two = T::ONE + T::ONE;
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
