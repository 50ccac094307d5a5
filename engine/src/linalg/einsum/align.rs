//! Aligning the operands: every label (and the ellipsis) gets a position among the aligned dims
//! (output dims first, in output order, then the contracted ones); each operand has its
//! repeated labels turned into diagonals, gains size-1 dims for the labels it lacks, and is
//! permuted into that order.

use super::parse::{label_char, parse_output, Subscript, TOTAL_LABELS};
use crate::linalg::diagonal::{diagonal, movedim};
use crate::{Error, Result, Tensor};

/// Where each label and the ellipsis dims go among the aligned dims.
#[derive(Debug, Clone)]
pub(super) struct Alignment {
    /// The aligned position of each label that occurs.
    pub label_pos: [Option<usize>; TOTAL_LABELS],
    /// The position of the first ellipsis dim.
    pub ell_index: usize,
    /// How many dims the ellipsis covers (the most any operand's ellipsis covers).
    pub ell_num_dim: usize,
    /// The number of output dims (they come first).
    pub out_num_dim: usize,
    /// The number of aligned dims.
    pub total: usize,
}

impl Alignment {
    /// Positions from the output part of the equation (`rhs` with its byte offset), or, for an
    /// implicit output, the ellipsis then the labels seen once, in label order.
    pub fn new(
        label_count: &[usize; TOTAL_LABELS],
        ell_num_dim: usize,
        rhs: Option<(&str, usize)>,
    ) -> Result<Alignment> {
        let mut label_pos = [None; TOTAL_LABELS];
        let mut next = 0usize;
        let mut ell_index = None;
        match rhs {
            None => {
                ell_index = Some(0);
                next = ell_num_dim;
                for (l, &count) in label_count.iter().enumerate() {
                    if count == 1 {
                        label_pos[l] = Some(next);
                        next += 1;
                    }
                }
            }
            Some((rhs, offset)) => {
                for s in parse_output(rhs, offset, label_count)? {
                    match s {
                        Subscript::Ellipsis => {
                            ell_index = Some(next);
                            next += ell_num_dim;
                        }
                        Subscript::Label(l) => {
                            label_pos[l] = Some(next);
                            next += 1;
                        }
                    }
                }
            }
        }
        let out_num_dim = next;
        let ell_index = ell_index.unwrap_or_else(|| {
            next += ell_num_dim;
            out_num_dim
        });
        for (l, &count) in label_count.iter().enumerate() {
            if count > 0 && label_pos[l].is_none() {
                label_pos[l] = Some(next);
                next += 1;
            }
        }
        Ok(Alignment {
            label_pos,
            ell_index,
            ell_num_dim,
            out_num_dim,
            total: next,
        })
    }
}

/// Every operand aligned, and for each aligned dim the number of operands in which it is not
/// of size 1 (the contraction sums a dim once only one operand still has it).
///
/// # Errors
/// A label or ellipsis dim whose sizes do not broadcast across operands, or a repeated label
/// over dims of different sizes, with torch's messages.
pub(super) fn align_operands(
    op_labels: &[Vec<Subscript>],
    operands: &[Tensor],
    a: &Alignment,
) -> Result<(Vec<Tensor>, Vec<usize>)> {
    let mut label_size = [1usize; TOTAL_LABELS];
    let mut ell_sizes = vec![1usize; a.ell_num_dim];
    let mut dim_counts = vec![0usize; a.total];
    let mut ops = Vec::with_capacity(operands.len());
    for (i, (labels, operand)) in op_labels.iter().zip(operands).enumerate() {
        let mut op = operand.clone();
        let mut permutation: Vec<Option<usize>> = vec![None; a.total];
        let mut dim = 0usize;
        for s in labels {
            match *s {
                Subscript::Ellipsis => {
                    let covered = operand.ndim() - (labels.len() - 1);
                    for j in a.ell_num_dim - covered..a.ell_num_dim {
                        let size = op.shape()[dim];
                        if size != 1 {
                            if ell_sizes[j] != 1 && ell_sizes[j] != size {
                                let (size, seen) = (size as i64, ell_sizes[j] as i64);
                                // torch's message lacks the space before "has".
                                return Err(Error::runtime(format!(
                                    "einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which does not broadcast with previously seen ellipsis with size {seen} for the respective dimension"
                                )));
                            }
                            ell_sizes[j] = size;
                            dim_counts[a.ell_index + j] += 1;
                        }
                        permutation[a.ell_index + j] = Some(dim);
                        dim += 1;
                    }
                }
                Subscript::Label(l) => {
                    let pos = a.label_pos[l].unwrap_or(0);
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
                            let diag = diagonal(&op, prev as i64, dim as i64)?;
                            op = movedim(&diag, -1, prev as i64)?;
                        }
                    }
                }
            }
        }
        let mut order = Vec::with_capacity(a.total);
        for slot in &permutation {
            let d = match *slot {
                Some(d) => d,
                None => {
                    op = op.unsqueeze(dim as i64)?;
                    dim += 1;
                    dim - 1
                }
            };
            order.push(d as i64);
        }
        ops.push(op.permute(&order)?);
    }
    Ok((ops, dim_counts))
}
