//! The loops of the binary math ops: `div` with a rounding mode (and `floor_divide`), `fmod`,
//! `atan2`, `hypot`, `copysign`, `nextafter`, `logaddexp`, `logaddexp2`, `xlogy`,
//! `special.xlog1py`, `special.zeta`, `heaviside`, `fmax` and `fmin`, for every dtype torch's
//! CPU kernels take, and torch's "not implemented" error for the others. `float16` and
//! `bfloat16` are computed in `float32` and rounded once, as torch's scalar loops do, except
//! where its C++ rounds on the way (noted per op).
//!
//! ```
//! use bcast_engine::ops::{binary, BinaryOp};
//! use bcast_engine::Tensor;
//! let a = Tensor::from_vec(vec![-7i64, 7], &[2]).unwrap();
//! let q = binary(BinaryOp::DivFloor, &a, 2, None).unwrap();
//! assert_eq!(q.to_vec::<i64>().unwrap(), vec![-4, 3]);
//! let r = binary(BinaryOp::Fmod, &a, 2, None).unwrap();
//! assert_eq!(r.to_vec::<i64>().unwrap(), vec![-1, 1]);
//! ```

use super::binary::BinaryOp;
use super::complex_math as c;
use super::integer::Int;
use super::not_implemented;
use super::real::Real;
use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::iter::Iter;
use crate::loops::map_binary;
use crate::{DType, Element, Error, Result, Tensor};
use std::sync::atomic::{AtomicBool, Ordering};

/// The name torch's dispatch gives the op's CPU kernel, as its "not implemented" error
/// prints it (`floor_divide` runs `div_floor_cpu`).
pub(crate) fn kernel_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::DivTrunc => "div_trunc_cpu",
        BinaryOp::DivFloor => "div_floor_cpu",
        BinaryOp::Fmod => "fmod_cpu",
        BinaryOp::Atan2 => "atan2_cpu",
        BinaryOp::Hypot => "hypot_cpu",
        BinaryOp::Copysign => "copysign_cpu",
        BinaryOp::Nextafter => "nextafter_cpu",
        BinaryOp::Logaddexp => "logaddexp_cpu",
        BinaryOp::Logaddexp2 => "logaddexp2_cpu",
        BinaryOp::Xlogy => "xlogy_cpu",
        BinaryOp::Xlog1py => "xlog1py_cpu",
        BinaryOp::Zeta => "zeta_cpu",
        BinaryOp::Heaviside => "heaviside_cpu",
        BinaryOp::Fmax => "fmax_cpu",
        BinaryOp::Fmin => "fmin_cpu",
        _ => "binary_cpu",
    }
}

/// Whether the op is one of torch's "float ops" (`build_borrowing_binary_float_op`), whose
/// integral and bool inputs compute in the default float dtype.
pub(crate) fn promotes_integers(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Atan2 | BinaryOp::Copysign | BinaryOp::Xlogy | BinaryOp::Xlog1py | BinaryOp::Zeta
    )
}

/// Runs a math op over a set-up iteration in `dtype`. `scalar` is the divisor of a
/// `float16`/`bfloat16` rounding division when it is one element, read in `float32` from its
/// original dtype (torch's `original_scalar_value`).
pub(crate) fn run(op: BinaryOp, iter: &Iter, dtype: DType, scalar: Option<f32>) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    match dtype {
        DType::Bool => run_bool(op, out, a, b),
        DType::UInt8 => run_int::<u8>(op, iter),
        DType::Int8 => run_int::<i8>(op, iter),
        DType::Int16 => run_int::<i16>(op, iter),
        DType::Int32 => run_int::<i32>(op, iter),
        DType::Int64 => run_int::<i64>(op, iter),
        DType::Float16 => run_reduced::<Half>(op, out, a, b, scalar),
        DType::BFloat16 => run_reduced::<BFloat16>(op, out, a, b, scalar),
        DType::Float32 => run_real::<f32>(op, out, a, b),
        DType::Float64 => run_real::<f64>(op, out, a, b),
        // torch has none of them for `ComplexHalf`.
        DType::Complex32 => Err(not_implemented(kernel_name(op), dtype)),
        DType::Complex64 => run_complex::<f32>(op, out, a, b),
        DType::Complex128 => run_complex::<f64>(op, out, a, b),
    }
}

fn run_bool(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    match op {
        BinaryOp::Fmax => map_binary(out, a, b, |x: bool, y: bool| x | y),
        BinaryOp::Fmin => map_binary(out, a, b, |x: bool, y: bool| x & y),
        // `a == 0 ? b : a > 0`.
        BinaryOp::Heaviside => map_binary(out, a, b, |x: bool, y: bool| x | y),
        _ => Err(not_implemented(kernel_name(op), DType::Bool)),
    }
}

