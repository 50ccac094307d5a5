//! The `reduce` family: `sum`, `mean`, `amax`, `amin`, `var`, `std` as functions and methods
//! on random layouts (0-d and zero-size included), with every argument form (`dim` as an int,
//! list, tuple, `None` or `[]`; `keepdim` positional or by keyword; `dtype=`; `unbiased` and
//! `correction`) and deliberately bad dims (out of range, repeated). A few cases replay the
//! `keepdim` examples of the seed documents, one call per case.

use super::tolerance::{float_tolerance, sum_tolerance};
use super::{random_shape, CaseBuilder, GenResult, ShapeLimits, ViewKind, ViewSpec};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::index_map::storage_indices;
use bcast_engine::layout::contiguous_strides;
use bcast_engine::{DType, Layout};

const OPS: [&str; 6] = ["sum", "mean", "amax", "amin", "var", "std"];

/// A dtype, floating more often when `floating` (ops that reject other dtypes).
fn pick_dtype(u: &mut Unstructured, floating: bool) -> GenResult<DType> {
    if floating && u.ratio(3, 4)? {
        return Ok(*u.choose(&[DType::Float32, DType::Float64])?);
    }
    super::operands::random_dtype(u)
}

/// A dim for a tensor of `ndim` dims: usually valid (negative half the time), sometimes out of
/// range.
fn pick_dim(u: &mut Unstructured, ndim: usize) -> GenResult<i64> {
    let n = ndim.max(1) as i64;
    if u.ratio(1, 12)? {
        return Ok(*u.choose(&[n, -n - 1, n + 2])?);
    }
    let d = u.int_in_range(0..=n - 1)?;
    Ok(if u.arbitrary()? { d - n } else { d })
}

/// A `dim` argument, or `None` for no `dim` at all.
fn pick_dim_arg(u: &mut Unstructured, ndim: usize) -> GenResult<Option<Arg>> {
    Ok(Some(match u.int_in_range(0..=9u8)? {
        0 => return Ok(None),
        1 => Arg::None(()),
        2 => Arg::Ints(vec![]),
        3 | 4 => Arg::Int(pick_dim(u, ndim)?),
        k => {
            let len = u.int_in_range(1..=ndim.clamp(1, 3))?;
            let mut dims = (0..len)
                .map(|_| pick_dim(u, ndim))
                .collect::<GenResult<Vec<i64>>>()?;
            if u.ratio(1, 8)? {
                let again = *u.choose(&dims)?;
                dims.push(again);
            }
            if k % 2 == 0 {
                Arg::Tuple(dims)
            } else {
                Arg::Ints(dims)
            }
        }
    }))
}

/// One case of the `reduce` family.
pub fn reduce_case(u: &mut Unstructured) -> GenResult<Case> {
    if u.ratio(1, 30)? {
        return document_case(u);
    }
    let mut b = CaseBuilder::default();
    let op = *u.choose(&OPS)?;
    let moment = op == "var" || op == "std";
    let dtype = pick_dtype(u, op != "sum" && op != "amax" && op != "amin")?;
    let limits = ShapeLimits {
        max_ndim: 4,
        max_size: 4,
        zero_size_percent: 8,
    };
    let shape = random_shape(u, limits)?;
    let x = b.view(u, dtype, &shape, true)?;
    let method = u.arbitrary::<bool>()?;
    let mut args = vec![Arg::Tensor(x.clone())];
    let dim = pick_dim_arg(u, shape.len())?;
    let positional_dim = u.arbitrary::<bool>()?;
    let keepdim = if u.arbitrary()? {
        Some(Arg::Bool(u.arbitrary()?))
    } else {
        None
    };
    let mut dtypes = vec![dtype];
    if moment {
        consistent_moment_input(&mut b, &x);
        moment_args(u, &mut b, &mut args, dim, keepdim)?;
    } else {
        match (dim, positional_dim) {
            (Some(d), true) => {
                args.push(d);
                if let Some(k) = keepdim {
                    if u.arbitrary()? {
                        args.push(k);
                    } else {
                        b.kwarg("keepdim", k);
                    }
                }
            }
            (Some(d), false) => {
                b.kwarg("dim", d);
                if let Some(k) = keepdim {
                    b.kwarg("keepdim", k);
                }
            }
            (None, _) => {}
        }
        if (op == "sum" || op == "mean") && u.ratio(1, 6)? {
            let out = super::operands::random_dtype(u)?;
            dtypes.push(out);
            b.kwarg("dtype", Arg::Dtype(out.name().into()));
        }
    }
    if op == "sum" || op == "mean" {
        sum_tolerance(&mut b, &dtypes);
    } else {
        float_tolerance(&mut b, &dtypes);
    }
    b.tag(op);
    let prefix = if method { "Tensor" } else { "torch" };
    Ok(b.finish(&format!("{prefix}.{op}"), args))
}

