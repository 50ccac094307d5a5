//! The `strides` family: the layout of results. Operands share a memory order (row-major,
//! transposed, channels-last, any permutation) or not, some stepped, expanded or broadcast,
//! some of another dtype (converted first, which decides their layout), through element-wise
//! ops and the copying view ops (`clone`, `contiguous`, `reshape`, `repeat`).

use super::operands::random_dtype;
use super::{broadcast_partner, ordered_view, CaseBuilder, GenResult, ViewKind};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case};
use bcast_engine::ops::BinaryOp;
use bcast_engine::DType;

fn permutation(u: &mut Unstructured, ndim: usize) -> GenResult<Vec<usize>> {
    let mut order: Vec<usize> = (0..ndim).collect();
    for i in (1..ndim).rev() {
        let j = u.int_in_range(0..=i)?;
        order.swap(i, j);
    }
    Ok(order)
}

/// A view of `shape` laid out in `order` (or a permutation of its own when the ranks differ).
fn view(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    dtype: DType,
    shape: &[usize],
    order: &[usize],
) -> GenResult<Arg> {
    let order = if order.len() == shape.len() && u.ratio(3, 4)? {
        order.to_vec()
    } else {
        permutation(u, shape.len())?
    };
    let kind = ViewKind {
        permuted: order.iter().enumerate().any(|(i, &d)| i != d),
        stepped: u.ratio(1, 5)?,
        expanded: u.ratio(1, 6)?,
        offset: u.ratio(1, 4)?,
    };
    let spec = ordered_view(u, shape, &order, kind)?;
    let storage = b.storage(u, dtype, spec.storage_len)?;
    for t in kind.tags() {
        b.tag(t);
    }
    Ok(Arg::Tensor(b.tensor(&storage, shape, &spec)))
}

/// The `strides` family.
pub fn strides_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    b.tag("strides");
    let ndim = *u.choose(&[0, 1, 2, 3, 4, 4, 4])?;
    let shape = (0..ndim)
        .map(|_| u.choose(&[1, 2, 3, 3, 4, 0]).copied())
        .collect::<GenResult<Vec<usize>>>()?;
    let order = permutation(u, ndim)?;
    let dtype = random_dtype(u)?;
    let operand = |u: &mut Unstructured, b: &mut CaseBuilder| -> GenResult<Arg> {
        let s = if u.ratio(1, 3)? {
            broadcast_partner(u, &shape, 0)?
        } else {
            shape.clone()
        };
        let d = if u.ratio(1, 4)? {
            random_dtype(u)?
        } else {
            dtype
        };
        view(u, b, d, &s, &order)
    };
    let x = operand(u, &mut b)?;
    let (name, args) = match u.int_in_range(0..=9)? {
        0 | 1 => ("torch.add", vec![x, operand(u, &mut b)?]),
        2 => {
            let y = operand(u, &mut b)?;
            super::elementwise::binary_tolerance(&mut b, BinaryOp::Mul);
            ("torch.mul", vec![x, y])
        }
        3 => ("torch.neg", vec![x]),
        4 => ("torch.eq", vec![x, operand(u, &mut b)?]),
        5 => {
            let cond = view(u, &mut b, DType::Bool, &shape, &order)?;
            ("torch.where", vec![cond, x, operand(u, &mut b)?])
        }
        6 => ("Tensor.clone", vec![x]),
        7 => ("Tensor.contiguous", vec![x]),
        8 => ("Tensor.reshape", vec![x, Arg::Ints(vec![-1])]),
        _ => {
            let repeats = (0..ndim + u.int_in_range(0..=1)?)
                .map(|_| u.int_in_range(1..=2))
                .collect::<GenResult<Vec<i64>>>()?;
            ("Tensor.repeat", vec![x, Arg::Ints(repeats)])
        }
    };
    Ok(b.finish(name, args))
}
