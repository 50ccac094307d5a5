//! The element-wise families: calls of unary ops, binary arithmetic, comparisons and logical
//! ops, and `where`, on random views (transposed, expanded, sliced, offset, 0-d, zero-size),
//! mixed dtypes, edge values and Python numbers, in functional and method spellings. The
//! in-place and `out=` families reuse the argument builders here.

use super::operands::{
    approximate, consistent_divisor, consistent_exponent, is_number, python_number, random_dtype,
    spelling, tensor_or_number,
};
use super::{broadcast_partner, random_shape, CaseBuilder, GenResult, ShapeLimits};
use arbitrary::Unstructured;
use bcast_conformance::case::{Arg, Case, Num};
use bcast_engine::ops::{BinaryOp, CompareOp, UnaryOp};
use bcast_engine::DType;

/// Two shapes that usually broadcast (sometimes not), either one the larger.
pub fn shape_pair(u: &mut Unstructured) -> GenResult<(Vec<usize>, Vec<usize>)> {
    let a = random_shape(u, ShapeLimits::default())?;
    let b = broadcast_partner(u, &a, 8)?;
    Ok(if u.ratio(1, 2)? { (a, b) } else { (b, a) })
}

/// An `alpha` for `add`/`sub`, or `None`: 0, -1 or a power of two, so that `alpha * other`
/// is exact. torch rounds `a + alpha * b` once (a fused multiply-add) inside its vector loop
/// and twice in its scalar remainder, so with an inexact product its result depends on the
/// element's position (README, Findings).
pub fn random_alpha(u: &mut Unstructured) -> GenResult<Option<Arg>> {
    if !u.ratio(1, 3)? {
        return Ok(None);
    }
    Ok(Some(match u.int_in_range(0..=2)? {
        0 => Arg::Int(*u.choose(&[2, -1, 0, -2, 4, 8])?),
        1 => Arg::Float(Num::Float(*u.choose(&[0.5, -2.0, 1.0, 0.25])?)),
        _ => Arg::Bool(u.arbitrary()?),
    }))
}

/// The arguments of a unary op on a new view of `shape`.
pub fn unary_args(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    op: UnaryOp,
    shape: &[usize],
) -> GenResult<Vec<Arg>> {
    if u.ratio(1, 50)? {
        b.tag("type-error");
        return Ok(vec![python_number(u)?]);
    }
    let dtype = random_dtype(u)?;
    let x = b.view(u, dtype, shape, true)?;
    unary_tolerance(b, op, dtype);
    if op == UnaryOp::Round && u.ratio(1, 3)? {
        // `10^40` overflows float32 (NaN results); a negative count rounds to tens.
        let decimals = *u.choose(&[0, 1, 2, 3, -1, -2, 40, -40])?;
        b.kwarg("decimals", Arg::Int(decimals));
    }
    Ok(vec![Arg::Tensor(x)])
}

/// Sets the tolerance of a unary op on a tensor of `dtype`: [`approximate`] for the
/// transcendentals and `sqrt`, and for every op on complex or integral tensors (torch computes
/// complex `sqrt` and `reciprocal` with vectorised algorithms that are not correctly rounded,
/// and integral inputs in float32 by another loop). A real `sqrt` of a contiguous tensor goes
/// to MKL's VML, which is within an ulp but rounds by the processor: float64 `sqrt(0.5)` is
/// `0.7071067811865476` with AVX2 and `0.7071067811865475` with AVX512 (torch 2.13.0).
pub fn unary_tolerance(b: &mut CaseBuilder, op: UnaryOp, dtype: DType) {
    if op.is_transcendental() || op == UnaryOp::Sqrt || !dtype.is_floating() {
        approximate(b);
    }
}

/// Sets the tolerance of a binary op once its operands are added: [`approximate`] for `pow`,
/// and for multiplication and division with a complex operand (torch's vectorised complex
/// arithmetic rounds differently from the textbook formulas).
pub fn binary_tolerance(b: &mut CaseBuilder, op: BinaryOp) {
    let complex_arithmetic =
        matches!(op, BinaryOp::Mul | BinaryOp::Div) && b.has_dtype(DType::is_complex);
    if op == BinaryOp::Pow || complex_arithmetic {
        approximate(b);
    }
}

/// The two operands of a binary op (either may be a number where Python allows one, and
/// rarely where it does not), with the tolerance `pow` needs.
pub fn binary_args(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    op: BinaryOp,
    shapes: (&[usize], &[usize]),
) -> GenResult<Vec<Arg>> {
    let numbers = match op {
        BinaryOp::Maximum | BinaryOp::Minimum => 2,
        BinaryOp::Pow => 50,
        _ => 20,
    };
    let x = tensor_or_number(u, b, shapes.0, numbers / 2)?;
    let mut y = tensor_or_number(u, b, shapes.1, numbers)?;
    let needs_a_tensor = matches!(op, BinaryOp::Pow | BinaryOp::Remainder);
    if needs_a_tensor && is_number(&x) && is_number(&y) {
        let dtype = random_dtype(u)?;
        y = Arg::Tensor(b.view(u, dtype, shapes.1, true)?);
    }
    binary_tolerance(b, op);
    if op == BinaryOp::Pow {
        if is_number(&y) && u.ratio(1, 2)? {
            y = special_exponent(u)?;
        }
        y = consistent_exponent(y);
    }
    if op == BinaryOp::Remainder {
        y = consistent_divisor(b, &x, y);
    }
    Ok(vec![x, y])
}

