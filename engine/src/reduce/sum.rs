//! `sum` and `mean`: integral and bool inputs sum to `int64`; `dtype=` converts the input
//! before summing; `mean` only takes floating dtypes.

use super::wide_row::{self, WideElement};
use super::{fold_tensor, reduced_shape, reduction_mask, DimCheck, FoldWith, ReducePlan};
use crate::element::dispatch_legacy;
use crate::shape::signed_sizes;
use crate::{alloc, DType, Element, Error, Result, Tensor};

/// How a sum accumulates in the dtype of its result: floats in `f64` (rounded once at the
/// end), `int64` with two's-complement wrap-around, `bool` as a logical or.
pub(crate) trait SumElement: Element {
    /// The accumulator.
    type Acc: Copy;
    /// The empty sum.
    const ZERO: Self::Acc;
    /// Adds one value.
    fn add(acc: Self::Acc, v: Self) -> Self::Acc;
    /// Adds two partial sums.
    fn merge(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The result.
    fn finish(acc: Self::Acc) -> Self;
}

impl SumElement for bool {
    type Acc = bool;
    const ZERO: bool = false;
    fn add(acc: bool, v: bool) -> bool {
        acc | v
    }
    fn merge(a: bool, b: bool) -> bool {
        a | b
    }
    fn finish(acc: bool) -> bool {
        acc
    }
}

impl SumElement for i64 {
    type Acc = i64;
    const ZERO: i64 = 0;
    fn add(acc: i64, v: i64) -> i64 {
        acc.wrapping_add(v)
    }
    fn merge(a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn finish(acc: i64) -> i64 {
        acc
    }
}

impl SumElement for f32 {
    type Acc = f64;
    const ZERO: f64 = 0.0;
    fn add(acc: f64, v: f32) -> f64 {
        acc + v as f64
    }
    fn merge(a: f64, b: f64) -> f64 {
        a + b
    }
    fn finish(acc: f64) -> f32 {
        acc as f32
    }
}

impl SumElement for f64 {
    type Acc = f64;
    const ZERO: f64 = 0.0;
    fn add(acc: f64, v: f64) -> f64 {
        acc + v
    }
    fn merge(a: f64, b: f64) -> f64 {
        a + b
    }
    fn finish(acc: f64) -> f64 {
        acc
    }
}

/// The dtype `sum` returns without `dtype=`: integral and bool inputs become `int64`.
fn sum_dtype(input: DType) -> DType {
    if input.is_floating() || input.is_complex() {
        input
    } else {
        DType::Int64
    }
}

/// `torch.sum(x, dim, keepdim, dtype=dtype)`. An empty `dims` sums every element.
///
/// ```
/// use bcast_engine::{reduce, DType, Tensor};
/// let b = Tensor::from_vec(vec![true, true, false], &[3]).unwrap();
/// let s = reduce::sum(&b, &[], false, None).unwrap();
/// assert_eq!((s.dtype(), s.to_vec::<i64>().unwrap()), (DType::Int64, vec![2]));
/// ```
///
/// # Errors
/// A dim out of range (`IndexError`) or repeated (`RuntimeError`), checked in that order.
pub fn sum(x: &Tensor, dims: &[i64], keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::sum_op(x, dims, keepdim, dtype);
    }
    let mask = reduction_mask(dims, x.ndim(), DimCheck::WrapAllFirst)?;
    let out = dtype.unwrap_or_else(|| sum_dtype(x.dtype()));
    let shape = reduced_shape(x.shape(), &mask, keepdim);
    // torch allocates the result (`empty`) before reducing; the engine checks the same.
    alloc::check_empty(&signed_sizes(&shape), out)?;
    if out == DType::Complex32 {
        // torch has no `ComplexHalf` sum kernel; an empty input never reaches it.
        ReducePlan::check(x.layout(), &mask)?;
        if x.numel() > 0 {
            return Err(crate::ops::not_implemented_error("sum_cpu", out));
        }
        return Tensor::zeros(&shape, out);
    }
    if let Some(sums) = walked_sum(x, out, &mask, &shape)? {
        return Ok(sums);
    }
    if !legacy(x.dtype()) || !legacy(out) {
        ReducePlan::check(x.layout(), &mask)?;
        // The input cast to the result dtype, then summed (see `generic_total`).
        let xs = if x.dtype() == out {
            x.clone()
        } else {
            x.to_dtype(out)?
        };
        let plan = ReducePlan::new(xs.layout(), &mask)?;
        return crate::dispatch_dtype!(out, U => {
            let values = plan.map_groups::<U, U>(&xs, |data, group| {
                generic_total(group.map(|p| data[p]), 1.0)
            })?;
            Tensor::from_vec(values, &shape)
        });
    }
    dispatch_legacy!(x.dtype(), T => dispatch_legacy!(out, U => folded_sum::<T, U>(x, &mask, &shape),
        other => Err(Error::unsupported_dtype("sum", other))),
        other => Err(Error::unsupported_dtype("sum", other)))
}

/// Each group's sum of `x` (of `T`) in `U` by the fast walk ([`fold_tensor`]): every element
/// cast to `U`, then added in `U`'s accumulator ([`SumElement`]).
fn folded_sum<T: Element + Sync, U: SumElement>(
    x: &Tensor,
    mask: &[bool],
    shape: &[usize],
) -> Result<Tensor>
where
    U::Acc: Send + Sync,
{
    let fold = FoldWith(
        <U as SumElement>::ZERO,
        |acc, v: T| <U as SumElement>::add(acc, v.cast::<U>()),
        <U as SumElement>::merge,
    );
    let values = fold_tensor(x, mask, &fold)?
        .into_iter()
        .map(<U as SumElement>::finish)
        .collect();
    Tensor::from_vec(values, shape)
}

/// A float sum in `f64` of `float32`, `float64`, `float16` or `bfloat16` elements (exact
/// conversions), its reduced rows in [`wide_row`]'s order.
struct WideSum;

impl<T: WideElement + Sync> super::walk::Fold<T> for WideSum {
    type Acc = f64;
    #[inline(always)]
    fn identity(&self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(&self, acc: f64, v: T) -> f64 {
        acc + v.wide()
    }
    #[inline(always)]
    fn merge(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn row(&self, acc: f64, row: &[T]) -> f64 {
        wide_row::sum_row(acc, row)
    }
    #[inline(always)]
    fn rows_into(&self, accs: &mut [f64], data: &[T], starts: &[usize]) {
        T::add_rows(accs, data, starts)
    }
}

/// Each group's `f64` sum of a float tensor of `T` ([`WideSum`] by the fast walk) over
/// `count` (1 for a sum, the group's size for a mean), as torch's sums and means round
/// them: `float64` divided in `f64`; the others rounded to `float32` (torch's accumulator,
/// and the result dtype of a `float32` sum), divided there, and rounded to `T`.
fn wide_sums<T: Element + WideElement + Sync>(
    x: &Tensor,
    mask: &[bool],
    shape: &[usize],
    count: f64,
) -> Result<Tensor> {
    let totals = fold_tensor::<T, _>(x, mask, &WideSum)?;
    let values = totals.into_iter().map(|t| {
        if T::DTYPE == DType::Float64 {
            T::from_f64(t / count)
        } else {
            T::from_f32(t as f32 / count as f32)
        }
    });
    Tensor::from_vec(values.collect(), shape)
}

/// The sums the fast walk ([`fold_tensor`]) folds with a fold of their own: the smaller
/// integers (and `uint8`) into `int64`, exact in any order; the floats into their own dtype
/// in `f64` ([`wide_sums`]), `float32`, `float16` and `bfloat16` rounded once to `float32`
/// (torch's accumulator) and then to the dtype. torch sums those in `float32`, in its
/// cascade's order, so the values may differ in the last bits (the corpus compares float
/// sums within a tolerance: 1e-5 for `float32`, 2e-3 for `float16`, 2e-2 for `bfloat16`).
/// `None` for the other pairs.
fn walked_sum(x: &Tensor, out: DType, mask: &[bool], shape: &[usize]) -> Result<Option<Tensor>> {
    use crate::half::{BFloat16, Half};
    Ok(Some(match (x.dtype(), out) {
        (DType::UInt8, DType::Int64) => folded_sum::<u8, i64>(x, mask, shape)?,
        (DType::Int8, DType::Int64) => folded_sum::<i8, i64>(x, mask, shape)?,
        (DType::Int16, DType::Int64) => folded_sum::<i16, i64>(x, mask, shape)?,
        (DType::Int32, DType::Int64) => folded_sum::<i32, i64>(x, mask, shape)?,
        (DType::Float32, DType::Float32) => wide_sums::<f32>(x, mask, shape, 1.0)?,
        (DType::Float64, DType::Float64) => wide_sums::<f64>(x, mask, shape, 1.0)?,
        (DType::Float16, DType::Float16) => wide_sums::<Half>(x, mask, shape, 1.0)?,
        (DType::BFloat16, DType::BFloat16) => wide_sums::<BFloat16>(x, mask, shape, 1.0)?,
        _ => return Ok(None),
    }))
}

/// `torch.mean(x, dim, keepdim, dtype=dtype)`: the sum in the result dtype over the count.
/// The mean of no elements is NaN.
///
/// ```
/// use bcast_engine::{reduce, DType, Tensor};
/// let x = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
/// let err = reduce::mean(&x, &[], false, None).unwrap_err();
/// assert!(err.message().ends_with("Input dtype must be either a floating point or complex dtype. Got: Long"));
/// let m = reduce::mean(&x, &[], false, Some(DType::Float64)).unwrap();
/// assert_eq!(m.to_vec::<f64>().unwrap(), vec![1.5]);
/// ```
///
/// # Errors
/// A non-floating input without `dtype`, or a non-floating `dtype` (checked before the dims),
/// then the dim errors of [`sum`].
pub fn mean(x: &Tensor, dims: &[i64], keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::mean_op(x, dims, keepdim, dtype);
    }
    let (out, which) = match dtype {
        Some(d) => (d, "Optional"),
        None => (x.dtype(), "Input"),
    };
    if !out.is_floating() && !out.is_complex() {
        return Err(Error::runtime(format!(
            "mean(): could not infer output dtype. {which} dtype must be either a floating point or complex dtype. Got: {}",
            out.scalar_type_name()
        )));
    }
    let mask = reduction_mask(dims, x.ndim(), DimCheck::WrapAllFirst)?;
    let shape = reduced_shape(x.shape(), &mask, keepdim);
    alloc::check_empty(&signed_sizes(&shape), out)?;
    ReducePlan::check(x.layout(), &mask)?;
    let count = x
        .shape()
        .iter()
        .zip(&mask)
        .filter(|&(_, &m)| m)
        .map(|(&s, _)| s as f64)
        .product::<f64>();
    if out == DType::Complex32 {
        // torch's `sum(...).div_(count)`: no `ComplexHalf` kernel for either, and an empty
        // input reaches only the division.
        let kernel = if x.numel() > 0 { "sum_cpu" } else { "div_cpu" };
        return Err(crate::ops::not_implemented_error(kernel, out));
    }
    if matches!(out, DType::Float16 | DType::BFloat16) {
        // torch's mean_out, "for accuracy reasons": the input cast to float32 (not to the half
        // dtype, whose range it may exceed), summed, divided, then cast to the half dtype.
        // The engine sums a half input in `f64` by the fast walk, as `walked_sum` does.
        if x.dtype() == out {
            return if out == DType::Float16 {
                wide_sums::<crate::half::Half>(x, &mask, &shape, count)
            } else {
                wide_sums::<crate::half::BFloat16>(x, &mask, &shape, count)
            };
        }
        let xs = x.to_dtype(DType::Float32)?;
        let plan = ReducePlan::new(xs.layout(), &mask)?;
        let values = plan.map_groups::<f32, f32>(&xs, |data, group| {
            generic_total(group.map(|p| data[p]), count)
        })?;
        return Tensor::from_vec(values, &shape)?.to_dtype(out);
    }
    if !legacy(x.dtype()) || !legacy(out) {
        let xs = if x.dtype() == out {
            x.clone()
        } else {
            x.to_dtype(out)?
        };
        let plan = ReducePlan::new(xs.layout(), &mask)?;
        return crate::dispatch_dtype!(out, U => {
            let values = plan.map_groups::<U, U>(&xs, |data, group| {
                if U::DTYPE.is_complex() {
                    complex_mean(generic_total(group.map(|p| data[p]), 1.0), count)
                } else {
                    generic_total(group.map(|p| data[p]), count)
                }
            })?;
            Tensor::from_vec(values, &shape)
        });
    }
    match (x.dtype(), out) {
        (DType::Float32, DType::Float32) => return wide_sums::<f32>(x, &mask, &shape, count),
        (DType::Float64, DType::Float64) => return wide_sums::<f64>(x, &mask, &shape, count),
        _ => {}
    }
    dispatch_legacy!(x.dtype(), T => dispatch_legacy!(out, U => {
        let fold = FoldWith(0.0, |acc, v: T| acc + v.cast::<U>().cast::<f64>(), |a, b| a + b);
        let values = fold_tensor(x, &mask, &fold)?
            .into_iter()
            .map(|total| {
                // torch's mean_out: the sum in the result dtype (a float32 sum past its
                // range is infinite), then divided in that dtype.
                let sum = U::from_f64(total);
                if U::DTYPE == DType::Float32 {
                    U::from_f32(sum.cast::<f32>() / count as f32)
                } else {
                    U::from_f64(sum.cast::<f64>() / count)
                }
            })
            .collect();
        Tensor::from_vec(values, &shape)
    }, other => Err(Error::unsupported_dtype("mean", other))),
        other => Err(Error::unsupported_dtype("mean", other)))
}

/// A complex sum over `count` as torch's `mean` divides it: `sum.div_(count)`, a complex
/// division by `count + 0j` in c10's scalar formula (`rat = d / c`, `scl = 1 / (c + d * rat)`,
/// `(a + b * rat) * scl`, `(b - a * rat) * scl`), so a NaN or infinite part spreads to the
/// other part as in torch (`mean([nan+0j])` is `nan+nanj`).
fn complex_mean<U: Element>(sum: U, count: f64) -> U {
    use crate::element::Wide;
    macro_rules! divide {
        ($a:expr, $b:expr, $c:expr, $one:expr) => {{
            let (a, b, c) = ($a, $b, $c);
            if c == 0.0 {
                (a / c, b / c)
            } else {
                let rat = 0.0 / c;
                let scl = $one / (c + 0.0 * rat);
                ((a + b * rat) * scl, (b - a * rat) * scl)
            }
        }};
    }
    match sum.to_wide() {
        Wide::C64(a, b) => {
            let (re, im) = divide!(a, b, count as f32, 1.0f32);
            U::from_wide(Wide::C64(re, im))
        }
        Wide::C128(a, b) => {
            let (re, im) = divide!(a, b, count, 1.0f64);
            U::from_wide(Wide::C128(re, im))
        }
        _ => sum,
    }
}

/// The dtypes with their own summing loops.
fn legacy(d: DType) -> bool {
    matches!(
        d,
        DType::Bool | DType::Int64 | DType::Float32 | DType::Float64
    )
}

/// The sum of `values` over `count` (1 for a sum), in element order: `i64` wrapping for
/// integers, `f64` for `float64`/`complex128`, `f32` for the others, `or` for bool.
fn generic_total<U: Element>(values: impl Iterator<Item = U>, count: f64) -> U {
    use crate::element::Wide;
    match U::DTYPE.category() {
        crate::Category::Bool => U::from_bool(values.fold(false, |a, v| a | v.cast::<bool>())),
        crate::Category::Integral => {
            U::from_i64(values.fold(0i64, |a, v| a.wrapping_add(v.cast::<i64>())))
        }
        // float16, bfloat16 and complex64 accumulate in float32, as torch's loops do.
        crate::Category::Floating if U::DTYPE == DType::Float64 => {
            U::from_f64(values.fold(0.0f64, |a, v| a + v.cast::<f64>()) / count)
        }
        crate::Category::Floating => {
            U::from_f32(values.fold(0.0f32, |a, v| a + v.cast::<f32>()) / count as f32)
        }
        crate::Category::Complex => match U::DTYPE {
            DType::Complex64 => {
                let (re, im) = values.fold((0.0f32, 0.0f32), |(r, i), v| match v.to_wide() {
                    Wide::C64(a, b) => (r + a, i + b),
                    _ => (r, i),
                });
                let n = count as f32;
                U::from_wide(Wide::C64(re / n, im / n))
            }
            _ => {
                let (re, im) = values.fold((0.0f64, 0.0f64), |(r, i), v| match v.to_wide() {
                    Wide::C128(a, b) => (r + a, i + b),
                    _ => (r, i),
                });
                U::from_wide(Wide::C128(re / count, im / count))
            }
        },
    }
}