/// Makes a `var`/`std` input one torch computes consistently. Where every finite value the
/// view reads is one huge number (`1e30`), torch's result hangs on the rounding of its mean, and
/// so on its summation order and the layout (float32: 0 or inf; float64: 0 or about 1e28);
/// such values become -2.5, whose sums are exact.
fn consistent_moment_input(b: &mut CaseBuilder, x: &str) {
    let Some(t) = b.tensor_spec(x).cloned() else {
        return;
    };
    // Integer inputs are refused by var/std whatever their values.
    let Some(values) = b
        .storage_spec(&t.storage)
        .filter(|s| s.dtype.starts_with("float") || s.dtype == "bfloat16")
        .and_then(|s| s.values.clone())
    else {
        return;
    };
    let Ok(layout) = Layout::new(t.shape.clone(), t.strides.clone(), t.offset) else {
        return;
    };
    let mut finite = storage_indices(&layout)
        .into_iter()
        .filter_map(|i| values.get(i).map(|v| v.to_f64()))
        .filter(|v| v.is_finite());
    let Some(first) = finite.next() else { return };
    if first.abs() >= 1e15 && finite.all(|v| v == first) {
        b.map_values(&t.storage, |v| {
            if v.to_f64() == first {
                match v {
                    Num::Complex(_, im) => Num::Complex(-2.5, im),
                    _ => Num::Float(-2.5),
                }
            } else {
                v
            }
        });
    }
}

/// The argument forms of `var`/`std`: `(x)`, `(x, unbiased)`, `(x, dim, unbiased[, keepdim])`
/// or `dim`/`correction`/`keepdim` by keyword.
fn moment_args(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    args: &mut Vec<Arg>,
    dim: Option<Arg>,
    keepdim: Option<Arg>,
) -> GenResult<()> {
    match (u.int_in_range(0..=3u8)?, dim) {
        (0, _) => {
            if u.arbitrary()? {
                args.push(Arg::Bool(u.arbitrary()?));
            }
        }
        (1, Some(d)) => {
            args.push(d);
            args.push(Arg::Bool(u.arbitrary()?));
            if let Some(k) = keepdim {
                args.push(k);
            }
        }
        (2, d) => {
            b.kwarg("unbiased", Arg::Bool(u.arbitrary()?));
            // `keepdim` with `unbiased` needs `dim` (else no overload matches).
            if let Some(d) = d {
                b.kwarg("dim", d);
                if let Some(k) = keepdim {
                    b.kwarg("keepdim", k);
                }
            }
        }
        (_, d) => {
            if let Some(d) = d {
                args.push(d);
            }
            let correction = match u.int_in_range(0..=4u8)? {
                0 => Arg::Float(Num::Float(*u.choose(&[0.5, 1.5, 2.5])?)),
                _ => Arg::Int(u.int_in_range(-1..=4)?),
            };
            if u.ratio(4, 5)? {
                b.kwarg("correction", correction);
            }
            if let Some(k) = keepdim {
                b.kwarg("keepdim", k);
            }
        }
    }
    Ok(())
}

/// The `keepdim` examples of the seed documents (`x - x.mean(dim, keepdim=True)` and friends),
/// one reduction per case, on contiguous random data of the documents' shapes.
fn document_case(u: &mut Unstructured) -> GenResult<Case> {
    // (shape, op, dim, keepdim)
    let examples: [(&[usize], &str, Arg, bool); 10] = [
        (&[4, 5], "sum", Arg::Int(1), false),
        (&[4, 5], "sum", Arg::Int(1), true),
        (&[10, 5], "mean", Arg::Int(1), false),
        (&[10, 5], "mean", Arg::Int(1), true),
        (&[10, 3, 32, 32], "mean", Arg::Tuple(vec![2, 3]), false),
        (&[10, 3, 32, 32], "mean", Arg::Tuple(vec![2, 3]), true),
        (&[100, 5], "mean", Arg::Int(0), true),
        (&[100, 5], "std", Arg::Int(0), true),
        (&[5, 3, 2], "sum", Arg::Int(2), false),
        (&[8, 10, 20, 64], "sum", Arg::Int(-1), false),
    ];
    let (shape, op, dim, keepdim) = u.choose(&examples)?.clone();
    let mut b = CaseBuilder::default();
    let numel: usize = shape.iter().product();
    let storage = b.random_fill_storage(u, DType::Float32, numel)?;
    let spec = ViewSpec {
        strides: contiguous_strides(shape),
        offset: 0,
        storage_len: numel,
        kind: ViewKind::default(),
    };
    let x = b.tensor(&storage, shape, &spec);
    b.kwarg("dim", dim);
    if keepdim {
        b.kwarg("keepdim", Arg::Bool(true));
    }
    b.tag("document-example");
    b.tag(op);
    float_tolerance(&mut b, &[DType::Float32]);
    Ok(b.finish(&format!("Tensor.{op}"), vec![Arg::Tensor(x)]))
}
