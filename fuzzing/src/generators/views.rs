//! Generators for shape algebra and view ops: `expand`, `broadcast_shapes`,
//! `broadcast_tensors`, and single view ops on random layouts with good and bad arguments.

use super::{broadcast_partner, random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, IndexItem, Num};

/// A size or dim argument: usually valid, sometimes one of the edge values torch must reject.
fn edge_or(u: &mut Unstructured, valid: i64, edges: &[i64]) -> GenResult<i64> {
    Ok(if u.ratio(1, 6)? {
        *u.choose(edges)?
    } else {
        valid
    })
}

/// A number drawn from `range`, sometimes one of the edge values instead.
fn ranged_or_edge(
    u: &mut Unstructured,
    range: std::ops::RangeInclusive<i64>,
    edges: &[i64],
) -> GenResult<i64> {
    let valid = u.int_in_range(range)?;
    edge_or(u, valid, edges)
}

/// A dim index for a tensor of `ndim` dims: in range (possibly negative), sometimes out.
fn dim_arg(u: &mut Unstructured, ndim: usize) -> GenResult<i64> {
    let n = ndim.max(1) as i64;
    let d = u.int_in_range(0..=n - 1)?;
    let d = if u.ratio(1, 2)? { d - n } else { d };
    edge_or(u, d, &[n, -n - 1, 7, -9])
}

/// `x.expand(sizes)`: size-1 dims stretched, leading dims added, -1 kept, bad sizes mixed in.
pub fn expand_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let shape = random_shape(u, ShapeLimits::default())?;
    let dtype = super::operands::random_dtype(u)?;
    let x = b.view(u, dtype, &shape, true)?;
    let mut target = Vec::with_capacity(shape.len() + 2);
    for &s in &shape {
        target.push(if s == 1 {
            u.int_in_range(0..=3)?
        } else if u.ratio(1, 4)? {
            -1
        } else {
            s as i64
        });
    }
    for _ in 0..u.int_in_range(0..=2)? {
        target.insert(0, u.int_in_range(0..=3)?);
    }
    if !target.is_empty() && u.ratio(1, 4)? {
        let d = u.choose_index(target.len())?;
        target[d] = *u.choose(&[-1, -2, 0, 7, 1 << 40])?;
    }
    if !target.is_empty() && u.ratio(1, 12)? {
        target.remove(0);
    }
    let (fn_name, args) = match u.int_in_range(0..=2)? {
        0 => ("Tensor.expand", vec![Arg::Tensor(x), Arg::Ints(target)]),
        1 => (
            "torch.broadcast_to",
            vec![Arg::Tensor(x), Arg::Tuple(target)],
        ),
        _ => {
            let shape: Vec<usize> = target.iter().map(|&s| s.clamp(0, 4) as usize).collect();
            let other = b.view(u, dtype, &shape, true)?;
            ("Tensor.expand_as", vec![Arg::Tensor(x), Arg::Tensor(other)])
        }
    };
    Ok(b.finish(fn_name, args))
}

/// `torch.broadcast_shapes(*shapes)` with ints, tuples, lists, `torch.Size`, `None`,
/// negative sizes and non-shapes.
pub fn broadcast_shapes_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let first = random_shape(u, ShapeLimits::default())?;
    let n = u.int_in_range(0..=4)?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        let mut shape: Vec<i64> = broadcast_partner(u, &first, 15)?
            .into_iter()
            .map(|s| s as i64)
            .collect();
        if !shape.is_empty() && u.ratio(1, 10)? {
            let d = u.choose_index(shape.len())?;
            shape[d] = *u.choose(&[-1, -3])?;
        }
        args.push(match u.int_in_range(0..=9)? {
            0 if shape.len() == 1 => Arg::Int(shape[0]),
            1 => Arg::List(shape),
            2 => Arg::Size(shape),
            3 if u.ratio(1, 3)? => Arg::None(()),
            4 if u.ratio(1, 4)? => Arg::Float(Num::Float(2.0)),
            _ => Arg::Tuple(shape),
        });
    }
    b.tag("broadcast_shapes");
    Ok(b.finish("torch.broadcast_shapes", args))
}