/// An integer division-like loop with torch's `ZeroDivisionError` (a `TORCH_CHECK` inside
/// the loop): a divisor that is 0 anywhere fails the call.
pub(crate) fn checked_division<T: Int>(iter: &Iter, f: impl Fn(T, T) -> T + Sync) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    // In the computation dtype: a divisor the loop converts as it loads it (an int64 256
    // read as uint8) is 0 where its conversion is.
    if iter.numel() > 0 && b.to_dtype(T::DTYPE)?.to_vec::<T>()?.contains(&T::ZERO) {
        return Err(zero_division());
    }
    // The divisor can still become 0 mid-loop when the output aliases it (torch lets some
    // such overlaps through); torch checks every element.
    let divided_by_zero = AtomicBool::new(false);
    map_binary(out, a, b, |x: T, y: T| {
        if y == T::ZERO {
            divided_by_zero.store(true, Ordering::Relaxed);
            return T::ZERO;
        }
        f(x, y)
    })?;
    if divided_by_zero.load(Ordering::Relaxed) {
        return Err(zero_division());
    }
    Ok(())
}

/// torch's error for an integer division by zero, raised from inside its loop.
pub(crate) fn zero_division() -> Error {
    Error::runtime("ZeroDivisionError")
}

/// c10's `div_floor_integer`: truncation, one less where the signs differ and the division
/// is inexact; `MIN / -1` is `MIN`.
///
/// ```
/// # use bcast_engine::ops::div_floor_int as f;
/// assert_eq!((f(-7i64, 2), f(7i64, -2), f(i64::MIN, -1), f(-8i8, 2)), (-4, -4, i64::MIN, -4));
/// ```
pub fn div_floor_int<T: Int>(a: T, b: T) -> T {
    if a.is_negative() != b.is_negative() {
        let q = a.wdiv(b);
        if a.wrem(b) != T::ZERO {
            q.wadd(T::ONE.wneg())
        } else {
            q
        }
    } else {
        a.wdiv(b)
    }
}

fn run_int<T: Int>(op: BinaryOp, iter: &Iter) -> Result<()> {
    let out = iter.output();
    let (a, b) = (iter.inputs()[0].as_tensor(), iter.inputs()[1].as_tensor());
    match op {
        BinaryOp::DivTrunc => checked_division(iter, T::wdiv),
        // uint8 floor division runs the truncating kernel (the signs never differ).
        BinaryOp::DivFloor => checked_division(iter, div_floor_int::<T>),
        BinaryOp::Fmod => checked_division(iter, T::wrem),
        BinaryOp::Fmax => map_binary(out, a, b, |x: T, y: T| x.max(y)),
        BinaryOp::Fmin => map_binary(out, a, b, |x: T, y: T| x.min(y)),
        BinaryOp::Heaviside => map_binary(out, a, b, |x: T, y: T| {
            if x == T::ZERO {
                y
            } else {
                T::from_bool(x > T::ZERO)
            }
        }),
        _ => Err(not_implemented(kernel_name(op), T::DTYPE)),
    }
}

/// c10's `div_floor_floating` (Python's `//`), with `round` applied to the result of every
/// step, as the element type's arithmetic gives it: the identity for `float32`/`float64`,
/// rounding to the half type for `float16`/`bfloat16` (c10's half arithmetic and its
/// `std::fmod`/`std::floor` overloads return the half type).
fn div_floor_floating<T: Real>(a: T, b: T, round: impl Fn(T) -> T) -> T {
    if b == T::ZERO {
        return round(a / b);
    }
    let m = round(a % b);
    let mut div = round(round(a - m) / b);
    if m != T::ZERO && (b < T::ZERO) != (m < T::ZERO) {
        div = round(div - T::ONE);
    }
    if div != T::ZERO {
        let mut floordiv = round(div.floor());
        if round(div - floordiv) > T::from_f64(0.5) {
            floordiv = round(floordiv + T::ONE);
        }
        floordiv
    } else {
        T::ZERO.copysign(round(a / b))
    }
}

/// `nextafter` on the bits of a float of `sign_bit + 1` bits, as c10's (musl's) version:
/// the caller handles NaN.
fn next_after_bits(from: u64, to: u64, sign: u64) -> u64 {
    if from == to {
        return from;
    }
    let (abs_from, abs_to) = (from & !sign, to & !sign);
    if abs_from == 0 {
        if abs_to == 0 {
            return to;
        }
        return (to & sign) | 1;
    }
    if abs_from > abs_to || (from ^ to) & sign != 0 {
        from - 1
    } else {
        from + 1
    }
}

/// A float type `nextafter` steps through: its bits and its sign bit.
trait Bits: Copy {
    fn bits(self) -> u64;
    fn of_bits(bits: u64) -> Self;
    const SIGN: u64;
}

