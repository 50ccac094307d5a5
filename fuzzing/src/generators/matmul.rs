//! The `matmul` family: `torch.matmul` and `Tensor.matmul` (and now and then the primitives
//! `mm`, `bmm`, `mv`, `dot`) on operands of rank 0 to 4 with broadcasting batch dims, random
//! layouts (which decide whether torch folds the batch into `mm`), zero-size dims, mismatched
//! inner or batch sizes and mismatched dtypes. A few cases replay the documents' examples.

use super::operands::grad_dtype;
use super::tolerance::{grad_tolerance, sum_tolerance};
use super::{CaseBuilder, GenResult, ViewKind, ViewSpec};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::layout::contiguous_strides;
use bcast_engine::DType;

/// A small size, 0 now and then.
fn size(u: &mut Unstructured) -> GenResult<usize> {
    if u.ratio(1, 12)? {
        Ok(0)
    } else {
        u.int_in_range(1..=4)
    }
}

/// A dtype for a product: floating mostly, `int64` and `bool` sometimes.
fn product_dtype(u: &mut Unstructured) -> GenResult<DType> {
    Ok(*u.choose(&[
        DType::Float32,
        DType::Float32,
        DType::Float64,
        DType::Int64,
        DType::Int64,
        DType::Bool,
    ])?)
}

/// Two batch shapes that broadcast (or, rarely, do not): suffixes of one shape with some dims
/// set to 1.
fn batch_shapes(
    u: &mut Unstructured,
    len1: usize,
    len2: usize,
) -> GenResult<(Vec<usize>, Vec<usize>)> {
    let full: Vec<usize> = (0..len1.max(len2))
        .map(|_| size(u))
        .collect::<GenResult<_>>()?;
    let mut part = |len: usize| -> GenResult<Vec<usize>> {
        full[full.len() - len..]
            .iter()
            .map(|&s| Ok(if u.ratio(1, 3)? { 1 } else { s }))
            .collect()
    };
    let (mut b1, b2) = (part(len1)?, part(len2)?);
    if !b1.is_empty() && u.ratio(1, 10)? {
        let d = u.choose_index(b1.len())?;
        b1[d] += 1;
    }
    Ok((b1, b2))
}

/// One case of the `matmul` family.
pub fn matmul_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut case = product_case(u, product_dtype)?;
    // Of its dtypes, only float32's huge values change (the same draws otherwise).
    portable_product_values(&mut case);
    Ok(case)
}

/// A case of the `matmul` family's calls on the six floating and complex dtypes, for the
/// `grad` family.
///
/// ```
/// use bcast_fuzzing::generators::floating_matmul_case;
/// let bytes: Vec<u8> = (0..255).collect();
/// let case = floating_matmul_case(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
/// assert!(case.storages.values().all(|s| s.dtype.starts_with("float") || s.dtype.starts_with("complex") || s.dtype == "bfloat16"));
/// ```
pub fn floating_matmul_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut case = product_case(u, grad_dtype)?;
    portable_product_values(&mut case);
    Ok(case)
}

