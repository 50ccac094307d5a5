//! `torch.einsum` as torch computes it: parse, take diagonals of repeated subscripts, align
//! every operand to the dims "output, then contracted" (unsqueezing missing ones), then
//! contract left to right, summing a dim as soon as only one operand still has it. Results can
//! be views of an input (a permutation, a diagonal) or permuted views of a `bmm` result,
//! exactly as in torch.

mod align;
mod contract;
mod pair;
pub(crate) mod parse;

use crate::{Error, Result, Tensor};
use align::{align_operands, Alignment};
use parse::{label_char, parse_inputs, Subscript, TOTAL_LABELS};

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
        return Err(Error::internal("einsum() needs at least one operand"));
    }
    let (lhs, rhs) = match equation.find("->") {
        Some(p) => (&equation[..p], Some((&equation[p + 2..], p + 2))),
        None => (equation, None),
    };
    let op_labels = parse_inputs(lhs, operands.len())?;
    let (label_count, ell_num_dim) = count_labels(&op_labels, operands)?;
    let alignment = Alignment::new(&label_count, ell_num_dim, rhs)?;
    let (ops, dim_counts) = align_operands(&op_labels, operands, &alignment)?;
    contract::contract(ops, dim_counts, &alignment, operands.len())
}

/// How often each label occurs in the inputs, and the most dims an ellipsis covers; checks
/// that every operand has as many dims as subscripts (at least as many, with an ellipsis).
fn count_labels(
    op_labels: &[Vec<Subscript>],
    operands: &[Tensor],
) -> Result<([usize; TOTAL_LABELS], usize)> {
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
    Ok((label_count, ell_num_dim))
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
