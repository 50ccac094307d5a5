//! The complex element functions, after `c10::complex` (division as its scaled algorithm);
//! `exp`, `log` and `pow` follow glibc's `cexp`, `clog` and `cpow` step by step (on the same
//! libm calls, so to the bit where the platform's libm is glibc's), the other transcendentals
//! agree with torch to a few ulps, not bit for bit, and take its special values (a NaN or
//! infinite part) from C99 Annex G as glibc's `csqrt`, `csinh`, `ccosh` and `ctanh` give them,
//! which torch's CPU kernels reach through `std::complex`.

use super::real::Real;
use crate::complex::Complex;
use crate::DType;

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

/// C's `signbit`: `-0.0` (and a NaN with its sign bit set) is negative.
fn signbit<T: Real>(x: T) -> bool {
    x.is_sign_negative()
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

/// `a * b` as torch's `mul` kernel: `complex64` with a fused multiply-add in each part
/// ([`mul_fused`]), `complex128` without. (torch's own rounding depends on the element's
/// position and the tensor's size: its vectorised loop never fuses, its scalar loop, compiled
/// for AVX2 or AVX512, does for `complex64`; it shows only where the products overflow or
/// cancel.)
pub fn mul<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    if T::DTYPE != DType::Float32 {
        return C::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
    }
    mul_fused(a, b)
}