/// Replaces the literal values whose products torch computes one way on one machine and
/// another way elsewhere by -2.5: the infinite and NaN parts of complex values, and the parts
/// large enough that a sum of products overflows (torch's complex products on the CPU go
/// through its BLAS, whose handling of infinities is its own: a result that would be
/// `inf - inf j` comes out `nan + nan j`, from the scaling by `alpha = 1 + 0j`, and others
/// `nan - inf j`; MKL's `gemv` under a row-major `mm` by one column scales its sum by alpha,
/// so a real part that overflows makes the imaginary part NaN, where its `gemm` and `dot`
/// do not), the `bfloat16` values near its largest
/// (products that overflow `float32` are infinite or not by how the kernel accumulates: with
/// fused multiply-adds, or in pairs as the AVX512-BF16 instructions do), and the `float32`
/// values large enough for a product to overflow (MKL's AVX512 `gemv` adds `1e30 * 1e30` into
/// `-inf` in one fused step, exact and finite, giving `-inf` where its AVX2 kernel, like
/// IEEE sums of rounded products, gives NaN).
///
/// ```
/// use bcast_conformance::case::Num;
/// use bcast_fuzzing::generators::portable_product_values;
/// let mut case: bcast_conformance::case::Case = serde_json::from_value(serde_json::json!({
///     "id": "c", "storages": {"s": {"dtype": "complex64", "values": [["inf", 1.0], [2.0, "nan"], [3e30, -1e16]]},
///                             "b": {"dtype": "bfloat16", "values": [3.3895313892515355e38, "inf"]},
///                             "f": {"dtype": "float32", "values": [1e30, "-inf", 7.0]}},
///     "call": {"fn": "torch.matmul"}, "expect": {"error": {"type": "RuntimeError", "message": "m"}}
/// })).unwrap();
/// portable_product_values(&mut case);
/// assert_eq!(case.storages["s"].values.clone().unwrap(),
///            [Num::Complex(-2.5, 1.0), Num::Complex(2.0, -2.5), Num::Complex(-2.5, -1e16)]);
/// assert_eq!(case.storages["b"].values.clone().unwrap()[0], Num::Float(-2.5));
/// assert_eq!(case.storages["f"].values.clone().unwrap(),
///            [Num::Float(-2.5), Num::Float(f64::NEG_INFINITY), Num::Float(7.0)]);
/// ```
///
/// A case's tolerance, where it has one, is the sum's over the values left (an edge value
/// replaced no longer widens it):
///
/// ```
/// use bcast_fuzzing::generators::portable_product_values;
/// let mut case: bcast_conformance::case::Case = serde_json::from_value(serde_json::json!({
///     "id": "c", "storages": {"f": {"dtype": "float32", "values": [1e30, 7.0]}},
///     "call": {"fn": "torch.matmul"}, "tolerance": {"rtol": 1e-5, "atol": 1e24},
///     "expect": {"error": {"type": "RuntimeError", "message": "m"}}
/// })).unwrap();
/// portable_product_values(&mut case);
/// assert_eq!(case.tolerance.map(|t| (t.rtol, t.atol)), Some((1e-5, 1e-5)));
/// ```
pub fn portable_product_values(case: &mut Case) {
    let mut replaced = false;
    for storage in case.storages.values_mut() {
        let dtype = DType::from_name(&storage.dtype);
        // Far enough below the largest value that no sum of products the generators draw
        // (two parts times two, over fewer than 10^4 terms) overflows.
        let largest = if dtype == Some(DType::Complex128) {
            1e150
        } else {
            1e17
        };
        let portable = |v: f64| v.is_finite() && v.abs() < largest;
        let part = |v: f64| if portable(v) { v } else { -2.5 };
        let Some(values) = storage.values.as_mut() else {
            continue;
        };
        for v in values.iter_mut() {
            let new = match (*v, dtype) {
                (Num::Complex(re, im), _) if !(portable(re) && portable(im)) => {
                    Num::Complex(part(re), part(im))
                }
                (Num::Float(f), Some(DType::BFloat16)) if f.is_finite() && f.abs() >= 1e30 => {
                    Num::Float(-2.5)
                }
                (Num::Float(f), Some(DType::Float32)) if f.is_finite() && f.abs() >= largest => {
                    Num::Float(-2.5)
                }
                _ => continue,
            };
            *v = new;
            replaced = true;
        }
    }
    if replaced && case.tolerance.is_some() {
        case.tolerance = grad_tolerance(&CaseBuilder::of(case));
    }
}

