//! torch's `sumproduct_pair`: `(left * right).sum(sum_dims, keepdim=True)` for two operands of
//! equal rank, done as permute, reshape, `bmm`, view and permute back; without `sum_dims`, the
//! element-wise `mul` (promotion and output layout as TensorIterator gives them).

use super::super::products::bmm;
use crate::ops::{binary, BinaryOp};
use crate::reduce::sum;
use crate::shape::signed_sizes;
use crate::{Result, Tensor};

/// The product of `left` and `right` summed over `sum_dims` (kept as size-1 dims). Dims are
/// sorted into those in both operands and the output (`lro`), only the left (`lo`) or only the
/// right (`ro`); when every `ro` dim comes before every `lo` dim, the operands swap so that
/// `bmm` writes the result in output order.
pub(super) fn sumproduct_pair(left: &Tensor, right: &Tensor, sum_dims: &[usize]) -> Result<Tensor> {
    if sum_dims.is_empty() {
        return binary(BinaryOp::Mul, left, right, None);
    }
    let ndim = left.ndim();
    let mut left = left.clone();
    let mut right = right.clone();
    let (mut lro, mut lo, mut ro) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lro_size, mut lo_size, mut ro_size, mut sum_size) = (1i64, 1i64, 1i64, 1i64);
    for i in 0..ndim {
        let sl = left.shape()[i] != 1;
        let sr = right.shape()[i] != 1;
        if sum_dims.contains(&i) {
            if sl && sr {
                sum_size = sum_size.wrapping_mul(left.shape()[i] as i64);
            } else if sl {
                left = sum(&left, &[i as i64], true, None)?;
            } else if sr {
                right = sum(&right, &[i as i64], true, None)?;
            }
        } else if sl && sr {
            lro.push(i);
            lro_size = lro_size.wrapping_mul(left.shape()[i] as i64);
        } else if sl {
            lo.push(i);
            lo_size = lo_size.wrapping_mul(left.shape()[i] as i64);
        } else {
            ro.push(i);
            ro_size = ro_size.wrapping_mul(right.shape()[i] as i64);
        }
    }
    if let (Some(&lo_first), Some(&ro_last)) = (lo.first(), ro.last())
        && ro_last < lo_first
    {
        std::mem::swap(&mut left, &mut right);
        std::mem::swap(&mut lo, &mut ro);
        std::mem::swap(&mut lo_size, &mut ro_size);
    }
    let mut out_size: Vec<i64> = Vec::with_capacity(ndim);
    out_size.extend(lro.iter().map(|&d| left.shape()[d] as i64));
    out_size.extend(lo.iter().map(|&d| left.shape()[d] as i64));
    out_size.extend(sum_dims.iter().map(|_| 1));
    out_size.extend(ro.iter().map(|&d| right.shape()[d] as i64));

    let lperm: Vec<usize> = [&lro[..], &lo, sum_dims, &ro].concat();
    let rperm: Vec<usize> = [&lro[..], sum_dims, &ro, &lo].concat();
    let mut operm = vec![0i64; lperm.len()];
    for (i, &d) in lperm.iter().enumerate() {
        operm[d] = i as i64;
    }
    let left = left
        .permute(&signed_sizes(&lperm))?
        .reshape(&[lro_size, lo_size, sum_size])?;
    let right = right
        .permute(&signed_sizes(&rperm))?
        .reshape(&[lro_size, sum_size, ro_size])?;
    bmm(&left, &right)?.view(&out_size)?.permute(&operm)
}
