//! Contracting the aligned operands left to right (torch's order without an optimised path),
//! summing each contracted dim as soon as only one operand still has it.

use super::align::Alignment;
use super::pair::sumproduct_pair;
use crate::reduce::sum;
use crate::shape::signed_sizes;
use crate::{Error, Result, Tensor};
use std::collections::VecDeque;

/// The einsum result from the aligned operands and the per-dim operand counts of
/// [`super::align::align_operands`].
pub(super) fn contract(
    ops: Vec<Tensor>,
    mut dim_counts: Vec<usize>,
    a: &Alignment,
    num_ops: usize,
) -> Result<Tensor> {
    let mut ops: VecDeque<Tensor> = ops.into();
    while ops.len() > 1 {
        let (Some(mut left), Some(mut right)) = (ops.pop_front(), ops.pop_front()) else {
            break;
        };
        let mut sum_dims = Vec::new();
        let (mut left_sum, mut right_sum) = (Vec::new(), Vec::new());
        for (d, count) in dim_counts
            .iter_mut()
            .enumerate()
            .take(a.total)
            .skip(a.out_num_dim)
        {
            let (sl, sr) = (left.shape()[d] != 1, right.shape()[d] != 1);
            if sl && sr {
                *count = count.saturating_sub(1);
                if *count == 1 {
                    sum_dims.push(d);
                    *count = 0;
                }
            } else if *count == 1 {
                if sl {
                    left_sum.push(d as i64);
                    *count = 0;
                } else if sr {
                    right_sum.push(d as i64);
                    *count = 0;
                }
            }
        }
        if !left_sum.is_empty() {
            left = sum(&left, &left_sum, true, None)?;
        }
        if !right_sum.is_empty() {
            right = sum(&right, &right_sum, true, None)?;
        }
        ops.push_front(sumproduct_pair(&left, &right, &sum_dims)?);
    }
    let result = ops
        .pop_front()
        .ok_or_else(|| Error::internal("einsum contracted no operands"))?;
    if a.total == a.out_num_dim {
        return Ok(result);
    }
    if num_ops > 1 {
        // Every contracted dim is 1 by now: view them away.
        return result.view(&signed_sizes(&result.shape()[..a.out_num_dim]));
    }
    let dims: Vec<i64> = (a.out_num_dim..a.total).map(|d| d as i64).collect();
    sum(&result, &dims, false, None)
}
