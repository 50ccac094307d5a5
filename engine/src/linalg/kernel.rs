//! The one multiply-accumulate loop behind every product: `out[b, i, j] = sum_k a[b, i, k] *
//! b[b, k, j]` over 3-d strided views, into a new contiguous tensor.

use crate::complex::Complex;
use crate::half::{BFloat16, Half};
use crate::reduce::{check_work, strided_positions, typed_slice};
use crate::{Element, Error, Result, Tensor};

/// How products accumulate, as torch's CPU kernels do (`at::opmath_type`), in `k` order:
/// `bool` as or-of-ands; integers in their own type with wrap-around (every order gives the
/// sum modulo 2^bits); `float32` in `float32` (so a product may overflow as BLAS's do);
/// `float16` and `bfloat16` in `float32`, rounded once at the end; complex numbers in their
/// own precision, `(a + bi)(c + di) = (ac - bd) + (ad + bc)i` as `c10::complex` multiplies.
///
/// torch sums in the order of whichever kernel runs (a naive loop, MKL, oneDNN, a vectorised
/// `dot`), so a floating sum that rounds can differ from this one in its last bits; sums that
/// are exact in the accumulator (the fixtures' values) agree bit for bit. oneDNN's `bfloat16`
/// kernels, which torch picks for larger products on a CPU with AVX-512 (`mm` of 20x20
/// matrices, not 4x4), also flush subnormal values to zero; the engine keeps them.
pub(crate) trait ProductElement: Element {
    /// The accumulator.
    type Acc: Copy;
    /// The empty sum.
    const ZERO: Self::Acc;
    /// `acc + x * y`.
    fn mul_add(acc: Self::Acc, x: Self, y: Self) -> Self::Acc;
    /// The result.
    fn finish(acc: Self::Acc) -> Self;
}

impl ProductElement for bool {
    type Acc = bool;
    const ZERO: bool = false;
    fn mul_add(acc: bool, x: bool, y: bool) -> bool {
        acc | (x & y)
    }
    fn finish(acc: bool) -> bool {
        acc
    }
}

/// Integers: in the type itself, wrapping.
macro_rules! wrapping_product {
    ($($t:ty),*) => {$(
        impl ProductElement for $t {
            type Acc = $t;
            const ZERO: $t = 0;
            fn mul_add(acc: $t, x: $t, y: $t) -> $t {
                acc.wrapping_add(x.wrapping_mul(y))
            }
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}
wrapping_product!(u8, i8, i16, i32, i64);

/// `float32` and `float64`: in the type itself.
macro_rules! float_product {
    ($($t:ty),*) => {$(
        impl ProductElement for $t {
            type Acc = $t;
            const ZERO: $t = 0.0;
            fn mul_add(acc: $t, x: $t, y: $t) -> $t {
                acc + x * y
            }
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}
float_product!(f32, f64);

/// `float16` and `bfloat16`: in `float32` (each product is exact there), rounded once.
macro_rules! reduced_float_product {
    ($($t:ty),*) => {$(
        impl ProductElement for $t {
            type Acc = f32;
            const ZERO: f32 = 0.0;
            fn mul_add(acc: f32, x: $t, y: $t) -> f32 {
                acc + x.to_f32() * y.to_f32()
            }
            fn finish(acc: f32) -> $t {
                <$t>::from_f32(acc)
            }
        }
    )*};
}
reduced_float_product!(Half, BFloat16);

/// Complex numbers: in their own precision.
macro_rules! complex_product {
    ($($t:ty),*) => {$(
        impl ProductElement for Complex<$t> {
            type Acc = Complex<$t>;
            const ZERO: Complex<$t> = Complex::new(0.0, 0.0);
            fn mul_add(acc: Complex<$t>, x: Complex<$t>, y: Complex<$t>) -> Complex<$t> {
                let re = x.re * y.re - x.im * y.im;
                let im = x.re * y.im + x.im * y.re;
                Complex::new(acc.re + re, acc.im + im)
            }
            fn finish(acc: Complex<$t>) -> Complex<$t> {
                acc
            }
        }
    )*};
}
complex_product!(f32, f64);

/// The batched product of two 3-d tensors `(B, n, k)` and `(B, k, p)` of one dtype: a new
/// contiguous `(B, n, p)` tensor. No torch checks: callers make them.
///
/// # Errors
/// When the operands are not 3-d with matching batch and inner sizes, or differ in dtype, or
/// the product needs more than [`crate::reduce::MAX_WORK`] multiply-adds.
pub fn batched_product(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 3 || sb.len() != 3 || sa[0] != sb[0] || sa[2] != sb[1] || a.dtype() != b.dtype()
    {
        return Err(Error::internal(format!(
            "batched_product: incompatible operands {:?} {} and {:?} {}",
            sa,
            a.dtype(),
            sb,
            b.dtype()
        )));
    }
    let (batch, n, k, p) = (sa[0] as u128, sa[1] as u128, sa[2] as u128, sb[2] as u128);
    check_work(batch * n * k.max(1) * p)?;
    crate::element::dispatch_twelve!(a.dtype(), T => product_typed::<T>(a, b), other => Err(Error::internal(format!(
        "batched_product: torch has no {other} product kernel"
    ))))
}

fn product_typed<T: ProductElement>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (batch, n, k, p) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    if batch * n * p == 0 {
        // Nothing to sum into (and `b`'s rows, batch by k, may be many though empty).
        return Tensor::from_vec(Vec::<T>::new(), &[batch, n, p]);
    }
    // `b` read along its rows: a row-major copy of a `b` whose rows are strided (a transposed
    // or permuted operand, as einsum gives it), so that the row loop below is over slices
    // (the same products added in the same order). Not for one row of `a` (`n` 1), which
    // reads each row of `b` once, as the copy would.
    let copied;
    let b = if b.strides()[2] != 1 && p > 1 && n > 1 {
        copied = b.contiguous_copy()?;
        &copied
    } else {
        b
    };
    let (a_s, b_s) = (a.strides(), b.strides());
    // Where each row of `a` and each row of `b` starts.
    let rows = strided_positions(&[batch, n], &[a_s[0], a_s[1]], a.offset());
    let b_rows = strided_positions(&[batch, k], &[b_s[0], b_s[1]], b.offset());
    let a_buf = a.storage().read();
    let b_buf = b.storage().read();
    let a_data = typed_slice::<T>(&a_buf)?;
    let b_data = typed_slice::<T>(&b_buf)?;
    let mut out = Vec::with_capacity(batch * n * p);
    // A row of sums at a time, `b` read along its rows: each sum still adds its products in
    // `k` order, so the bits are those of one sum after another.
    let mut sums = vec![T::ZERO; p];
    for bi in 0..batch {
        for i in 0..n {
            let row = rows[bi * n + i];
            sums.fill(T::ZERO);
            for kk in 0..k {
                let x = a_data[row + kk * a_s[2]];
                let start = b_rows[bi * k + kk];
                if b_s[2] == 1 {
                    for (sum, &y) in sums.iter_mut().zip(&b_data[start..start + p]) {
                        *sum = T::mul_add(*sum, x, y);
                    }
                } else {
                    for (j, sum) in sums.iter_mut().enumerate() {
                        *sum = T::mul_add(*sum, x, b_data[start + j * b_s[2]]);
                    }
                }
            }
            out.extend(sums.iter().map(|&sum| T::finish(sum)));
        }
    }
    Tensor::from_vec(out, &[batch, n, p])
}
