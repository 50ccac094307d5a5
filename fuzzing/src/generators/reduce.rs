//! The `reduce` family: `sum`, `mean`, `amax`, `amin`, `var`, `std` as functions and methods
//! on random layouts (0-d and zero-size included), with every argument form (`dim` as an int,
//! list, tuple, `None` or `[]`; `keepdim` positional or by keyword; `dtype=`; `unbiased` and
//! `correction`) and deliberately bad dims (out of range, repeated). A few cases replay the
//! `keepdim` examples of the seed documents, one call per case.

use super::operands::grad_dtype;
use super::tolerance::{float_tolerance, sum_tolerance};
use super::{random_shape, CaseBuilder, GenResult, ShapeLimits, ViewKind, ViewSpec};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::DType;

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
    reduce_case_of(u, pick_dtype)
}

/// A case of the `reduce` family's calls on the six floating and complex dtypes, for the
/// `grad` family (the `reduce` family keeps its draws, so `reduce.json` stays what its
/// command writes).
///
/// ```
/// use bcast_fuzzing::generators::floating_reduce_case;
/// let bytes: Vec<u8> = (0..255).collect();
/// let case = floating_reduce_case(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
/// assert!(case.storages.values().all(|s| s.dtype.contains("float") || s.dtype.starts_with("complex")));
/// ```
pub fn floating_reduce_case(u: &mut Unstructured) -> GenResult<Case> {
    reduce_case_of(u, |u, _| grad_dtype(u))
}

/// A reduction case whose input's dtype `dtype` draws (told whether the op takes only
/// floating inputs).
fn reduce_case_of(
    u: &mut Unstructured,
    dtype: fn(&mut Unstructured, bool) -> GenResult<DType>,
) -> GenResult<Case> {
    if u.ratio(1, 30)? {
        return document_case(u);
    }
    let mut b = CaseBuilder::default();
    let op = *u.choose(&OPS)?;
    let moment = op == "var" || op == "std";
    let dtype = dtype(u, op != "sum" && op != "amax" && op != "amin")?;
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
        consistent_sum_input(&mut b, &x, &dtypes);
        sum_tolerance(&mut b, &dtypes);
    } else {
        float_tolerance(&mut b, &dtypes);
    }
    b.tag(op);
    let prefix = if method { "Tensor" } else { "torch" };
    Ok(b.finish(&format!("{prefix}.{op}"), args))
}

/// Makes a `sum`/`mean` input one torch computes consistently. torch sums float32,
/// bfloat16 and complex64 in float32 (float64 in float64) in a cascade whose order follows
/// the layout and the vector width: two values near the top of that range overflow to inf or
/// not depending on which partial sums meet (`max + max - inf` is NaN in one order and -inf
/// in another; the engine sums float32 in float64). Such huge values become -2.5.
fn consistent_sum_input(b: &mut CaseBuilder, x: &str, dtypes: &[DType]) {
    let narrow = dtypes.iter().any(|d| {
        matches!(
            d,
            DType::Float32 | DType::BFloat16 | DType::Float16 | DType::Complex64
        )
    });
    replace_huge(b, x, if narrow { 1e37 } else { 1e307 });
}

/// Makes a `var`/`std` input one torch computes consistently. With a huge value among the
/// elements (1e15 and beyond), torch's result hangs on the rounding of its mean, and so on
/// its summation order and the layout (float32 `var` of one value repeated: 0 or inf; float64:
/// 0 or about 1e28; bfloat16 `std` of the largest value twice: 0 or inf); such values become
/// -2.5, whose sums are exact.
fn consistent_moment_input(b: &mut CaseBuilder, x: &str) {
    replace_huge(b, x, 1e15);
}

/// Replaces every finite value (or complex part) of at least `huge` in magnitude in the
/// storage of tensor `x` by -2.5; infinities and NaN stay (sums of them do not depend on the
/// order).
fn replace_huge(b: &mut CaseBuilder, x: &str, huge: f64) {
    let Some(storage) = b.tensor_spec(x).map(|t| t.storage.clone()) else {
        return;
    };
    let tame = |v: f64| {
        if v.is_finite() && v.abs() >= huge {
            -2.5
        } else {
            v
        }
    };
    b.map_values(&storage, |v| match v {
        Num::Float(f) => Num::Float(tame(f)),
        Num::Complex(re, im) => Num::Complex(tame(re), tame(im)),
        other => other,
    });
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
        strides: contiguous_strides(shape).to_vec(),
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
