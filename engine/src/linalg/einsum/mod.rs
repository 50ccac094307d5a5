//! `torch.einsum` as torch computes it: parse, take diagonals of repeated subscripts, align
//! every operand to the dims "output, then contracted" (unsqueezing missing ones), then
//! contract left to right with [`pair::sumproduct_pair`], summing a dim as soon as only one
//! operand still has it. Results can be views of an input (a permutation, a diagonal) or
//! permuted views of a `bmm` result, exactly as in torch.

mod pair;
pub mod parse;

use super::diagonal::{diagonal, movedim};
use crate::reduce::sum;
use crate::{Error, Result, Tensor};
use parse::{label_char, parse_inputs, parse_output, Subscript, TOTAL_LABELS};
use std::collections::VecDeque;

/// `torch.einsum(equation, *operands)`.
///
/// ```
/// use bcast_engine::{linalg, Tensor};
/// let x = Tensor::from_vec((0..9i64).collect(), &[3, 3]).unwrap();
/// let trace = linalg::einsum("ii", &[x.clone()]).unwrap();
/// assert_eq!(trace.to_vec::<i64>().unwrap(), vec![12]);
/// let diag = linalg::einsum("ii->i", &[x.clone()]).unwrap();
/// assert!(diag.shares_storage(&x));
/// let err = linalg::einsum("ij,jk", &[x]).unwrap_err();
/// assert_eq!(err.message(), "einsum(): fewer operands were provided than specified in the equation");
/// ```
///
/// # Errors
/// Every error of torch's einsum, with its message: a malformed equation, an operand count or
/// rank that does not match it, sizes that do not broadcast, a repeated subscript over dims of
/// different sizes; then the errors of the products it runs (`bmm` dtypes, for example).
pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    if operands.is_empty() {
        return Err(Error::runtime(
            "einsum(): must provide at least one operand",
        ));
    }
    let num_ops = operands.len();
    let (lhs, rhs) = match equation.find("->") {
        Some(p) => (&equation[..p], Some((&equation[p + 2..], p + 2))),
        None => (equation, None),
    };
    let op_labels = parse_inputs(lhs, num_ops)?;

    let mut label_count = [0usize; TOTAL_LABELS];
    let mut ell_num_dim = 0usize;
    for (i, (labels, op)) in op_labels.iter().zip(operands).enumerate() {
        let ndim = op.ndim();
        let has_ellipsis = labels.contains(&Subscript::Ellipsis);
        let nlabels = labels.len() - has_ellipsis as usize;
        for s in labels {
            if let Subscript::Label(l) = s {
                label_count[*l] += 1;
            }
        }
        if has_ellipsis {
            ell_num_dim = ell_num_dim.max(ndim.saturating_sub(nlabels));
        }
        let ok = if has_ellipsis {
            nlabels <= ndim
        } else {
            nlabels == ndim
        };
        if !ok {
            let (relation, tail) = if has_ellipsis {
                ("is more than", "")
            } else {
                ("does not match", " and no ellipsis was given")
            };
            return Err(Error::runtime(format!(
                "einsum(): the number of subscripts in the equation ({nlabels}) {relation} the number of dimensions ({ndim}) for operand {i}{tail}"
            )));
        }
    }

    // Where each label (and the ellipsis) goes in the aligned dims: output first, then the
    // contracted ones.
    let mut label_pos: [Option<usize>; TOTAL_LABELS] = [None; TOTAL_LABELS];
    let mut perm_index = 0usize;
    let mut ell_index = 0usize;
    let mut ell_in_output = false;
    match rhs {
        None => {
            perm_index = ell_num_dim;
            ell_in_output = true;
            for (l, &count) in label_count.iter().enumerate() {
                if count == 1 {
                    label_pos[l] = Some(perm_index);
                    perm_index += 1;
                }
            }
        }
        Some((rhs, offset)) => {
            for s in parse_output(rhs, offset, &label_count)? {
                match s {
                    Subscript::Ellipsis => {
                        ell_index = perm_index;
                        perm_index += ell_num_dim;
                        ell_in_output = true;
                    }
                    Subscript::Label(l) => {
                        label_pos[l] = Some(perm_index);
                        perm_index += 1;
                    }
                }
            }
        }
    }
    let out_num_dim = perm_index;
    if !ell_in_output {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for (l, &count) in label_count.iter().enumerate() {
        if count > 0 && label_pos[l].is_none() {
            label_pos[l] = Some(perm_index);
            perm_index += 1;
        }
    }

    let mut label_size = [1usize; TOTAL_LABELS];
    let mut ell_sizes = vec![1usize; ell_num_dim];
    let mut dim_counts = vec![0usize; perm_index];
    let mut ops: VecDeque<Tensor> = VecDeque::with_capacity(num_ops);
    for (i, (labels, operand)) in op_labels.iter().zip(operands).enumerate() {
        let mut op = operand.clone();
        let mut permutation: Vec<Option<usize>> = vec![None; perm_index];
        let mut dim = 0usize;
        for s in labels {
            match *s {
                Subscript::Ellipsis => {
                    let covered = operand.ndim() - (labels.len() - 1);
                    for j in ell_num_dim - covered..ell_num_dim {
                        let size = op.shape()[dim];
                        if size != 1 {
                            if ell_sizes[j] != 1 && ell_sizes[j] != size {
                                let (size, seen) = (size as i64, ell_sizes[j] as i64);
                                return Err(Error::runtime(format!(
                                    "einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which does not broadcast with previously seen ellipsis with size {seen} for the respective dimension"
                                )));
                            }
                            ell_sizes[j] = size;
                            dim_counts[ell_index + j] += 1;
                        }
                        permutation[ell_index + j] = Some(dim);
                        dim += 1;
                    }
                }
                Subscript::Label(l) => {
                    let pos = label_pos[l].unwrap_or(0);
                    match permutation[pos] {
                        None => {
                            let size = op.shape()[dim];
                            if size != 1 {
                                if label_size[l] != 1 && label_size[l] != size {
                                    return Err(Error::runtime(format!(
                                        "einsum(): subscript {} has size {} for operand {i} which does not broadcast with previously seen size {}",
                                        label_char(l),
                                        size as i64,
                                        label_size[l] as i64
                                    )));
                                }
                                label_size[l] = size;
                                dim_counts[pos] += 1;
                            }
                            permutation[pos] = Some(dim);
                            dim += 1;
                        }
                        Some(prev) => {
                            let (size, prev_size) =
                                (op.shape()[dim] as i64, op.shape()[prev] as i64);
                            if size != prev_size {
                                return Err(Error::runtime(format!(
                                    "einsum(): subscript {} is repeated for operand {i} but the sizes don't match, {size} != {prev_size}",
                                    label_char(l)
                                )));
                            }
                            op =
                                movedim(&diagonal(&op, prev as i64, dim as i64)?, -1, prev as i64)?;
                        }
                    }
                }
            }
        }
        let mut order = Vec::with_capacity(perm_index);
        for slot in permutation.iter_mut() {
            let d = match *slot {
                Some(d) => d,
                None => {
                    op = op.unsqueeze(dim as i64)?;
                    dim += 1;
                    dim - 1
                }
            };
            *slot = Some(d);
            order.push(d as i64);
        }
        ops.push_back(op.permute(&order)?);
    }

    while ops.len() > 1 {
        let (Some(mut a), Some(mut b)) = (ops.pop_front(), ops.pop_front()) else {
            break;
        };
        let mut sum_dims = Vec::new();
        let (mut a_sum, mut b_sum) = (Vec::new(), Vec::new());
        for (d, count) in dim_counts
            .iter_mut()
            .enumerate()
            .take(perm_index)
            .skip(out_num_dim)
        {
            let (sa, sb) = (a.shape()[d] != 1, b.shape()[d] != 1);
            if sa && sb {
                *count -= 1;
                if *count == 1 {
                    sum_dims.push(d);
                    *count = 0;
                }
            } else if *count == 1 {
                if sa {
                    a_sum.push(d as i64);
                    *count = 0;
                } else if sb {
                    b_sum.push(d as i64);
                    *count = 0;
                }
            }
        }
        if !a_sum.is_empty() {
            a = sum(&a, &a_sum, true, None)?;
        }
        if !b_sum.is_empty() {
            b = sum(&b, &b_sum, true, None)?;
        }
        ops.push_front(pair::sumproduct_pair(&a, &b, &sum_dims)?);
    }

    let result = ops
        .pop_front()
        .ok_or_else(|| Error::runtime("einsum(): no result"))?;
    if perm_index > out_num_dim {
        if num_ops > 1 {
            let sizes: Vec<i64> = result.shape()[..out_num_dim]
                .iter()
                .map(|&s| s as i64)
                .collect();
            return result.view(&sizes);
        }
        let dims: Vec<i64> = (out_num_dim..perm_index).map(|d| d as i64).collect();
        return sum(&result, &dims, false, None);
    }
    Ok(result)
}