impl Bits for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn of_bits(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    const SIGN: u64 = 1 << 31;
}

impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn of_bits(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    const SIGN: u64 = 1 << 63;
}

impl Bits for Half {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn of_bits(bits: u64) -> Half {
        Half::from_bits(bits as u16)
    }
    const SIGN: u64 = 1 << 15;
}

impl Bits for BFloat16 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn of_bits(bits: u64) -> BFloat16 {
        BFloat16::from_bits(bits as u16)
    }
    const SIGN: u64 = 1 << 15;
}

/// `std::nextafter`: the next value after `from` toward `to`; NaN if either is (`from + to`).
fn next_after<T: Bits + Element>(from: T, to: T) -> T {
    let (f, t) = (from.cast::<f64>(), to.cast::<f64>());
    if f.is_nan() || t.is_nan() {
        return T::from_f64(f + t);
    }
    T::of_bits(next_after_bits(from.bits(), to.bits(), T::SIGN))
}

/// Cephes' Hurwitz zeta function, as torch's `zeta` (`Math.h`): accumulated in `float64`
/// (`float32`'s accumulate type), the first power in the element type.
// The constants keep Cephes' digits so they can be compared with torch's source.
#[allow(clippy::excessive_precision)]
fn zeta<T: Real>(x: T, q: T) -> T {
    const MACHEP: f64 = 1.11022302462515654042E-16;
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ];
    if x == T::ONE {
        return T::from_f64(f64::INFINITY);
    }
    if x < T::ONE {
        return T::NAN;
    }
    if q <= T::ZERO {
        if q == q.floor() {
            return T::from_f64(f64::INFINITY);
        }
        if x != x.floor() {
            return T::NAN;
        }
    }
    let xd = x.cast::<f64>();
    let mut s = q.powf(-x).cast::<f64>();
    let mut a = q.cast::<f64>();
    let mut i = 0;
    let mut b = 0.0f64;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-xd);
        s += b;
        if -MACHEP * s < b && b < MACHEP * s {
            return T::from_f64(s);
        }
    }
    let w = a;
    s += b * w / (xd - 1.0);
    s -= 0.5 * b;
    let mut a = 1.0f64;
    let mut k = 0.0f64;
    for coefficient in A {
        a *= xd + k;
        b /= w;
        let t = a * b / coefficient;
        s += t;
        if (t / s).abs() < MACHEP {
            return T::from_f64(s);
        }
        k += 1.0;
        a *= xd + k;
        b /= w;
        k += 1.0;
    }
    T::from_f64(s)
}

/// `std::fmax`/`std::fmin` as glibc's x86-64 `maxsd`/`minsd` give them: a NaN operand yields
/// the other, and equal operands (±0) the second.
fn fmax<T: Real>(a: T, b: T) -> T {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b {
        a
    } else {
        b
    }
}

fn fmin<T: Real>(a: T, b: T) -> T {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b {
        a
    } else {
        b
    }
}

/// One element of an op that computes the same way in every float type (the half types
/// through `float32`).
fn real_math<T: Real>(op: BinaryOp, a: T, b: T) -> T {
    match op {
        BinaryOp::DivTrunc => (a / b).trunc(),
        BinaryOp::DivFloor => div_floor_floating(a, b, |v| v),
        BinaryOp::Fmod => a % b,
        BinaryOp::Atan2 => a.atan2(b),
        BinaryOp::Hypot => a.hypot(b),
        BinaryOp::Copysign => a.copysign(b),
        BinaryOp::Logaddexp | BinaryOp::Logaddexp2 => {
            if a.is_infinite() && a == b {
                return a;
            }
            // std::max(a, b): the first unless a < b.
            let m = if a < b { b } else { a };
            let d = -(a - b).abs();
            if op == BinaryOp::Logaddexp {
                m + d.exp().ln_1p()
            } else {
                m + d.exp2().ln_1p() * T::from_f64(1.0 / std::f64::consts::LN_2)
            }
        }
        BinaryOp::Xlogy | BinaryOp::Xlog1py => {
            if b.is_nan() {
                T::NAN
            } else if a == T::ZERO {
                T::ZERO
            } else if op == BinaryOp::Xlogy {
                a * b.ln()
            } else {
                a * b.ln_1p()
            }
        }
        BinaryOp::Zeta => zeta(a, b),
        BinaryOp::Heaviside => {
            if a == T::ZERO {
                b
            } else {
                T::from_bool(a > T::ZERO)
            }
        }
        BinaryOp::Fmax => fmax(a, b),
        BinaryOp::Fmin => fmin(a, b),
        // `run` routes only the ops above here; the others are not math ops.
        _ => T::NAN,
    }
}

fn run_real<T: Real + Bits>(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    match op {
        BinaryOp::Nextafter => map_binary(out, a, b, next_after::<T>),
        _ => map_binary(out, a, b, move |x: T, y: T| real_math(op, x, y)),
    }
}

