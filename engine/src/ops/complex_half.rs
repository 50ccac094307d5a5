//! `complex32` (`ComplexHalf`) arithmetic as `c10::complex<c10::Half>` does it: an operation
//! widens both parts of its operands to `float32`, computes as `complex64` does, and rounds
//! each part of its result to `float16`. A compound expression rounds after each operation:
//! torch's `add` is `a + alpha * b`, the product rounded before the sum (so even `alpha = 1`
//! multiplies, and an infinite part of `b` makes a NaN of the other part).
//!
//! ```
//! use bcast_engine::complex::Complex;
//! use bcast_engine::half::Half;
//! use bcast_engine::ops::complex_half::{add, mul};
//! let h = |re: f32, im: f32| Complex::new(Half::from_f32(re), Half::from_f32(im));
//! let one = h(1.0, 0.0);
//! let sum = add(h(2048.0, 0.0), mul(one, h(1.0, 0.0)));
//! assert_eq!(sum.re.to_f32(), 2048.0); // 2049 rounds to even
//! let nan = add(h(0.0, 0.0), mul(one, h(0.0, f32::INFINITY)));
//! assert!(nan.re.to_f32().is_nan()); // 1 * (0 + inf i): its real part is 0 * inf
//! ```

use crate::complex::Complex;
use crate::half::Half;

/// A `complex32` element.
pub type C32 = Complex<Half>;

/// Both parts exactly, in `float32`.
#[inline]
pub fn widen(z: C32) -> Complex<f32> {
    Complex::new(z.re.to_f32(), z.im.to_f32())
}

/// Each part rounded to `float16` (to nearest, ties to even).
#[inline]
pub fn narrow(z: Complex<f32>) -> C32 {
    Complex::new(Half::from_f32(z.re), Half::from_f32(z.im))
}

/// `a + b`.
#[inline]
pub fn add(a: C32, b: C32) -> C32 {
    let (a, b) = (widen(a), widen(b));
    narrow(Complex::new(a.re + b.re, a.im + b.im))
}

/// `a * b`. The products of two `float16` values are exact in `float32`, so each part rounds
/// once in `float32` (fused or not) and once to `float16`.
#[inline]
pub fn mul(a: C32, b: C32) -> C32 {
    let (a, b) = (widen(a), widen(b));
    narrow(Complex::new(
        a.re * b.re - a.im * b.im,
        a.re * b.im + a.im * b.re,
    ))
}

/// `-a`: both signs flipped (`-(0+0j)` is `-0-0j`).
#[inline]
pub fn neg(a: C32) -> C32 {
    Complex::new(
        Half::from_bits(a.re.0 ^ 0x8000),
        Half::from_bits(a.im.0 ^ 0x8000),
    )
}

/// `|a|`: `hypotf` of the parts, rounded to `float16`.
#[inline]
pub fn abs(a: C32) -> Half {
    let a = widen(a);
    Half::from_f32(a.re.hypot(a.im))
}

/// `a == b`: both parts equal (a NaN equals nothing, `-0` equals `0`).
#[inline]
pub fn eq(a: C32, b: C32) -> bool {
    a.re == b.re && a.im == b.im
}