/// The equation the sublist format of `torch.einsum(op0, [0, 1], op1, [1, 2], [0, 2])` stands
/// for: subscript `n` is `A..Z` for `0..26` and `a..z` for `26..52`.
///
/// ```
/// use bcast_engine::linalg::einsum_sublist_equation;
/// assert_eq!(einsum_sublist_equation(&[vec![0, 27], vec![27]], Some(&[0])).unwrap(), "Ab,b->A");
/// assert!(einsum_sublist_equation(&[vec![52]], None).is_err());
/// ```
///
/// # Errors
/// `ValueError` for a subscript outside `0..52`.
pub fn einsum_sublist_equation(inputs: &[Vec<i64>], output: Option<&[i64]>) -> Result<String> {
    let letters = |list: &[i64]| -> Result<String> {
        list.iter()
            .map(|&n| match usize::try_from(n) {
                Ok(l) if l < TOTAL_LABELS => Ok(label_char(l)),
                _ => Err(Error::value(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)",
                )),
            })
            .collect()
    };
    let mut equation = inputs
        .iter()
        .map(|l| letters(l))
        .collect::<Result<Vec<String>>>()?
        .join(",");
    if let Some(out) = output {
        equation.push_str("->");
        equation.push_str(&letters(out)?);
    }
    Ok(equation)
}