/// `float16`/`bfloat16`: in `float32`, rounded once, but where c10's half arithmetic rounds
/// on the way (its operators and its `std::log`, `std::log1p`, `std::fmod`, `std::floor`
/// overloads return the half type): the rounding divisions with a tensor divisor, and
/// `xlogy`/`xlog1py`, whose logarithm is rounded before the product.
fn run_reduced<T: Element + Bits>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    scalar: Option<f32>,
) -> Result<()> {
    let f = |v: T| v.cast::<f32>();
    let round = |v: f32| T::from_f32(v).cast::<f32>();
    match (op, scalar) {
        (BinaryOp::Zeta, _) => Err(not_implemented(kernel_name(op), T::DTYPE)),
        (BinaryOp::Nextafter, _) => map_binary(out, a, b, next_after::<T>),
        (BinaryOp::DivTrunc | BinaryOp::DivFloor, Some(s)) => {
            map_binary(out, a, b, move |x: T, _: T| {
                T::from_f32(real_math(op, f(x), s))
            })
        }
        (BinaryOp::DivTrunc, None) => map_binary(out, a, b, move |x: T, y: T| {
            T::from_f32(round(f(x) / f(y)).trunc())
        }),
        (BinaryOp::DivFloor, None) => map_binary(out, a, b, move |x: T, y: T| {
            T::from_f32(div_floor_floating(f(x), f(y), round))
        }),
        (BinaryOp::Xlogy | BinaryOp::Xlog1py, _) => map_binary(out, a, b, move |x: T, y: T| {
            let (x, y) = (f(x), f(y));
            T::from_f32(if y.is_nan() {
                f32::NAN
            } else if x == 0.0 {
                0.0
            } else if op == BinaryOp::Xlogy {
                x * round(y.ln())
            } else {
                x * round(y.ln_1p())
            })
        }),
        _ => map_binary(out, a, b, move |x: T, y: T| {
            T::from_f32(real_math(op, f(x), f(y)))
        }),
    }
}

/// c10's complex `log1p`: `log(|1 + z|)` through `log1p` near 0, and the angle of `1 + z`.
fn complex_log1p<T: Real>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let theta = y.atan2(x + T::ONE);
    if c::abs(z) < T::from_f64(0.5) {
        let r = x * (T::from_f64(2.0) + x) + y * y;
        if r == T::ZERO {
            return Complex { re: x, im: theta };
        }
        Complex {
            re: T::from_f64(0.5) * r.ln_1p(),
            im: theta,
        }
    } else {
        Complex {
            re: (x + T::ONE).hypot(y).ln(),
            im: theta,
        }
    }
}

/// torch's complex `_log_add_exp_helper`.
fn complex_logaddexp<T: Real>(x: Complex<T>, y: Complex<T>) -> Complex<T> {
    let nan = |z: Complex<T>| z.re.is_nan() || z.im.is_nan();
    let (min, max) = if nan(y) {
        (y, y)
    } else if nan(x) {
        (x, x)
    } else if x.re < y.re {
        (x, y)
    } else {
        (y, x)
    };
    if nan(min) {
        return Complex {
            re: T::NAN,
            im: T::NAN,
        };
    }
    if min.re.is_infinite() && min.re == max.re {
        if min.re < T::ZERO {
            return min;
        }
        return c::log(c::add(c::exp(min), c::exp(max)));
    }
    c::add(complex_log1p(c::exp(c::add(min, c::neg(max)))), max)
}

fn run_complex<T: Real>(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()>
where
    Complex<T>: Element,
{
    match op {
        BinaryOp::Logaddexp => map_binary(out, a, b, complex_logaddexp::<T>),
        _ => Err(not_implemented(kernel_name(op), out.dtype())),
    }
}

/// `std::ldexp(double(x), int(e))` rounded to the element type: `x * 2^e` with one rounding
/// (musl's `scalbn`); an `int64` exponent keeps its low 32 bits, as C++'s conversion to `int`.
///
/// ```
/// # use bcast_engine::ops::ldexp_f64;
/// assert_eq!(ldexp_f64(3.0, 4), 48.0);
/// assert_eq!(ldexp_f64(1.0, -1074), 5e-324);
/// assert_eq!(ldexp_f64(1.0, (1i64 << 32) + 1), 2.0);
/// ```
pub fn ldexp_f64(x: f64, e: i64) -> f64 {
    let mut n = e as i32;
    let mut y = x;
    let p1023 = f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
    let m = f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000); // 2^-1022 * 2^53
    if n > 1023 {
        y *= p1023;
        n -= 1023;
        if n > 1023 {
            y *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        y *= m;
        n += 1022 - 53;
        if n < -1022 {
            y *= m;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}