/// `torch.broadcast_tensors(*tensors)` over random layouts, compatible or not.
pub fn broadcast_tensors_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let first = random_shape(u, ShapeLimits::default())?;
    let n = u.int_in_range(0..=4)?;
    let mut names = Vec::with_capacity(n);
    for i in 0..n {
        let shape = if i == 0 {
            first.clone()
        } else {
            broadcast_partner(u, &first, 10)?
        };
        let dtype = super::operands::random_dtype(u)?;
        names.push(b.view(u, dtype, &shape, true)?);
    }
    // Varargs only: torch.broadcast_tensors([a, b]) is a Python binding TypeError, not broadcasting.
    let args = names.into_iter().map(Arg::Tensor).collect();
    Ok(b.finish("torch.broadcast_tensors", args))
}

fn index_item(u: &mut Unstructured, size: i64) -> GenResult<IndexItem> {
    let bound = |u: &mut Unstructured| -> GenResult<Option<i64>> {
        Ok(if u.ratio(1, 3)? {
            None
        } else {
            Some(u.int_in_range(-size - 2..=size + 2)?)
        })
    };
    Ok(match u.int_in_range(0..=9)? {
        0..=3 => IndexItem::Slice([
            bound(u)?,
            bound(u)?,
            if u.ratio(1, 2)? {
                None
            } else {
                Some(ranged_or_edge(u, 1..=3, &[0, -1])?)
            },
        ]),
        4..=5 if size == 0 => IndexItem::Int(*u.choose(&[0, 0, 1, -1])?),
        4..=5 => IndexItem::Int(ranged_or_edge(
            u,
            -size.max(1)..=size.max(1) - 1,
            &[size, -size - 1],
        )?),
        6..=7 => IndexItem::None(()),
        _ => IndexItem::Ellipsis(()),
    })
}