/// `a * b` with a fused multiply-add in each part (`fma(a.re, b.re, -(a.im·b.im))`), as
/// `c10::complex`'s `operator*` compiled with FMA instructions: so `(1e200 + 1e200i)²` is
/// `-inf + inf i` where the separately rounded products give `NaN + inf i`.
pub fn mul_fused<T: Real>(a: C<T>, b: C<T>) -> C<T> {
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

/// `e^a`, as glibc's `cexp`: a real part past `ln(MAX)` is taken off in steps of `t` (709
/// for `f64`, 88 for `f32`), so a result overflows only where its parts do.
pub fn exp<T: Real>(a: C<T>) -> C<T> {
    let (mut x, y) = (a.re, a.im);
    // glibc's `(int) ((MAX_EXP - 1) * M_LN2)`.
    let t = T::MAX.ln().floor();
    if is_finite(x) {
        if !is_finite(y) {
            return C::new(T::NAN, T::NAN);
        }
        let (mut s, mut c) = sin_cos(y);
        if x > t {
            let exp_t = t.exp();
            for _ in 0..2 {
                if x > t {
                    x = x - t;
                    s = s * exp_t;
                    c = c * exp_t;
                }
            }
        }
        if x > t {
            return C::new(T::MAX * c, T::MAX * s);
        }
        let m = x.exp();
        return C::new(m * c, m * s);
    }
    if is_inf(x) {
        if is_finite(y) {
            let value = if signbit(x) { T::ZERO } else { inf() };
            if y == T::ZERO {
                return C::new(value, y);
            }
            let (s, c) = sin_cos(y);
            return C::new(copysign(value, c), copysign(value, s));
        }
        if !signbit(x) {
            // glibc's `y - y`: NaN for an infinite or NaN `y`.
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

/// `x² + y² - 1` without cancellation, as glibc's `__x2y2m1` (`1 > x >= y`, `x² + y² >= 0.5`):
/// `f32` in `f64`; `f64` as the exact products' parts summed smallest first.
fn x2y2m1<T: Real>(x: T, y: T) -> T {
    if T::DTYPE == DType::Float32 {
        let (x, y) = (x.cast::<f64>(), y.cast::<f64>());
        return T::from_f64((x - 1.0) * (x + 1.0) + y * y);
    }
    let mul_split = |a: T, b: T| {
        let hi = a * b;
        (hi, a.mul_add(b, -hi))
    };
    let (xx, xx_lo) = mul_split(x, x);
    let (yy, yy_lo) = mul_split(y, y);
    let mut vals = [xx_lo, xx, yy_lo, yy, -T::ONE];
    sort_by_magnitude(&mut vals);
    for i in 0..4 {
        // Dekker's exact sum, the larger first.
        let hi = vals[i + 1] + vals[i];
        let lo = (vals[i + 1] - hi) + vals[i];
        vals[i + 1] = hi;
        vals[i] = lo;
        sort_by_magnitude(&mut vals[i + 1..]);
    }
    vals[4] + vals[3] + vals[2] + vals[1] + vals[0]
}

/// A stable sort by absolute value, smallest first (glibc's `qsort` is a merge sort).
fn sort_by_magnitude<T: Real>(v: &mut [T]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1].abs() > v[j].abs() {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The principal natural logarithm, as glibc's `clog`: the real part of `ln|a|` through
/// `log1p` where `|a|` is near 1, scaled where `|a|²` would overflow or underflow.
pub fn log<T: Real>(a: C<T>) -> C<T> {
    let (x, y) = (a.re, a.im);
    let two = T::ONE + T::ONE;
    let half = T::ONE / two;
    if x == T::ZERO && y == T::ZERO {
        let pi = T::from_f64(std::f64::consts::PI);
        let im = if signbit(x) { pi } else { T::ZERO };
        return C::new(-T::ONE / x.abs(), copysign(im, y));
    }
    if x.is_nan() || y.is_nan() {
        let re = if is_inf(x) || is_inf(y) {
            inf()
        } else {
            T::NAN
        };
        return C::new(re, T::NAN);
    }
    let (mut big, mut small) = (x.abs(), y.abs());
    if big < small {
        std::mem::swap(&mut big, &mut small);
    }
    let mut scale = 0;
    if big > T::MAX / two {
        scale = -1;
        big = big * half;
        small = if small >= T::MIN_POSITIVE * two {
            small * half
        } else {
            T::ZERO
        };
    } else if big < T::MIN_POSITIVE && small < T::MIN_POSITIVE {
        scale = T::MANT_DIG;
        let factor = T::from_f64(2f64.powi(scale));
        big = big * factor;
        small = small * factor;
    }
    let unscaled = scale == 0;
    let re = if big == T::ONE && unscaled {
        (small * small).ln_1p() / two
    } else if big > T::ONE && big < two && small < T::ONE && unscaled {
        let mut d2m1 = (big - T::ONE) * (big + T::ONE);
        if small >= T::EPSILON {
            d2m1 = d2m1 + small * small;
        }
        d2m1.ln_1p() / two
    } else if big < T::ONE && big >= half && small < T::EPSILON / two && unscaled {
        ((big - T::ONE) * (big + T::ONE)).ln_1p() / two
    } else if big < T::ONE && big >= half && unscaled && big * big + small * small >= half {
        x2y2m1(big, small).ln_1p() / two
    } else {
        let ln2 = T::from_f64(std::f64::consts::LN_2);
        big.hypot(small).ln() - T::from_f64(f64::from(scale)) * ln2
    };
    C::new(re, y.atan2(x))
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

/// `(sin y, cos y)` of a finite `y`, exactly `(y, 1)` at ±0 and subnormals (keeping the
/// zero's sign), as glibc's `cexp`, `csinh` and `ccosh` take them.
fn sin_cos<T: Real>(y: T) -> (T, T) {
    if y.abs() > T::MIN_POSITIVE {
        (y.sin(), y.cos())
    } else {
        (y, T::ONE)
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

/// `2^a` as torch's `exp2_impl`: `exp(ln 2 · a)`, the real factor scaling each part (so an
/// infinite part stays infinite where a complex product would make the other NaN).
pub fn exp2<T: Real>(a: C<T>) -> C<T> {
    let ln2 = T::from_f64(std::f64::consts::LN_2);
    exp(C::new(ln2 * a.re, ln2 * a.im))
}

/// `ln(1 + a)` as torch's CPU `log1p` (c10's `complex_math.h`, after NumPy): with `u = 1 + a`,
/// `a` itself where `u` is exactly 1, `ln u` where `u - 1` is exactly `a`, else
/// `ln u · a / (u - 1)`, which recovers the digits the sum lost.
pub fn log1p<T: Real>(a: C<T>) -> C<T> {
    let u = C::new(a.re + T::ONE, a.im);
    if u.re == T::ONE && u.im == T::ZERO {
        return a;
    }
    let log_u = log(u);
    let u_minus_1 = C::new(u.re - T::ONE, u.im);
    if u_minus_1.re == a.re && u_minus_1.im == a.im {
        return log_u;
    }
    mul(log_u, div(a, u_minus_1))
}

/// `1 / a`.
pub fn reciprocal<T: Real>(a: C<T>) -> C<T> {
    div(C::new(T::ONE, T::ZERO), a)
}

/// `a * b` as C99 Annex G multiplies (GCC's `__muldc3`, which glibc's `cpow` calls): where
/// the plain product is NaN in both parts, an infinite factor is boxed to a unit infinity and
/// the product recomputed, so `inf * (1 + NaN i)` stays infinite.
fn mul_annex_g<T: Real>(x: C<T>, y: C<T>) -> C<T> {
    let (mut a, mut b, mut c, mut d) = (x.re, x.im, y.re, y.im);
    let (ac, bd, ad, bc) = (a * c, b * d, a * d, b * c);
    let (re, im) = (ac - bd, ad + bc);
    if !(re.is_nan() && im.is_nan()) {
        return C::new(re, im);
    }
    let unit = |v: T| copysign(if is_inf(v) { T::ONE } else { T::ZERO }, v);
    let nan_to_zero = |v: T| if v.is_nan() { copysign(T::ZERO, v) } else { v };
    let mut recalc = false;
    if is_inf(a) || is_inf(b) {
        (a, b, c, d) = (unit(a), unit(b), nan_to_zero(c), nan_to_zero(d));
        recalc = true;
    }
    if is_inf(c) || is_inf(d) {
        (a, b, c, d) = (nan_to_zero(a), nan_to_zero(b), unit(c), unit(d));
        recalc = true;
    }
    if !recalc && [ac, bd, ad, bc].into_iter().any(is_inf) {
        // Infinities from overflow.
        (a, b, c, d) = (
            nan_to_zero(a),
            nan_to_zero(b),
            nan_to_zero(c),
            nan_to_zero(d),
        );
        recalc = true;
    }
    if !recalc {
        return C::new(re, im);
    }
    C::new(inf::<T>() * (a * c - b * d), inf::<T>() * (a * d + b * c))
}

/// `a^b` as glibc's `cpow` (what `std::pow` of two `std::complex` calls, so torch's
/// tensor-tensor `pow`): `cexp(b · clog a)`, nothing special-cased (`0^0` is `NaN + 0i`).
pub fn pow<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    exp(mul_annex_g(b, log(a)))
}

/// The element function of torch's `pow(complex tensor, number)` with `exponent` (as a
/// `complex128`, torch's `Scalar::to<c10::complex<double>>`): the kernels of `sqrt`, `rsqrt`
/// (`1 / sqrt`) and `reciprocal` for 0.5, -0.5 and -1, products for 2, 3 and -2
/// (`1 / (a · a)`), else [`pow`] with the exponent in the tensor's precision. (0 and 1 never
/// get here.) The products are [`mul_fused`] in both dtypes, as torch's scalar loop computes
/// them (all of a small tensor, the tail of a larger one); its vectorised loop rounds each
/// product, which differs where they overflow or cancel.
pub fn pow_by_number<T: Real>(exponent: C<f64>) -> impl Fn(C<T>) -> C<T> {
    let is = |v: f64| exponent.re == v && exponent.im == 0.0;
    let e = C::new(T::from_f64(exponent.re), T::from_f64(exponent.im));
    let f: fn(C<T>, C<T>) -> C<T> = if is(0.5) {
        |a, _| sqrt(a)
    } else if is(-0.5) {
        |a, _| reciprocal(sqrt(a))
    } else if is(-1.0) {
        |a, _| reciprocal(a)
    } else if is(2.0) {
        |a, _| mul_fused(a, a)
    } else if is(3.0) {
        |a, _| mul_fused(mul_fused(a, a), a)
    } else if is(-2.0) {
        |a, _| reciprocal(mul_fused(a, a))
    } else {
        pow
    };
    move |a| f(a, e)
}
