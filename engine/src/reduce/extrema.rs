//! `amax` and `amin`: the largest or smallest element, NaN winning; `bool` is any / all.

use super::walk::{fold_row, fold_row_plain, Fold};
use super::{fold_tensor, reduced_shape, reduction_mask, DimCheck, ReducePlan};
use crate::shape::signed_sizes;
use crate::shape::wrap_dim;
use crate::{alloc, Element, Error, Result, Tensor};

/// Picking the larger or smaller of two elements, with NaN propagating.
pub trait Extremum: Element {
    /// The larger (`max`) or smaller of `acc` and `v`; `acc` is kept on ties.
    fn pick(acc: Self, v: Self, max: bool) -> Self;
    /// The value every other one replaces: the smallest for `max`, else the largest.
    fn identity(max: bool) -> Self;
    /// `acc` followed by the fold of a reduced row with `fold`, whose steps are
    /// [`pick`](Extremum::pick) with `max`: [`fold_row`]'s value.
    #[inline(always)]
    fn row<F: Fold<Self, Acc = Self> + ?Sized>(
        fold: &F,
        acc: Self,
        row: &[Self],
        max: bool,
    ) -> Self {
        let _ = max;
        fold_row(fold, acc, row)
    }
}

impl Extremum for bool {
    fn pick(acc: bool, v: bool, max: bool) -> bool {
        if max {
            acc | v
        } else {
            acc & v
        }
    }
    fn identity(max: bool) -> bool {
        !max
    }
}

macro_rules! int_extremum {
    ($($t:ty),*) => {$(
        impl Extremum for $t {
            #[inline(always)]
            fn pick(acc: $t, v: $t, max: bool) -> $t {
                if max {
                    acc.max(v)
                } else {
                    acc.min(v)
                }
            }
            fn identity(max: bool) -> $t {
                if max {
                    <$t>::MIN
                } else {
                    <$t>::MAX
                }
            }
        }
    )*};
}
int_extremum!(u8, i8, i16, i32, i64);

/// `float16` and `bfloat16` compared by their bits, NaN winning as for `f32`: a sign and
/// magnitude, mapped to a key that orders as the values do (`-0` and `+0` one key, so a tie
/// keeps `acc` as the `f32` compare does), so that the walk compares 16-bit integers instead
/// of converting every element.
macro_rules! half_extremum {
    ($($t:ty),*) => {$(
        impl Extremum for $t {
            #[inline(always)]
            fn pick(acc: $t, v: $t, max: bool) -> $t {
                let key = |h: $t| {
                    let (bits, magnitude) = (h.to_bits(), h.to_bits() & 0x7fff);
                    if bits & 0x8000 != 0 {
                        0x8000 - magnitude
                    } else {
                        0x8000 + magnitude
                    }
                };
                let better = if max { key(v) > key(acc) } else { key(v) < key(acc) };
                if v.is_nan() | (!acc.is_nan() & better) {
                    v
                } else {
                    acc
                }
            }
            fn identity(max: bool) -> $t {
                <$t>::from_f32(if max { f32::NEG_INFINITY } else { f32::INFINITY })
            }
        }
    )*};
}
half_extremum!(crate::half::Half, crate::half::BFloat16);

macro_rules! float_extremum {
    ($t:ty) => {
        impl Extremum for $t {
            /// A NaN `v` replaces `acc`, and a NaN `acc` is replaced only by a NaN, so a
            /// NaN stays. Two compares and a select, so it vectorises.
            #[inline(always)]
            fn pick(acc: $t, v: $t, max: bool) -> $t {
                let better = if max { v > acc } else { v < acc };
                if better | v.is_nan() {
                    v
                } else {
                    acc
                }
            }
            fn identity(max: bool) -> $t {
                if max {
                    <$t>::NEG_INFINITY
                } else {
                    <$t>::INFINITY
                }
            }
            /// Without a NaN, `pick` is a compare and select (one `vmaxps`/`vminps`); rows
            /// with a NaN or an infinity are folded again with `pick`.
            #[inline(always)]
            fn row<F: Fold<$t, Acc = $t> + ?Sized>(fold: &F, acc: $t, row: &[$t], max: bool) -> $t {
                let screen = |s: $t, v: $t| s + (v - v);
                if max {
                    fold_row_plain(
                        fold,
                        acc,
                        row,
                        |a, v| if v > a { v } else { a },
                        screen,
                        <$t>::is_finite,
                    )
                } else {
                    fold_row_plain(
                        fold,
                        acc,
                        row,
                        |a, v| if v < a { v } else { a },
                        screen,
                        <$t>::is_finite,
                    )
                }
            }
        }
    };
}
float_extremum!(f32);
float_extremum!(f64);