/// One view op on a random layout, arguments mostly valid and sometimes out of range.
pub fn view_op_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let shape = random_shape(u, ShapeLimits::default())?;
    let ndim = shape.len();
    let dtype = super::operands::random_dtype(u)?;
    let x = b.view(u, dtype, &shape, true)?;
    let numel: usize = shape.iter().product();
    let t = Arg::Tensor(x.clone());
    let (name, args) = match u.int_in_range(0..=14)? {
        0 => ("Tensor.unsqueeze", vec![t, Arg::Int(dim_arg(u, ndim + 1)?)]),
        1 => match u.int_in_range(0..=2)? {
            0 => ("Tensor.squeeze", vec![t]),
            1 => ("Tensor.squeeze", vec![t, Arg::Int(dim_arg(u, ndim)?)]),
            _ => {
                let dims = (0..u.int_in_range(0..=3)?)
                    .map(|_| dim_arg(u, ndim))
                    .collect::<GenResult<_>>()?;
                ("Tensor.squeeze", vec![t, Arg::Tuple(dims)])
            }
        },
        2 => {
            let mut perm: Vec<i64> = (0..ndim as i64).collect();
            for i in (1..perm.len()).rev() {
                let j = u.int_in_range(0..=i)?;
                perm.swap(i, j);
            }
            if u.ratio(1, 5)? && !perm.is_empty() {
                let i = u.choose_index(perm.len())?;
                perm[i] = dim_arg(u, ndim)?;
            }
            if u.ratio(1, 8)? {
                perm.push(0);
            }
            ("Tensor.permute", vec![t, Arg::Ints(perm)])
        }
        3 => (
            "Tensor.transpose",
            vec![t, Arg::Int(dim_arg(u, ndim)?), Arg::Int(dim_arg(u, ndim)?)],
        ),
        4 => ("Tensor.t", vec![t]),
        5 => {
            let d = dim_arg(u, ndim)?;
            let size = shape
                .get(d.rem_euclid(ndim.max(1) as i64) as usize)
                .copied()
                .unwrap_or(0) as i64;
            let start = ranged_or_edge(u, -size..=size, &[size + 1, -size - 1])?;
            let len = ranged_or_edge(u, 0..=size, &[-1, size + 1])?;
            (
                "Tensor.narrow",
                vec![t, Arg::Int(d), Arg::Int(start), Arg::Int(len)],
            )
        }
        6 => {
            let d = dim_arg(u, ndim)?;
            let size = shape
                .get(d.rem_euclid(ndim.max(1) as i64) as usize)
                .copied()
                .unwrap_or(1) as i64;
            let i = ranged_or_edge(u, -size.max(1)..=size.max(1) - 1, &[size, -size - 1])?;
            ("Tensor.select", vec![t, Arg::Int(d), Arg::Int(i)])
        }
        7 => {
            let len = b.tensor_spec(&x).map(|s| s.offset).unwrap_or(0) + numel;
            let new_shape = random_shape(u, ShapeLimits::default())?;
            let spec = super::random_view(u, &new_shape, true)?;
            let mut size: Vec<i64> = new_shape.iter().map(|&s| s as i64).collect();
            let mut stride: Vec<i64> = spec.strides.iter().map(|&s| s as i64).collect();
            if u.ratio(1, 6)? && !size.is_empty() {
                let i = u.choose_index(size.len())?;
                size[i] = *u.choose(&[-1, 1 << 62])?;
            }
            if u.ratio(1, 8)? && !stride.is_empty() {
                stride[0] = -1;
            }
            if u.ratio(1, 10)? {
                stride.push(1);
            }
            let offset = if u.ratio(1, 2)? {
                Arg::None(())
            } else {
                Arg::Int(ranged_or_edge(u, 0..=len as i64, &[-1])?)
            };
            (
                "Tensor.as_strided",
                vec![t, Arg::Ints(size), Arg::Ints(stride), offset],
            )
        }
        8 | 9 => {
            let mut sizes = factor_shape(u, numel)?;
            if !sizes.is_empty() && u.ratio(1, 3)? {
                let i = u.choose_index(sizes.len())?;
                sizes[i] = -1;
            }
            if u.ratio(1, 8)? {
                sizes.push(*u.choose(&[-1, -2, 0, 5])?);
            }
            let name = if u.ratio(1, 2)? {
                "Tensor.view"
            } else {
                "Tensor.reshape"
            };
            (name, vec![t, Arg::Ints(sizes)])
        }
        10 => ("Tensor.contiguous", vec![t]),
        11 => ("Tensor.clone", vec![t]),
        12 => {
            let mut reps: Vec<i64> = (0..ndim + u.int_in_range(0..=2)?)
                .map(|_| u.int_in_range(0..=3))
                .collect::<GenResult<_>>()?;
            if u.ratio(1, 8)? && !reps.is_empty() {
                reps[0] = -1;
            }
            // Two huge repeats overflow the storage size without overflowing any one size
            // (a single size past int64 is undefined behaviour in torch's repeat).
            if u.ratio(1, 10)? && reps.len() >= 2 {
                reps[0] = 1 << 40;
                reps[1] = 1 << 40;
            }
            if u.ratio(1, 10)? {
                reps.pop();
            }
            ("Tensor.repeat", vec![t, Arg::Ints(reps)])
        }
        _ => {
            let mut items: Vec<IndexItem> = (0..u.int_in_range(0..=ndim + 1)?)
                .map(|k| {
                    index_item(
                        u,
                        shape
                            .get(k)
                            .copied()
                            .unwrap_or(if ndim == 0 { 0 } else { 2 })
                            as i64,
                    )
                })
                .collect::<GenResult<_>>()?;
            // torch accepts a second `...` and then reads sizes out of bounds (undefined
            // behaviour, see README findings): keep at most one.
            let mut seen = false;
            items.retain(|i| {
                !matches!(i, IndexItem::Ellipsis(())) || !std::mem::replace(&mut seen, true)
            });
            ("getitem", vec![t, Arg::Index(items)])
        }
    };
    Ok(b.finish(name, args))
}

/// A random factorisation of `numel` into a few sizes (a shape `view` can accept).
fn factor_shape(u: &mut Unstructured, numel: usize) -> GenResult<Vec<i64>> {
    let mut rest = numel;
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=3)? {
        let divisors: Vec<usize> = (1..=rest.clamp(1, 8))
            .filter(|d| rest.is_multiple_of(*d))
            .collect();
        let d = *u.choose(&divisors)?;
        out.push(d as i64);
        rest /= d.max(1);
    }
    out.push(rest as i64);
    Ok(out)
}
