//! The `int64` element functions, with torch's wrap-around arithmetic.

/// torch's `powi`: wrapping powers; a negative exponent gives 1 for base 1, ±1 for base -1
/// and 0 otherwise.
///
/// ```
/// # use bcast_engine::ops::integer::powi;
/// assert_eq!(powi(3, 40), -6289078614652622815);
/// assert_eq!((powi(-1, -3), powi(2, -1), powi(0, 0)), (-1, 0, 1));
/// ```
pub fn powi(a: i64, b: i64) -> i64 {
    if b < 0 {
        return match a {
            1 => 1,
            -1 => {
                if b % 2 != 0 {
                    -1
                } else {
                    1
                }
            }
            _ => 0,
        };
    }
    let (mut base, mut exp, mut result) = (a, b, 1i64);
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    result
}

/// torch's integer `remainder`: the sign of the divisor. The caller rules out a divisor of 0
/// (torch's `ZeroDivisionError`); here it gives 0 rather than a panic.
pub fn remainder(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r.wrapping_add(b)
    } else {
        r
    }
}
