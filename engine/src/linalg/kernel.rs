//! The one multiply-accumulate loop behind every product: `out[b, i, j] = sum_k a[b, i, k] *
//! b[b, k, j]` over 3-d strided views, into a new contiguous tensor.

use crate::reduce::{check_work, strided_positions, typed_slice};
use crate::{Element, Error, Result, Tensor};

/// How products accumulate: in the element type, in `k` order (so `f32` products overflow as
/// BLAS's do), `int64` with wrap-around, `bool` as or-of-ands.
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

impl ProductElement for i64 {
    type Acc = i64;
    const ZERO: i64 = 0;
    fn mul_add(acc: i64, x: i64, y: i64) -> i64 {
        acc.wrapping_add(x.wrapping_mul(y))
    }
    fn finish(acc: i64) -> i64 {
        acc
    }
}

impl ProductElement for f32 {
    type Acc = f32;
    const ZERO: f32 = 0.0;
    fn mul_add(acc: f32, x: f32, y: f32) -> f32 {
        // In `f32`, like BLAS: a product may overflow to infinity and meet an opposite one.
        acc + x * y
    }
    fn finish(acc: f32) -> f32 {
        acc
    }
}

impl ProductElement for f64 {
    type Acc = f64;
    const ZERO: f64 = 0.0;
    fn mul_add(acc: f64, x: f64, y: f64) -> f64 {
        acc + x * y
    }
    fn finish(acc: f64) -> f64 {
        acc
    }
}

/// The batched product of two 3-d tensors `(B, n, k)` and `(B, k, p)` of one dtype: a new
/// contiguous `(B, n, p)` tensor. No torch checks: callers make them.
///
/// # Errors
/// When the operands are not 3-d with matching batch and inner sizes, or differ in dtype, or
/// the product needs more than [`crate::reduce::MAX_WORK`] multiply-adds.
pub(crate) fn batched_product(a: &Tensor, b: &Tensor) -> Result<Tensor> {
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
    crate::element::dispatch_legacy!(a.dtype(), T => product_typed::<T>(a, b),
        other => Err(Error::unsupported_dtype("matmul", other)))
}

fn product_typed<T: ProductElement>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (batch, n, k, p) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let (a_s, b_s) = (a.strides(), b.strides());
    // Where each row of `a` and each column of `b` starts.
    let rows = strided_positions(&[batch, n], &[a_s[0], a_s[1]], a.offset());
    let cols = strided_positions(&[batch, p], &[b_s[0], b_s[2]], b.offset());
    let a_buf = a.storage().read();
    let b_buf = b.storage().read();
    let a_data = typed_slice::<T>(&a_buf)?;
    let b_data = typed_slice::<T>(&b_buf)?;
    let mut out = Vec::with_capacity(batch * n * p);
    for bi in 0..batch {
        for i in 0..n {
            let row = rows[bi * n + i];
            for j in 0..p {
                let col = cols[bi * p + j];
                let mut acc = T::ZERO;
                for kk in 0..k {
                    acc = T::mul_add(acc, a_data[row + kk * a_s[2]], b_data[col + kk * b_s[1]]);
                }
                out.push(T::finish(acc));
            }
        }
    }
    Tensor::from_vec(out, &[batch, n, p])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Was the doctest of `batched_product` while it was public.
    #[test]
    fn multiplies_by_a_permutation() {
        let a = Tensor::from_vec(vec![1i64, 2, 3, 4], &[1, 2, 2]).unwrap();
        let i = Tensor::from_vec(vec![0i64, 1, 1, 0], &[1, 2, 2]).unwrap();
        assert_eq!(
            batched_product(&a, &i).unwrap().to_vec::<i64>().unwrap(),
            vec![2, 1, 4, 3]
        );
    }
}