/// `torch.amax(x, dim, keepdim)`. An empty `dims` reduces every dim.
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let x = Tensor::from_vec(vec![1.0f32, f32::NAN, 3.0, 0.5], &[2, 2]).unwrap();
/// let m = reduce::amax(&x, &[1], false).unwrap();
/// assert!(m.to_vec::<f32>().unwrap()[0].is_nan());
/// let empty = Tensor::from_vec(Vec::<f32>::new(), &[0, 2]).unwrap();
/// let err = reduce::amax(&empty, &[0], false).unwrap_err();
/// assert_eq!(err.message(), "amax(): Expected reduction dim 0 to have non-zero size.");
/// ```
///
/// # Errors
/// For an input without elements: no dims given, or a reduced dim of size 0 (the dim as given);
/// then the dim errors of [`super::sum`].
pub fn amax(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::extremum_op(x, dims, keepdim, true);
    }
    extremum(x, dims, keepdim, true)
}

/// `torch.amin(x, dim, keepdim)`, the twin of [`amax`]; on `bool` it is "all".
///
/// ```
/// use bcast_engine::{reduce, Tensor};
/// let b = Tensor::from_vec(vec![true, false, true, true], &[2, 2]).unwrap();
/// assert_eq!(reduce::amin(&b, &[1], false).unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
/// ```
pub fn amin(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    if crate::autograd::recording() {
        return crate::autograd::reduce::extremum_op(x, dims, keepdim, false);
    }
    extremum(x, dims, keepdim, false)
}

/// torch's refusal to reduce every element of an empty tensor (`amax()`, `max()`, ...).
pub(super) fn unspecified_dim_error(name: &str) -> Error {
    Error::runtime(format!(
        "{name}: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
    ))
}

/// torch's refusal to reduce an extremum over a dim of size 0 (`d` as the caller names it).
pub(super) fn empty_dim_error(name: &str, d: impl std::fmt::Display) -> Error {
    Error::index(format!(
        "{name}: Expected reduction dim {d} to have non-zero size."
    ))
}

fn extremum(x: &Tensor, dims: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    let name = if max { "amax()" } else { "amin()" };
    if x.numel() == 0 {
        if dims.is_empty() {
            return Err(unspecified_dim_error(name));
        }
        for &d in dims {
            if x.shape()[wrap_dim(d, x.ndim())?] == 0 {
                return Err(empty_dim_error(name, d));
            }
        }
    }
    let mask = reduction_mask(dims, x.ndim(), DimCheck::WrapAllFirst)?;
    let shape = reduced_shape(x.shape(), &mask, keepdim);
    // torch allocates the result (`empty`) before reducing; the engine checks the same.
    alloc::check_empty(&signed_sizes(&shape), x.dtype())?;
    if x.dtype().is_complex() && shape.contains(&0) {
        // torch checks the dtype in the kernel, which an empty result never runs.
        return Tensor::zeros(&shape, x.dtype());
    }
    // Groups are never empty here (a size-0 reduced dim was rejected above), so the identity
    // is always replaced or equal to the group's extremum.
    fn walked<T: Extremum + Sync>(
        x: &Tensor,
        mask: &[bool],
        shape: &[usize],
        max: bool,
    ) -> Result<Tensor> {
        let values = if max {
            fold_extremum::<T, true>(x, mask)?
        } else {
            fold_extremum::<T, false>(x, mask)?
        };
        Tensor::from_vec(values, shape)
    }
    crate::element::dispatch_real!(x.dtype(), T => walked::<T>(x, &mask, &shape, max),
    complex => {
        // Complex numbers have no order.
        ReducePlan::check(x.layout(), &mask)?;
        Err(crate::ops::not_implemented_error(
            if max { "max_values_cpu" } else { "min_values_cpu" },
            complex,
        ))
    })
}

/// The extremum of each group, `MAX` choosing which, for the element types with their own
/// [`Extremum`].
fn fold_extremum<T: Extremum, const MAX: bool>(x: &Tensor, mask: &[bool]) -> crate::Result<Vec<T>> {
    fold_tensor(x, mask, &ExtremumFold::<MAX>)
}

/// The fold of `amax` (`MAX`) or `amin`: [`Extremum::pick`] for every step, and
/// [`Extremum::row`] for reduced rows.
pub struct ExtremumFold<const MAX: bool>;

impl<T: Extremum, const MAX: bool> Fold<T> for ExtremumFold<MAX> {
    type Acc = T;
    #[inline(always)]
    fn identity(&self) -> T {
        T::identity(MAX)
    }
    #[inline(always)]
    fn step(&self, acc: T, v: T) -> T {
        T::pick(acc, v, MAX)
    }
    #[inline(always)]
    fn merge(&self, a: T, b: T) -> T {
        T::pick(a, b, MAX)
    }
    #[inline(always)]
    fn row(&self, acc: T, row: &[T]) -> T {
        T::row(self, acc, row, MAX)
    }
}
