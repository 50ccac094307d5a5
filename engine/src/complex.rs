//! `complex32`, `complex64` and `complex128`: a pair of floats, laid out as torch's
//! `c10::complex`.
//!
//! ```
//! use bcast_engine::complex::Complex;
//! let z = Complex::new(1.0f32, -2.0);
//! assert_eq!((z.re, z.im), (1.0, -2.0));
//! ```

use std::fmt;

/// A complex number, real part first (`#[repr(C)]`, as `c10::complex<T>`).
#[derive(Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T> {
    /// The real part.
    pub re: T,
    /// The imaginary part.
    pub im: T,
}

/// `torch.complex32` (`ComplexHalf`): two [`Half`](crate::half::Half).
pub type Complex32 = Complex<crate::half::Half>;
/// `torch.complex64`: two `f32`.
pub type Complex64 = Complex<f32>;
/// `torch.complex128`: two `f64`.
pub type Complex128 = Complex<f64>;

impl<T> Complex<T> {
    /// `re + im·i`.
    pub const fn new(re: T, im: T) -> Complex<T> {
        Complex { re, im }
    }
}

impl<T: fmt::Debug> fmt::Debug for Complex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({:?}+{:?}j)", self.re, self.im)
    }
}
