//! The integer element functions, with torch's wrap-around arithmetic, for every integer
//! dtype ([`Int`]).

use crate::Element;

/// An integer element type: `u8`, `i8`, `i16`, `i32` or `i64`, with the wrapping arithmetic
/// torch's kernels get from C++ (a narrow result keeps its low bits).
pub trait Int: Element + Ord {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// Wrapping `+`.
    fn wadd(self, other: Self) -> Self;
    /// Wrapping `*`.
    fn wmul(self, other: Self) -> Self;
    /// Wrapping negation (`u8` wraps too: `-1` is 255).
    fn wneg(self) -> Self;
    /// Wrapping `abs` (`abs(MIN)` is `MIN`; identity for `u8`).
    fn wabs(self) -> Self;
    /// `-1`, `0` or `1` (`0` or `1` for `u8`).
    fn signum(self) -> Self;
    /// Wrapping `%` (truncated).
    fn wrem(self, other: Self) -> Self;
    /// Wrapping `/` (truncated; `MIN / -1` is `MIN`).
    fn wdiv(self, other: Self) -> Self;
    /// Whether the value is below 0.
    fn is_negative(self) -> bool;
    /// Every bit flipped (`~x`).
    fn bit_not(self) -> Self;
}

macro_rules! int_impl {
    ($t:ty, $signed:expr) => {
        impl Int for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline]
            fn wadd(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline]
            fn wmul(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            #[inline]
            fn wneg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn wabs(self) -> Self {
                if self < 0 {
                    self.wrapping_neg()
                } else {
                    self
                }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn signum(self) -> Self {
                if self > 0 {
                    1
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline]
            fn wrem(self, other: Self) -> Self {
                self.wrapping_rem(other)
            }
            #[inline]
            fn wdiv(self, other: Self) -> Self {
                self.wrapping_div(other)
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool {
                self < 0
            }
            #[inline]
            fn bit_not(self) -> Self {
                !self
            }
        }
    };
}
int_impl!(u8, false);
int_impl!(i8, true);
int_impl!(i16, true);
int_impl!(i32, true);
int_impl!(i64, true);

/// torch's `powi`: wrapping powers; a negative exponent gives 1 for base 1, ±1 for base -1
/// and 0 otherwise.
///
/// ```
/// # use bcast_engine::ops::integer::powi;
/// assert_eq!(powi(3i64, 40), -6289078614652622815);
/// assert_eq!((powi(-1i64, -3), powi(2i64, -1), powi(0i64, 0)), (-1, 0, 1));
/// assert_eq!(powi(3u8, 5), 243);
/// assert_eq!(powi(3i8, 5), -13);
/// ```
pub fn powi<T: Int>(a: T, b: T) -> T {
    if b.is_negative() {
        return if a == T::ONE {
            T::ONE
        } else if a == T::ONE.wneg() {
            if b.wrem(T::ONE.wadd(T::ONE)) != T::ZERO {
                a
            } else {
                T::ONE
            }
        } else {
            T::ZERO
        };
    }
    let (mut base, mut exp, mut result) = (a, b.cast::<i64>() as u64, T::ONE);
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wmul(base);
        }
        base = base.wmul(base);
        exp >>= 1;
    }
    result
}

/// torch's integer `remainder`: the sign of the divisor. The caller rules out a divisor of 0
/// (torch's `ZeroDivisionError`); here it gives 0 rather than a panic.
pub fn remainder<T: Int>(a: T, b: T) -> T {
    if b == T::ZERO {
        return T::ZERO;
    }
    let r = a.wrem(b);
    if r != T::ZERO && (r.is_negative() != b.is_negative()) {
        r.wadd(b)
    } else {
        r
    }
}