/// A product case whose operands' dtypes `dtype` draws.
fn product_case(
    u: &mut Unstructured,
    dtype: fn(&mut Unstructured) -> GenResult<DType>,
) -> GenResult<Case> {
    if u.ratio(1, 30)? {
        return document_case(u);
    }
    let mut b = CaseBuilder::default();
    let (op, ranks): (&str, (usize, usize)) = match u.int_in_range(0..=19u8)? {
        0 => ("mm", (2, 2)),
        1 => ("bmm", (3, 3)),
        2 => ("mv", (2, 1)),
        3 => ("dot", (1, 1)),
        _ => {
            let rank = |u: &mut Unstructured| -> GenResult<usize> {
                Ok(*u.choose(&[0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4])?)
            };
            ("matmul", (rank(u)?, rank(u)?))
        }
    };
    // A primitive gets the wrong ranks now and then, to hit its rank checks.
    let ranks = if op != "matmul" && u.ratio(1, 6)? {
        (u.int_in_range(1..=3)?, u.int_in_range(1..=3)?)
    } else {
        ranks
    };
    let (r1, r2) = ranks;
    let (n, k, p) = (size(u)?, size(u)?, size(u)?);
    let k2 = if u.ratio(1, 8)? { k + 1 } else { k };
    let (batch1, batch2) = batch_shapes(u, r1.saturating_sub(2), r2.saturating_sub(2))?;
    let shape1: Vec<usize> = match r1 {
        0 => vec![],
        1 => vec![k],
        _ => [&batch1[..], &[n, k]].concat(),
    };
    let shape2: Vec<usize> = match r2 {
        0 => vec![],
        1 => vec![k2],
        _ => [&batch2[..], &[k2, p]].concat(),
    };
    let d1 = dtype(u)?;
    let d2 = if u.ratio(1, 6)? { dtype(u)? } else { d1 };
    let t1 = b.view(u, d1, &shape1, true)?;
    let t2 = b.view(u, d2, &shape2, true)?;
    sum_tolerance(&mut b, &[d1, d2]);
    b.tag(op);
    let prefix = if u.arbitrary()? { "Tensor" } else { "torch" };
    Ok(b.finish(
        &format!("{prefix}.{op}"),
        vec![Arg::Tensor(t1), Arg::Tensor(t2)],
    ))
}

/// A contiguous random tensor of `shape`, or its last two dims transposed.
fn plain_tensor(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    shape: &[usize],
    transposed: bool,
) -> GenResult<String> {
    let numel: usize = shape.iter().product();
    let storage = b.random_fill_storage(u, DType::Float32, numel)?;
    let mut memory = shape.to_vec();
    let nd = memory.len();
    if transposed {
        memory.swap(nd - 1, nd - 2);
    }
    let mut strides = contiguous_strides(&memory).to_vec();
    if transposed {
        strides.swap(nd - 1, nd - 2);
    }
    let spec = ViewSpec {
        strides,
        offset: 0,
        storage_len: numel,
        kind: ViewKind {
            permuted: transposed,
            ..ViewKind::default()
        },
    };
    Ok(b.tensor(&storage, shape, &spec))
}

/// The seed documents' products: attention scores `Q @ K.transpose(-2, -1)` and the einsum
/// examples' matrix shapes.
fn document_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let (a, c) = match u.int_in_range(0..=2u8)? {
        0 => (
            plain_tensor(u, &mut b, &[4, 8, 100, 64], false)?,
            plain_tensor(u, &mut b, &[4, 8, 64, 100], true)?,
        ),
        1 => (
            plain_tensor(u, &mut b, &[3, 4], false)?,
            plain_tensor(u, &mut b, &[4, 5], false)?,
        ),
        _ => (
            plain_tensor(u, &mut b, &[32, 3, 4], false)?,
            plain_tensor(u, &mut b, &[32, 4, 5], false)?,
        ),
    };
    b.tag("document-example");
    sum_tolerance(&mut b, &[DType::Float32]);
    Ok(b.finish("torch.matmul", vec![Arg::Tensor(a), Arg::Tensor(c)]))
}