/// The two operands of a comparison or logical op: a tensor first; for comparisons the second
/// may be a number (logical ops refuse numbers, rarely tried).
pub fn compare_args(
    u: &mut Unstructured,
    b: &mut CaseBuilder,
    op: CompareOp,
    shapes: (&[usize], &[usize]),
) -> GenResult<Vec<Arg>> {
    let dtype = random_dtype(u)?;
    let x = Arg::Tensor(b.view(u, dtype, shapes.0, true)?);
    let numbers = if op.is_logical() { 3 } else { 25 };
    let y = tensor_or_number(u, b, shapes.1, numbers)?;
    Ok(vec![x, y])
}

/// An exponent on one of torch's `pow` fast paths (0, 1, 2, 3, -2, 0.5, -0.5, -1), or a
/// negative integer (refused for integer bases).
fn special_exponent(u: &mut Unstructured) -> GenResult<Arg> {
    Ok(match u.int_in_range(0..=2)? {
        0 => Arg::Int(*u.choose(&[0, 1, 2, 3, -1, -2])?),
        1 => Arg::Float(Num::Float(
            *u.choose(&[0.0, 1.0, 2.0, 3.0, -2.0, 0.5, -0.5, -1.0])?,
        )),
        _ => Arg::Bool(u.arbitrary()?),
    })
}

/// The condition (usually bool) and the two branches of `where`, three-way broadcast.
pub fn where_args(u: &mut Unstructured, b: &mut CaseBuilder, numbers: u8) -> GenResult<Vec<Arg>> {
    let cond_shape = random_shape(u, ShapeLimits::default())?;
    let a_shape = broadcast_partner(u, &cond_shape, 5)?;
    let b_shape = if u.ratio(1, 2)? {
        broadcast_partner(u, &cond_shape, 5)?
    } else {
        broadcast_partner(u, &a_shape, 5)?
    };
    let cond_dtype = if u.ratio(1, 12)? {
        random_dtype(u)?
    } else {
        DType::Bool
    };
    let cond = Arg::Tensor(b.view(u, cond_dtype, &cond_shape, true)?);
    let x = tensor_or_number(u, b, &a_shape, numbers)?;
    let y = tensor_or_number(u, b, &b_shape, numbers)?;
    Ok(vec![cond, x, y])
}

/// The unary ops the `unary`, `inplace` and `out` families draw (and the `grad` family
/// through them): the engine's first fourteen, so that the corpus files those families wrote
/// stay what their recorded commands write. The ops added later are drawn by `unary_more`.
pub const FIRST_UNARY: &[UnaryOp] = UnaryOp::ALL.split_at(14).0;

/// The unary ops added after the corpus was first written (`exp2`, `log1p`, `frac`, `round`,
/// `trunc`, `bitwise_not`): the `unary_more` family's.
pub const LATER_UNARY: &[UnaryOp] = UnaryOp::ALL.split_at(14).1;

/// The `unary` family.
pub fn unary_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let op = *u.choose(FIRST_UNARY)?;
    let shape = random_shape(u, ShapeLimits::default())?;
    let args = unary_args(u, &mut b, op, &shape)?;
    let name = spelling(u, op.name(), &args[0])?;
    Ok(b.finish(&name, args))
}

/// The `unary_more` family: one of [`LATER_UNARY`] (`round` with and without `decimals=`) in
/// every form, the function or the method, in place, or with `out=`, on random views of the
/// twelve dtypes (torch refuses some: `frac` of an integer, `bitwise_not` of a float).
///
/// ```
/// use bcast_fuzzing::generators::{find_family, generate};
/// let case = generate(find_family("unary_more").unwrap(), 1, 0);
/// let base = case.call.fn_.rsplit('.').next().unwrap().trim_end_matches('_');
/// assert!(["exp2", "log1p", "frac", "round", "trunc", "bitwise_not"].contains(&base));
/// ```
pub fn unary_more_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let op = *u.choose(LATER_UNARY)?;
    let shape = random_shape(u, ShapeLimits::default())?;
    let args = unary_args(u, &mut b, op, &shape)?;
    let tensor = matches!(args[0], Arg::Tensor(_));
    match u.int_in_range(0..=3)? {
        0 if tensor => {
            b.tag("inplace");
            Ok(b.finish(&format!("Tensor.{}_", op.name()), args))
        }
        1 => super::out::finish_with_out(u, b, &format!("torch.{}", op.name()), args),
        _ => {
            let name = spelling(u, op.name(), &args[0])?;
            Ok(b.finish(&name, args))
        }
    }
}

/// The `binary` family.
pub fn binary_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let op = *u.choose(&BinaryOp::ALL)?;
    let (sa, sb) = shape_pair(u)?;
    let args = binary_args(u, &mut b, op, (&sa, &sb))?;
    if matches!(op, BinaryOp::Add(_) | BinaryOp::Sub(_))
        && let Some(alpha) = random_alpha(u)?
    {
        b.kwarg("alpha", alpha);
    }
    let name = spelling(u, op.name(), &args[0])?;
    Ok(b.finish(&name, args))
}

/// The `compare` family.
pub fn compare_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let op = *u.choose(&CompareOp::ALL)?;
    let (sa, sb) = shape_pair(u)?;
    let args = compare_args(u, &mut b, op, (&sa, &sb))?;
    let name = spelling(u, op.name(), &args[0])?;
    Ok(b.finish(&name, args))
}

/// The `where` family: `torch.where(c, a, b)` or `a.where(c, b)`.
pub fn where_case(u: &mut Unstructured) -> GenResult<Case> {
    let mut b = CaseBuilder::default();
    let args = where_args(u, &mut b, 20)?;
    if matches!(args[1], Arg::Tensor(_)) && u.ratio(1, 4)? {
        let [c, x, y] = [args[0].clone(), args[1].clone(), args[2].clone()];
        return Ok(b.finish("Tensor.where", vec![x, c, y]));
    }
    Ok(b.finish("torch.where", args))
}
